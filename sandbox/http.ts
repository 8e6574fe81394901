/** A small router over node:http for the sandbox, with the gateway's error body and field-error conventions. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxClock } from './clock';
import type { SandboxState } from './state';
import type { WebhookSender } from './webhooks';

export interface SandboxRequest {
  method: string;
  /** Path without the query string, percent-decoding left to the params. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The bytes as received: form posts and CSV uploads parse these themselves. */
  rawBody: Buffer;
  /** Parsed JSON when the request carried JSON (Content-Type json, or no Content-Type and a JSON-looking body). */
  body: unknown;
  /** Case-insensitive header read; repeated headers give their first value. */
  header(name: string): string | undefined;
  raw: IncomingMessage;
}

export interface SandboxReply {
  status: number;
  /** Sent as JSON unless `text` is given. */
  body?: unknown;
  /** Sent verbatim (HTML pages, CSV); Content-Type from `contentType`, default text/plain. */
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type RouteHandler = (req: SandboxRequest) => SandboxReply | Promise<SandboxReply>;

/**
 * Runs before routing. Returns true when it has answered (or destroyed) the request itself, false to go on.
 * Faults and rate limits use it; it sees the raw response so that it can hold or reset the socket.
 */
export type RequestGuard = (req: SandboxRequest, res: ServerResponse) => boolean | Promise<boolean>;

export interface SandboxConfig {
  clientId: string;
  clientSecret: string;
  /** Filled once the server listens: the sandbox's own address, for urls in responses. */
  baseUrl: string;
  log: (line: string) => void;
}

export interface SandboxContext {
  state: SandboxState;
  clock: SandboxClock;
  config: SandboxConfig;
  webhooks: WebhookSender;
}

export type SandboxRouteModule = (router: Router, ctx: SandboxContext) => void;

/** An error answered with the gateway's body `{message, code, type}`. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: string = errorTypeFor(status),
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toReply(): SandboxReply {
    return { status: this.status, body: { message: this.message, code: this.code, type: this.type }, headers: this.headers };
  }
}

/** Statuses and types of the PG API 2022-09-01 (gateway-facts section 3). */
function errorTypeFor(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 422) return 'idempotency_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function shown(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A field error: code `<field>_<problem>`, message `"<field>: <reason>. Value received: <v>"`.
 * `field` is the path as the caller sent it (e.g. customer_details.customer_phone).
 */
export function fieldError(field: string, problem: string, reason: string, value: unknown, status = 400): GatewayError {
  return new GatewayError(status, `${field}_${problem}`, `${field}: ${reason}. Value received: ${shown(value)}`);
}

export function jsonReply(status: number, body: unknown, headers?: Record<string, string>): SandboxReply {
  return { status, body, headers };
}

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/** Routes by method and a path pattern whose `:name` segments become params (percent-decoded). */
export class Router {
  private readonly routes: Route[] = [];
  private readonly guards: RequestGuard[] = [];

  add(method: string, pattern: string, handler: RouteHandler): this {
    this.routes.push({ method: method.toUpperCase(), segments: splitPath(pattern), handler });
    return this;
  }

  get(pattern: string, handler: RouteHandler): this { return this.add('GET', pattern, handler); }
  post(pattern: string, handler: RouteHandler): this { return this.add('POST', pattern, handler); }
  put(pattern: string, handler: RouteHandler): this { return this.add('PUT', pattern, handler); }
  delete(pattern: string, handler: RouteHandler): this { return this.add('DELETE', pattern, handler); }

  guard(guard: RequestGuard): this {
    this.guards.push(guard);
    return this;
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | 'method' | null {
    const parts = splitPath(path);
    let pathMatched = false;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i];
        if (seg.startsWith(':')) {
          try {
            params[seg.slice(1)] = decodeURIComponent(parts[i]);
          } catch {
            ok = false;
          }
        } else if (seg !== parts[i]) ok = false;
      }
      if (!ok) continue;
      pathMatched = true;
      if (route.method === method) return { route, params };
    }
    return pathMatched ? 'method' : null;
  }

  /** The node:http request listener. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const rawBody = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
      const request: SandboxRequest = {
        method: (req.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        params: {},
        query: url.searchParams,
        headers: req.headers,
        rawBody,
        body: undefined,
        header: (name) => {
          const v = req.headers[name.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        raw: req,
      };
      for (const guard of this.guards) {
        if (await guard(request, res)) return;
      }
      const found = this.match(request.method, request.path);
      if (found === null) throw new GatewayError(404, 'request_invalid', `${request.method} ${request.path}: no such endpoint. Check the path and the method`);
      if (found === 'method') throw new GatewayError(405, 'request_invalid', `${request.method} ${request.path}: method not allowed on this path`);
      request.params = found.params;
      request.body = parseJsonBody(req.headers['content-type'], rawBody);
      send(res, await found.route.handler(request));
    } catch (error) {
      if (res.headersSent || res.destroyed) return;
      if (error instanceof GatewayError) {
        send(res, error.toReply());
      } else {
        send(res, new GatewayError(500, 'internal_error', 'the sandbox failed to process the request').toReply());
      }
    }
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJsonBody(contentType: string | undefined, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  const declaredJson = contentType !== undefined && /json/i.test(contentType);
  const looksJson = contentType === undefined && /^\s*[[{]/.test(text);
  if (!declaredJson && !looksJson) return undefined;
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unparseable';
    throw new GatewayError(400, 'request_body_invalid', `request body: not valid JSON (${reason}). Send a JSON object with Content-Type: application/json`);
  }
}

export function send(res: ServerResponse, reply: SandboxReply): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  let payload: string | undefined;
  if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= reply.contentType ?? 'text/plain; charset=utf-8';
  } else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json';
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/** A JSON object body or a 400 saying what to send. */
export function objectBody(req: SandboxRequest): Record<string, unknown> {
  const body = req.body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError(400, 'request_body_invalid', 'request body: a JSON object is required. Send a JSON object with Content-Type: application/json');
  }
  return body as Record<string, unknown>;
}
