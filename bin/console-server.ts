/** `holdback console --api-url URL`: the console on loopback, its API calls forwarded to Holdback on AWS, signed as the user. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { DateTime } from 'luxon';
import { CONSOLE_CLOCK, CONSOLE_SECURITY_HEADERS, consoleBundle } from '../console/bundle';
import { GATEWAY_ZONE } from '../functions/domain/dates';
import { readBodyWithin } from '../kit/wire';
import { SignedApi, type SignedApiOptions } from './signed-api';

export interface ConsoleServerOptions extends SignedApiOptions {
  /** Default 4001; 0 picks a free port (tests). */
  port?: number;
}

export interface ConsoleServer {
  /** The console's address with this start's key, e.g. http://127.0.0.1:4001/console?key=...: the one to open. */
  url: string;
  /** The cookie (`name=value`) the browser keeps once it opened `url`; what any other client must send. */
  cookie: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Request headers the API needs; cookies and the browser's other headers stay on this machine. */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept'];
/** Answer headers the page needs (a CSV's name and type included). */
const FORWARDED_ANSWER_HEADERS = ['content-type', 'content-disposition', 'cache-control', 'x-amzn-errortype', 'x-amzn-requestid'];

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * This server signs with the user's credentials, so only the console's own page may use it: another site open in the
 * same browser (a cross-site form or fetch) or a DNS-rebound name is refused before anything is signed.
 */
function refusal(req: IncomingMessage, port: number): string | null {
  const allowedHosts = [`${HOST}:${port}`, `localhost:${port}`];
  if (!allowedHosts.includes(req.headers.host ?? '')) return `host ${JSON.stringify(req.headers.host ?? '')} is not this console's (${allowedHosts[0]})`;
  const site = req.headers['sec-fetch-site'];
  if (site && site !== 'same-origin' && site !== 'none') return `a ${site} request; only the console's own page may call it`;
  const origin = req.headers.origin;
  if (origin && !allowedHosts.some((h) => origin === `http://${h}`)) return `origin ${origin} is not this console's`;
  return null;
}

/** The key's cookie: one name per port, since browsers do not tell cookies of two ports of one host apart. */
const cookieName = (port: number): string => `holdback_console_${port}`;

function sameKey(given: string, key: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(key, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieOf(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/**
 * Any local process can reach a loopback port, and this server signs with the user's credentials: so every request
 * must carry this start's key, which only the printed URL holds. A GET with `?key=` sets it as a same-site strict,
 * HttpOnly cookie (the page's script never sees it) and redirects to the same address without it (the key leaves the
 * address bar and the history); every other request must carry the cookie. Answers null when the request may go on.
 */
function keyCheck(req: IncomingMessage, res: ServerResponse, key: string, port: number): 'refused' | 'redirected' | null {
  const url = new URL(req.url ?? '/', `http://${HOST}:${port}`);
  const given = url.searchParams.get('key');
  const name = cookieName(port);
  if (given !== null && req.method === 'GET' && sameKey(given, key)) {
    url.searchParams.delete('key');
    const path = url.pathname === '/' ? '/console' : url.pathname;
    res.writeHead(302, {
      location: `${path}${url.search}`,
      'set-cookie': `${name}=${key}; HttpOnly; SameSite=Strict; Path=/`,
      'cache-control': 'no-store',
    });
    res.end();
    return 'redirected';
  }
  const cookie = cookieOf(req, name);
  if (given === null && cookie !== null && sameKey(cookie, key)) return null;
  const why = given !== null ? 'its key is not the one of this start' : cookie !== null ? 'its key is from an earlier start of holdback console' : 'it carries no console key';
  sendJson(res, 403, {
    error: {
      code: 'console_key_required',
      message: `refused: ${why}. Open the address that \`holdback console\` printed when it started (http://${HOST}:${port}/console?key=...): it holds a new key at every start, and only the browser that opened it may use this console`,
    },
  }, { 'cache-control': 'no-store' });
  return 'refused';
}

async function serveConsole(res: ServerResponse, path: string): Promise<boolean> {
  if (path === `/console/${CONSOLE_CLOCK}`) {
    // On AWS, Holdback's time is the real time; the shared clock exists only in the embedded default.
    sendJson(res, 200, { now: DateTime.now().setZone(GATEWAY_ZONE).toISO() }, { 'cache-control': 'no-store' });
    return true;
  }
  if (path !== '/console' && !path.startsWith('/console/')) return false;
  const bundle = await consoleBundle();
  if (path === '/console') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...CONSOLE_SECURITY_HEADERS });
    res.end(bundle.html);
    return true;
  }
  const asset = bundle.assets.get(path.slice('/console/'.length));
  if (!asset) {
    sendJson(res, 404, { error: { code: 'not_found', message: `console asset ${path} does not exist; reload /console` } });
    return true;
  }
  res.writeHead(200, { 'content-type': asset.contentType, 'content-length': asset.body.length, 'cache-control': 'public, max-age=31536000, immutable', ...CONSOLE_SECURITY_HEADERS });
  res.end(asset.body);
  return true;
}

