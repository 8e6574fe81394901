/** `holdback console` refuses a body over 10 MB at once (announced or streamed) and forwards nothing of it. */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startConsoleServer, type ConsoleServer } from '../../bin/console-server';

let api: Server;
let calls = 0;
let consoleServer: ConsoleServer;
let port = 0;

beforeAll(async () => {
  api = createServer((_req, res) => {
    calls += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  consoleServer = await startConsoleServer({
    apiUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    region: 'ap-south-1',
    credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
    port: 0,
  });
  port = Number(new URL(consoleServer.url).port);
});

afterAll(async () => {
  await consoleServer.close();
  await new Promise((resolve) => api.close(resolve));
});

/**
 * Posts `megabytes` MB of spaces (chunked unless `announce`), stopping when the answer comes: the status (or
 * `reset` when the server cut the connection before this client read its answer) and the MB written.
 */
function post(megabytes: number, announce: boolean): Promise<{ status: number | 'reset'; code?: string; sentMb: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    const req = request({
      host: '127.0.0.1', port, method: 'POST', path: '/policies/import?dryRun=true',
      headers: { 'content-type': 'text/csv', cookie: consoleServer.cookie, ...(announce ? { 'content-length': String(megabytes * chunk.length) } : {}) },
    }, (res) => {
      answered = true;
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, code: JSON.parse(text).error?.code, sentMb: sent }));
    });
    // The server closes the connection after its answer; writes after that may fail, which is the point.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve({ status: 'reset', sentMb: sent });
      else reject(error);
    });
    const pump = () => {
      while (!answered && sent < megabytes) {
        sent += 1;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

test('a body announced over 10 MB is refused with 413 before it is read, and nothing reaches the API', async () => {
  const answer = await post(64, true);
  expect(answer).toMatchObject({ status: 413, code: 'payload_too_large' });
  expect(answer.sentMb).toBeLessThan(64);
  expect(calls).toBe(0);
});

test('a streamed body is refused once it passes 10 MB, without reading the rest', async () => {
  const answer = await post(64, false);
  // The server answers 413 and closes; a client still writing may see the close before the answer.
  if (answer.status !== 'reset') expect(answer).toMatchObject({ status: 413, code: 'payload_too_large' });
  expect(answer.sentMb).toBeLessThan(64);
  expect(calls).toBe(0);
});
