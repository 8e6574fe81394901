/** Reading request bodies (the edge's, the local API's, the sandbox's) and writing JSON answers for the local edge's HTTP routes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';

/** Largest body the edge reads itself (DynamoDB bodies go to dynalite unread). PutEvents allows 256 KB of entries. */
export const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLarge extends Error {
  constructor() {
    super(`request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
}

export async function readBody(req: IncomingMessage): Promise<string> {
  // A declared length over the limit is refused before a byte is read, as the API and the sandbox do.
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The body, or null once it is known to pass `limit` bytes: from a Content-Length over it, before a byte is read, or
 * as soon as the bytes read pass it, when reading stops. The caller answers and then closes the connection, so the
 * rest is never read.
 */
export function readBodyWithin(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.pause();
      resolve(null);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(
  res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {},
  contentType = 'application/json',
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  res.end(text);
}

/** Parses a JSON body into a plain object, or says why it is not one. */
export function parseJsonObject(text: string): { value: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `the body is not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: 'the body must be a JSON object' };
  }
  return { value: value as Record<string, unknown> };
}
