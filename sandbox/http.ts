/** A small router over node:http for the sandbox, with the gateway's error body and field-error conventions. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { nestingDepth } from '../kit/nesting-depth';
import { loopbackRefusal } from '../kit/loopback-guard';
import { readBodyWithin } from '../kit/wire';
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
  /**
   * Set by a guard that lets the request be processed but deals with its answer itself (a fault that applies a request
   * and never answers); absent, the answer is sent.
   */
  answer?: (res: ServerResponse, reply: SandboxReply) => void;
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
    // Never the caller's input back at length (a 30 MB CSV in a header cell): the start of it says what was wrong.
    const message = this.message.length > MAX_MESSAGE_CHARS
      ? `${this.message.slice(0, MAX_MESSAGE_CHARS)}... (${this.message.length} characters; the rest is not shown)`
      : this.message;
    return { status: this.status, body: { message, code: this.code, type: this.type }, headers: this.headers };
  }
}

/** The longest error message answered; longer ones quote the caller's input and are cut. */
const MAX_MESSAGE_CHARS = 1000;
/** At most this much of a received value is quoted in a field error's "Value received". */
const MAX_VALUE_CHARS = 200;

/**
 * Bodies are limited before they are read (the interface states no size, so these are the sandbox's): a JSON request
 * of the gateway is a few kilobytes; a bulk link upload holds at most 1,000 rows (see payments/bulk-links.ts).
 */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
/** Levels of nested objects and lists in a JSON body; the gateway's deepest request needs four. */
const MAX_JSON_DEPTH = 32;

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
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}... (${text.length} characters)` : text;
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
  maxBodyBytes: number;
}

export interface RouteOptions {
  /** The largest body this route reads (default MAX_BODY_BYTES); a larger one is answered 413 unread. */
  maxBodyBytes?: number;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/** Routes by method and a path pattern whose `:name` segments become params (percent-decoded). */
export class Router {
  private readonly routes: Route[] = [];
  private readonly guards: RequestGuard[] = [];
  /** Runs after a route's handler and before its answer is sent (the data folder's snapshot, when there is one). */
  commit: (request: SandboxRequest) => Promise<void> = async () => {};

  add(method: string, pattern: string, handler: RouteHandler, options: RouteOptions = {}): this {
    this.routes.push({ method: method.toUpperCase(), segments: splitPath(pattern), handler, maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES });
    return this;
  }

  get(pattern: string, handler: RouteHandler): this { return this.add('GET', pattern, handler); }
  post(pattern: string, handler: RouteHandler, options?: RouteOptions): this { return this.add('POST', pattern, handler, options); }
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
    let answer = send;
    try {
      const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
      // Other web pages and rebound DNS names first, before a byte of the body is read.
      const refusal = loopbackRefusal(req, { port: req.socket.localPort ?? 0, formsAllowed: formsAllowedAt(url.pathname) });
      if (refusal) {
        req.resume();
        throw new GatewayError(refusal.status, refusal.code, refusal.message);
      }
      const matched = this.match((req.method ?? 'GET').toUpperCase(), url.pathname);
      const rawBody = await readBody(req, typeof matched === 'object' && matched !== null ? matched.route.maxBodyBytes : MAX_BODY_BYTES, res);
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
      answer = request.answer ?? send;
      const found = this.match(request.method, request.path);
      if (found === null) throw new GatewayError(404, 'request_invalid', `${request.method} ${request.path}: no such endpoint. Check the path and the method`);
      if (found === 'method') throw new GatewayError(405, 'request_invalid', `${request.method} ${request.path}: method not allowed on this path`);
      request.params = found.params;
      request.body = parseJsonBody(req.headers['content-type'], rawBody);
      const reply = await found.route.handler(request);
      await this.commit(request);
      answer(res, reply);
    } catch (error) {
      if (res.headersSent || res.destroyed) return;
      if (error instanceof GatewayError) {
        answer(res, error.toReply());
      } else {
        answer(res, new GatewayError(500, 'internal_error', 'the sandbox failed to process the request').toReply());
      }
    }
  }
}

/** Where the sandbox's own pages post forms (the hosted checkout and the bank pages): every other control takes JSON. */
function formsAllowedAt(path: string): boolean {
  return !path.startsWith('/_sandbox/') || path.startsWith('/_sandbox/pay/');
}

function tooLarge(limit: number, received: string): GatewayError {
  return new GatewayError(413, 'request_too_large', `request body: ${received}, more than the ${limit} bytes this endpoint takes. Send a smaller body`, 'invalid_request_error', { connection: 'close' });
}

/**
 * The body, refused with 413 before it is read when its declared length is over the limit, and as soon as the bytes
 * read pass it otherwise; the connection is then closed once the answer is out, so nothing more of it is read.
 */
async function readBody(req: IncomingMessage, limit: number, res: ServerResponse): Promise<Buffer> {
  const body = await readBodyWithin(req, limit);
  if (body !== null) return body;
  res.once('finish', () => req.destroy());
  const declared = Number(req.headers['content-length']);
  throw tooLarge(limit, declared > limit ? `${declared} bytes` : `over ${limit} bytes`);
}

function parseJsonBody(contentType: string | undefined, raw: Buffer): unknown {
  const text = raw.toString('utf8');
  const declaredJson = contentType !== undefined && /json/i.test(contentType);
  const looksJson = contentType === undefined && /^\s*[[{]/.test(text);
  if (!declaredJson && !looksJson) return undefined;
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unparseable';
    throw new GatewayError(400, 'request_body_invalid', `request body: not valid JSON (${reason}). Send a JSON object with Content-Type: application/json`);
  }
  // Before a handler walks it: messages quote values with JSON.stringify, which recurses.
  if (nestingDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new GatewayError(400, 'request_body_invalid', `request body: nests objects and lists more than ${MAX_JSON_DEPTH} levels deep. Send the endpoint's JSON object`);
  }
  return body;
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