async function forward(api: SignedApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBodyWithin(req, MAX_BODY_BYTES);
  if (body === null) {
    // The connection is closed after the answer: the rest of the body is never read.
    res.once('finish', () => req.destroy());
    sendJson(res, 413, { error: { code: 'payload_too_large', message: `body: larger than ${MAX_BODY_BYTES} bytes; send a smaller body` } }, { connection: 'close' });
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  let answer: Response;
  try {
    answer = await api.request({ method: req.method ?? 'GET', path: req.url ?? '/', headers, body });
  } catch (error) {
    // No credentials found, or the API unreachable: said in the page, next to what the user did.
    sendJson(res, 502, { error: { code: 'api_unreachable', message: `could not call ${api.base.href}: ${error instanceof Error ? error.message : String(error)}` } });
    return;
  }
  const out: Record<string, string> = {};
  for (const name of FORWARDED_ANSWER_HEADERS) {
    const value = answer.headers.get(name);
    if (value !== null) out[name] = value;
  }
  // Holdback answers errors as {"error": {...}} and never 403; a 403 comes from API Gateway's IAM authorisation.
  if (answer.status === 403) out['x-holdback-refused-by'] = 'aws-iam';
  res.writeHead(answer.status, out);
  if (!answer.body) {
    res.end();
    return;
  }
  // Streamed: an outcomes CSV or an audit export of any size passes through without being held here.
  Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream).on('error', () => res.destroy()).pipe(res);
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const api = new SignedApi(options);
  // New at every start: a key printed earlier, or kept in a browser's cookie, no longer opens it.
  const key = randomBytes(24).toString('base64url');
  let port = 0;
  const server = createServer((req, res) => {
    const refused = refusal(req, port);
    if (refused) {
      sendJson(res, 403, { error: { code: 'cross_origin_refused', message: `refused: ${refused}` } });
      return;
    }
    if (keyCheck(req, res, key, port) !== null) return;
    const path = (req.url ?? '/').split('?')[0];
    void (async () => {
      if (req.method === 'GET' && (await serveConsole(res, path))) return;
      if (path === '/') {
        res.writeHead(302, { location: '/console' });
        res.end();
        return;
      }
      await forward(api, req, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'console_failed', message: error instanceof Error ? error.message : String(error) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4001, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${HOST}:${port}/console?key=${key}`,
    cookie: `${cookieName(port)}=${key}`,
    close: () => new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    }),
  };
}

/** The command: checks its options, starts, prints the address, and runs until Ctrl-C. */
export async function runConsole(args: { apiUrl?: string; region?: string; port?: string }): Promise<void> {
  if (!args.apiUrl) throw new Error('holdback console needs --api-url: the API\'s base URL, e.g. https://abc123.execute-api.ap-south-1.amazonaws.com');
  const port = args.port === undefined ? 4001 : Number(args.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port "${args.port}" is not a port: send a whole number from 1 to 65535 (0 picks a free one)`);
  const server = await startConsoleServer({ apiUrl: args.apiUrl, region: args.region, port });
  console.log(`Holdback console for ${args.apiUrl}: ${server.url}
Open that address (its key is new at every start and is kept in your browser as a cookie); this console refuses every
request without it, so no other program on this machine can act with your role. Its calls are signed with your AWS credentials (the default chain: environment, SSO, profile...), so your IAM role decides
what the page may do; a change the role may not make shows "Refused by your AWS role" next to its button. Ctrl-C stops it.`);
  const stop = (): void => { void server.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
