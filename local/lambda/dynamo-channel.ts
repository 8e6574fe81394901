/**
 * A local Lambda container's DynamoDB requests over a MessagePort to dynalite's thread instead of loopback HTTP (the
 * container and dynalite are threads of one process): the SDK client still serializes, signs and reads each call as
 * over HTTP, and dynalite's own handler answers it (local/edge/dynalite-channel.js). A DynamoDB call cost about a
 * third more CPU over loopback HTTP, both threads together (520-560 µs against 370-380, measured alone).
 */
import type { MessagePort } from 'node:worker_threads';
import type { ClientHook } from '../../functions/composition-root';

/** A request as dynalite-channel.js takes it. */
export interface ChannelRequestMessage {
  id: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An answer as dynalite-channel.js sends it. */
export interface ChannelAnswerMessage {
  id: number;
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface SdkRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/** The query string as the SDK's HTTP handler writes it (DynamoDB's JSON protocol sends none). */
function queryOf(query: SdkRequest['query']): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      parts.push(one === null ? encodeURIComponent(name) : `${encodeURIComponent(name)}=${encodeURIComponent(one)}`);
    }
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  throw new Error('the local DynamoDB channel sends only text or bytes as a body');
}

/**
 * A container's end of a channel (this one, edge-channel.ts'): each request posted with an id of its own and its answer
 * awaited. When the other end goes (the runtime stopping), every call in flight and every later one fails as a reset
 * connection would (`ECONNRESET`, which the SDK and the signed requests try again); `dropped` says whether an answer
 * means the other end dropped the request, which fails the same way. The port does not keep the container's thread
 * alive by itself (a socket of the SDK's agent does not either).
 */
export class PortCalls<A extends { id: number }> {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (answer: A) => void; reject: (error: Error) => void }>();
  private closed = false;

  constructor(private readonly port: MessagePort, private readonly other: string, dropped: (answer: A) => boolean = () => false) {
    port.on('message', (answer: A) => {
      const waiting = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (dropped(answer)) waiting?.reject(this.reset('dropped the request'));
      else waiting?.resolve(answer);
    });
    port.on('close', () => {
      this.closed = true;
      for (const waiting of this.waiting.values()) waiting.reject(this.reset('closed the channel'));
      this.waiting.clear();
    });
    port.unref();
  }

  /** Posts `message` (its headers with lower-case names, as Node's HTTP parser hands a server) and awaits its answer; an abort fails it as the SDK's handler fails one. */
  async call<M extends { headers: Record<string, string> }>(message: M, abortSignal?: AbortSignal): Promise<A> {
    if (this.closed) throw this.reset('closed the channel');
    if (abortSignal?.aborted) throw Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(message.headers)) headers[name.toLowerCase()] = value;
    const id = this.nextId++;
    return new Promise<A>((resolve, reject) => {
      const aborted = (): void => {
        this.waiting.delete(id);
        reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
      };
      const settled = (): void => abortSignal?.removeEventListener('abort', aborted);
      this.waiting.set(id, {
        resolve: (value) => { settled(); resolve(value); },
        reject: (error) => { settled(); reject(error); },
      });
      abortSignal?.addEventListener('abort', aborted, { once: true });
      this.port.postMessage({ ...message, headers, id });
    });
  }

  private reset(what: string): Error {
    return Object.assign(new Error(`the local ${this.other} ${what}`), { code: 'ECONNRESET' });
  }
}

/** An SDK request handler (the shape of @smithy's HttpHandler) sending over `port`. */
export class DynamoChannelHandler {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  private readonly calls: PortCalls<ChannelAnswerMessage>;

  constructor(port: MessagePort) {
    this.calls = new PortCalls(port, 'DynamoDB');
  }

  async handle(request: SdkRequest, options: { abortSignal?: AbortSignal } = {}): Promise<{ response: { statusCode: number; reason?: string; headers: Record<string, string>; body: Uint8Array } }> {
    const message: Omit<ChannelRequestMessage, 'id'> = { method: request.method, url: `${request.path}${queryOf(request.query)}`, headers: request.headers, body: bodyText(request.body) };
    const answer = await this.calls.call(message, options.abortSignal);
    return { response: { statusCode: answer.status, headers: answer.headers, body: Buffer.from(answer.body, 'utf8') } };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {
    // The port is the container's for its whole life: shared by every client of the container, closed with it.
  }
}

/**
 * A client hook that sends every DynamoDB call of the clients it is given over `port` (then runs `next`, if any). It
 * replaces the client's request handler before its first call, which is when the client resolves it.
 */
export function dynamoOverChannel(port: MessagePort, next?: ClientHook): ClientHook {
  const handler = new DynamoChannelHandler(port);
  return (client, service, config) => {
    if (service === 'DynamoDB') (client as unknown as { config: { requestHandler: unknown } }).config.requestHandler = handler;
    next?.(client, service, config);
  };
}
