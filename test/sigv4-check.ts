/**
 * An independent SigV4 check as API Gateway's IAM authorisation does it (not the signer's own code): the canonical
 * request rebuilt from what arrived, the signature recomputed with the secret of the access key it names. For
 * execute-api the path is encoded once more, as for every service but S3.
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding, as SigV4 canonical forms use it. */
const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The access key a request is validly signed with, or the problem (a 403 at API Gateway). */
export function checkSignature(
  req: IncomingMessage,
  body: Buffer,
  secrets: ReadonlyMap<string, string>,
  expectedRegion: string,
): { accessKey: string; problem: null } | { accessKey: null; problem: string } {
  const refuse = (problem: string) => ({ accessKey: null, problem });
  const auth = req.headers.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!match) return refuse(`no SigV4 Authorization header: ${JSON.stringify(auth)}`);
  const [, accessKey, day, region, service, signedHeaders, signature] = match;
  const secret = secrets.get(accessKey);
  if (secret === undefined) return refuse(`unknown access key ${accessKey}`);
  if (region !== expectedRegion || service !== 'execute-api') return refuse(`scope ${region}/${service}, not ${expectedRegion}/execute-api`);
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(day)) return refuse('x-amz-date does not match the credential scope');
  const url = new URL(req.url ?? '/', 'http://stub');
  const canonicalUri = url.pathname.split('/').map((segment) => rfc3986(segment)).join('/');
  const canonicalQuery = [...url.searchParams].map(([k, v]) => [rfc3986(k), rfc3986(v)]).sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const names = signedHeaders.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return refuse(`host and x-amz-date must be signed, got ${signedHeaders}`);
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [req.method, canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, sha256(body)].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
  return expected === signature ? { accessKey, problem: null } : refuse(`signature mismatch for ${req.method} ${req.url}`);
}
