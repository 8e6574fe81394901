/** The Holdback API on a local port: node http requests as API Gateway HTTP API payload 2.0 events, and back. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { bodyStreamOf } from '../functions/handlers/streamed-body';
import { loopbackRefusal } from '../kit/loopback-guard';
import { readBodyWithin } from '../kit/wire';

/** A Lambda handler of payload 2.0 (the middy handler of functions/handlers/api.ts, or a plain function of the event). */
export type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export interface ApiServerOptions {
  /** Default `HOLDBACK_API_PORT` or 4000; 0 picks a free port (tests). */
  port?: number;
  host?: string;
  handler: ApiHandler;
}

export interface ApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Bodies larger than API Gateway's payload limit are refused before they reach the handler. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Content types API Gateway passes as text; anything else arrives base64-encoded with isBase64Encoded. */
function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return true;
  return /^(text\/|application\/(json|[\w.+-]*\+json|x-www-form-urlencoded|xml|javascript))/i.test(contentType.trim());
}

export async function createApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const port = options.port ?? Number(process.env.HOLDBACK_API_PORT ?? 4000);
  const host = options.host ?? '127.0.0.1';
  let bound = 0;
  const server = createServer((req, res) => {
    // Other web pages and rebound DNS names are refused before the body is read (on AWS, IAM signing does this).
    const refusal = loopbackRefusal(req, { port: bound, formsAllowed: false });
    if (refusal) {
      req.resume();
      send(res, { statusCode: refusal.status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { code: refusal.code, message: refusal.message } }) });
      return;
    }
    void serve(req, res, options.handler);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    close: () => new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    }),
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, handler: ApiHandler): Promise<void> {
  try {
    // A declared length over the limit is refused unread; one streamed past it stops being read. The connection then
    // closes once the answer is out, so the rest is never taken in.
    const body = await readBodyWithin(req, MAX_BODY_BYTES);
    if (body === null) {
      res.once('finish', () => req.destroy());
      send(res, { statusCode: 413, headers: { 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ error: { code: 'payload_too_large', message: `body: larger than ${MAX_BODY_BYTES} bytes; send a smaller body` } }) });
      return;
    }
    const event = toEvent(req, body);
    const result = await handler(event, localContext(event.requestContext.requestId));
    const chunks = bodyStreamOf(result);
    if (chunks) await pipe(res, result, chunks);
    else send(res, result);
  } catch (error) {
    // The handler answers its own errors; this is a fault of the translation itself.
    console.error('local API server failed', error instanceof Error ? error.message : error);
    if (!res.headersSent) {
      send(res, { statusCode: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { code: 'internal_error', message: 'the local API server failed; see its log' } }) });
    } else {
      res.destroy();
    }
  }
}

function toEvent(req: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  const rawPath = queryAt >= 0 ? target.slice(0, queryAt) : target;
  const rawQueryString = queryAt >= 0 ? target.slice(queryAt + 1) : '';
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') cookies.push(...(Array.isArray(value) ? value : value.split(/;\s*/)));
    // API Gateway joins repeated headers with commas.
    else headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    query[name] = name in query ? `${query[name]},${value}` : value;
  }
  const textual = isTextual(headers['content-type']);
  const now = new Date();
  const method = (req.method ?? 'GET').toUpperCase();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: textual ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !textual,
  };
}

/**
 * The little of a Lambda context a handler reads locally. Without getRemainingTimeInMillis, middy sets no early
 * timeout, as there is no Lambda deadline here.
 */
function localContext(requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'holdback-api',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:holdback-api',
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: 'local',
    logStreamName: 'local',
  } as Context;
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.body === undefined ? Buffer.alloc(0) : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
  headers['content-length'] = body.length;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(body);
}

/**
 * A streamed body (the outcomes CSV) goes out chunk by chunk, chunked transfer encoding, each write waiting for the
 * socket to drain: however many rows, the process holds one chunk at a time. A client that goes away ends the read.
 */
async function pipe(res: ServerResponse, result: APIGatewayProxyStructuredResultV2, chunks: AsyncIterable<string>): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  const iterator = chunks[Symbol.asyncIterator]();
  let first: IteratorResult<string>;
  try {
    // The first chunk before the head: an error before any row is still answered with a status.
    first = await iterator.next();
  } catch (error) {
    await iterator.return?.();
    throw error;
  }
  res.writeHead(result.statusCode ?? 200, headers);
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  try {
    for (let next = first; !next.done && !closed; next = await iterator.next()) {
      if (!res.write(next.value)) await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
    res.end();
  } catch (error) {
    // Rows already went out with a 200: the only honest signal left is a broken body.
    console.error('local API server: streamed body failed', error instanceof Error ? error.message : error);
    res.destroy();
  } finally {
    if (closed) await iterator.return?.();
  }
}
