/** `holdback console --api-url URL`: the console on loopback, its API calls forwarded to Holdback on AWS, signed as the user. */
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
  /** The console's address, e.g. http://127.0.0.1:4001/console. */
  url: string;
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
  let port = 0;
  const server = createServer((req, res) => {
    const refused = refusal(req, port);
    if (refused) {
      sendJson(res, 403, { error: { code: 'cross_origin_refused', message: `refused: ${refused}` } });
      return;
    }
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
    url: `http://${HOST}:${port}/console`,
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
Its calls are signed with your AWS credentials (the default chain: environment, SSO, profile...), so your IAM role decides
what the page may do; a change the role may not make shows "Refused by your AWS role" next to its button. Ctrl-C stops it.`);
  const stop = (): void => { void server.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
