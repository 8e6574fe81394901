/**
 * A local Lambda container's signed Scheduler, EventBridge and SQS requests over a MessagePort to the local edge on
 * the runtime's thread instead of loopback HTTP (the container and the edge are threads of one process), as its
 * DynamoDB calls go to dynalite's thread (dynamo-channel.ts). Each request is still built and signed as on AWS
 * (functions/adapters/aws-http/signed-request.ts), and the edge's own request listener answers it, the one its HTTP
 * server calls (loopback check, routing, the bus policy reading the signature's access key): only the transport
 * differs. Both ends are here: `EdgeChannelTransport` on the container's thread, `serveEdgeChannel` on the edge's.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { MessagePort } from 'node:worker_threads';
import type { ClientHook } from '../../functions/composition-root';
import type { SignedTransport, SignedWireRequest } from '../../functions/adapters/aws-http/signed-request';
import { PortCalls, type ChannelAnswerMessage, type ChannelRequestMessage } from './dynamo-channel';

/** A request as the edge's end takes it (dynamo-channel.ts' message, its body as bytes; the URL with its query string). */
export type EdgeRequestMessage = Omit<ChannelRequestMessage, 'body'> & { body: Uint8Array };

/** An answer as the edge's end sends it; `reset`: the edge dropped the request (as it destroys a connection). */
export type EdgeAnswerMessage = Omit<ChannelAnswerMessage, 'body'> & { body: string | Uint8Array; reset?: boolean };

/** The services whose senders take the channel: those the edge serves (S3 and KMS are not the edge's). */
const CARRIED = new Set(['Scheduler', 'EventBridge', 'SQS']);

/** The container's end: carries the signed requests to the edge's origin over `port`. */
export class EdgeChannelTransport implements SignedTransport {
  private readonly calls: PortCalls<EdgeAnswerMessage>;

  /** `origin`: the edge's (its HTTP server's) origin; a request to any other goes over HTTP. */
  constructor(port: MessagePort, private readonly origin: string) {
    this.calls = new PortCalls(port, 'edge', (answer) => answer.reset === true);
  }

  carries(url: URL): boolean {
    return url.origin === this.origin;
  }

  async send(request: SignedWireRequest): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    const answer = await this.calls.call({ method: request.method, url: request.target, headers: request.headers, body: request.body });
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength);
    return { status: answer.status, headers: answer.headers, body };
  }
}

/**
 * A client hook that gives the Scheduler, EventBridge and SQS senders it is given (their `http`, SignedRequests) the
 * channel as transport (then runs `next`, if any), as dynamoOverChannel gives a DynamoDB client its request handler.
 */
export function edgeOverChannel(port: MessagePort, origin: string, next?: ClientHook): ClientHook {
  const transport = new EdgeChannelTransport(port, origin);
  return (client, service, config) => {
    const http = (client as { http?: { transport?: SignedTransport | null } }).http;
    if (CARRIED.has(service) && http && 'transport' in http) http.transport = transport;
    next?.(client, service, config);
  };
}

/** What the edge's listener reads of a request: method, url, headers, and its body by async iteration. */
class ChannelRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  private readonly body: Buffer;

  constructor(message: EdgeRequestMessage) {
    this.method = message.method;
    this.url = message.url;
    this.headers = message.headers;
    this.body = Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    if (this.body.length > 0) yield this.body;
  }

  /** The body is already here: nothing to drain. */
  resume(): this {
    return this;
  }
}

/** What the edge's listener writes of an answer: a status, headers, one end(body); destroy() drops the request. */
class ChannelResponse {
  statusCode = 200;
  headersSent = false;
  private readonly headers: Record<string, string> = {};

  constructor(private readonly port: MessagePort, private readonly id: number) {}

  setHeader(name: string, value: string | number): this {
    this.headers[name.toLowerCase()] = String(value);
    return this;
  }

  writeHead(status: number, headers: Record<string, string | number> = {}): this {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
    return this;
  }

  end(body?: string | Uint8Array): this {
    if (this.headersSent) return this;
    this.headersSent = true;
    this.post({ id: this.id, status: this.statusCode, headers: this.headers, body: body ?? '' });
    return this;
  }

  destroy(): this {
    if (!this.headersSent) this.post({ id: this.id, status: 0, headers: {}, body: '', reset: true });
    this.headersSent = true;
    return this;
  }

  private post(answer: EdgeAnswerMessage): void {
    // The container may be gone (terminated mid-call): nothing is waiting then.
    try {
      this.port.postMessage(answer);
    } catch {
      // A closed port.
    }
  }
}

/**
 * The edge's end: serves `port`'s requests with `listener`, the request listener of the edge's HTTP server. The port
 * does not keep the runtime's thread alive; the edge closes it when it closes.
 */
export function serveEdgeChannel(port: MessagePort, listener: (req: IncomingMessage, res: ServerResponse) => void): void {
  port.on('message', (message: EdgeRequestMessage) => {
    listener(new ChannelRequest(message) as unknown as IncomingMessage, new ChannelResponse(port, message.id) as unknown as ServerResponse);
  });
  port.unref();
}
