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

interface Waiting {
  resolve: (answer: ChannelAnswerMessage) => void;
  reject: (error: Error) => void;
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

/** An SDK request handler (the shape of @smithy's HttpHandler) sending over `port`. */
export class DynamoChannelHandler {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  private closed = false;

  constructor(private readonly port: MessagePort) {
    port.on('message', (answer: ChannelAnswerMessage) => {
      const waiting = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      waiting?.resolve(answer);
    });
    // dynalite's thread gone (the runtime stopping): a call in flight fails as a reset connection would.
    port.on('close', () => {
      this.closed = true;
      for (const waiting of this.waiting.values()) waiting.reject(Object.assign(new Error('the local DynamoDB closed the channel'), { code: 'ECONNRESET' }));
      this.waiting.clear();
    });
    // The port does not keep the container's thread alive by itself (a socket of the SDK's agent does not either).
    port.unref();
  }

  async handle(request: SdkRequest, options: { abortSignal?: AbortSignal } = {}): Promise<{ response: { statusCode: number; reason?: string; headers: Record<string, string>; body: Uint8Array } }> {
    if (this.closed) throw Object.assign(new Error('the local DynamoDB closed the channel'), { code: 'ECONNRESET' });
    const { abortSignal } = options;
    if (abortSignal?.aborted) throw Object.assign(new Error('Request aborted'), { name: 'AbortError' });
    const headers: Record<string, string> = {};
    // Node's HTTP parser hands a server lower-case header names.
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    const message: ChannelRequestMessage = { id: this.nextId++, method: request.method, url: `${request.path}${queryOf(request.query)}`, headers, body: bodyText(request.body) };
    const answer = await new Promise<ChannelAnswerMessage>((resolve, reject) => {
      const aborted = (): void => {
        this.waiting.delete(message.id);
        reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
      };
      const settled = (): void => abortSignal?.removeEventListener('abort', aborted);
      this.waiting.set(message.id, {
        resolve: (value) => { settled(); resolve(value); },
        reject: (error) => { settled(); reject(error); },
      });
      abortSignal?.addEventListener('abort', aborted, { once: true });
      this.port.postMessage(message);
    });
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
