/** A loopback HTTP server whose answers a test scripts one by one, recording every request it receives. */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Reply =
  | { kind: 'answer'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers in time (the client's timeout must fire). */
  | { kind: 'hang' }
  /** Sends the status and part of the body, then nothing more (the timeout covers the body too). */
  | { kind: 'stall'; status: number }
  /** Closes the socket without an answer. */
  | { kind: 'reset' };

export const answer = (status: number, body?: unknown, headers?: Record<string, string>): Reply =>
  ({ kind: 'answer', status, body, headers });

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  /** Replies for the next requests, in order; once used up, `fallback` answers. */
  script(...replies: Reply[]): void;
  fallback: (request: RecordedRequest) => Reply;
  close(): Promise<void>;
}

export async function startScriptedServer(fallback: (request: RecordedRequest) => Reply): Promise<ScriptedServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  const state = { fallback };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: RecordedRequest = {
        method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const reply = queue.shift() ?? state.fallback(request);
      if (reply.kind === 'reset') {
        req.socket.destroy();
      } else if (reply.kind === 'answer') {
        const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(text);
      } else if (reply.kind === 'stall') {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.write('{"status": "OK", "mess');
      }
      // 'hang' and 'stall': closeAllConnections in close() ends them.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => { queue.push(...replies); },
    get fallback() { return state.fallback; },
    set fallback(f) { state.fallback = f; },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
