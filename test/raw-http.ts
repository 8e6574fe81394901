/** A bare node:http client for tests that set what fetch will not (Host, a declared length it never sends). */
import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Sends one request and resolves with the answer. `declaredLength` sends a Content-Length without sending that many
 * bytes (only `body`, if any), to show a server answering from the headers alone; the socket is then dropped.
 */
export function rawRequest(
  url: string,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer; declaredLength?: number },
): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
    if (opts.declaredLength !== undefined) headers['content-length'] = opts.declaredLength;
    else if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const req = request({ hostname, port: Number(port), method: opts.method, path: opts.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        if (opts.declaredLength !== undefined) req.destroy();
      });
      res.on('error', reject);
    });
    // A server that answers early and closes may reset the upload; the answer already read is what counts.
    req.on('error', (error) => reject(error));
    if (opts.body !== undefined) req.write(opts.body);
    if (opts.declaredLength === undefined) req.end();
  });
}
