/**
 * A small S3 (REST, path-style) for the local edge and the tests: PutObject, GetObject, HeadObject, DeleteObject,
 * ListObjectsV2 and a multipart upload (create, parts, complete, abort), as S3's REST API takes them, in memory. Enough to run Holdback's S3 adapters against
 * something that answers, not a general S3.
 *
 * A write-once bucket behaves as the audit archive bucket does on AWS (lib/audit-archive.ts): its bucket policy denies
 * every PutObject without `If-None-Match: *` (403 AccessDenied), so a key once written is never replaced (a put with the
 * header on a taken key answers 412 PreconditionFailed), and Object Lock in compliance mode refuses every delete
 * (403 AccessDenied). `x-amz-checksum-sha256`, when sent, is checked against the body (400 BadDigest).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { LOCAL_KEEP_ALIVE_MS } from './keep-alive';
import type { AddressInfo } from 'node:net';

export interface LocalS3Bucket {
  /** The audit archive's rules: conditional puts only, and nothing is ever deleted or replaced. */
  writeOnce?: boolean;
}

interface StoredObject {
  body: Buffer;
  etag: string;
  lastModified: Date;
  contentType: string;
}

/** An S3 error as S3 answers it (XML, with its code). */
class S3Error extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** One page of ListObjectsV2 at most (S3's own maximum). */
const MAX_KEYS = 1000;
/** Largest object body taken (the copier's objects are a batch of at most 1,000 export lines). */
const MAX_OBJECT_BYTES = 64 * 1024 * 1024;

const xmlEscape = (text: string): string => text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** S3 lists keys in UTF-8 byte order. */
const byUtf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** S3's smallest part of a multipart upload but its last (EntityTooSmall otherwise). */
const MIN_PART_BYTES = 5 * 1024 * 1024;

interface Upload { bucket: string; key: string; contentType: string; parts: Map<number, { body: Buffer; etag: string }> }

export class LocalS3 {
  private readonly buckets = new Map<string, { rules: LocalS3Bucket; objects: Map<string, StoredObject> }>();
  private readonly uploads = new Map<string, Upload>();
  private uploadCount = 0;

  constructor(buckets: Record<string, LocalS3Bucket>) {
    for (const [name, rules] of Object.entries(buckets)) this.buckets.set(name, { rules, objects: new Map() });
  }

  /** Whether a request's path names one of this S3's buckets (path-style: `/<bucket>/<key>`). */
  serves(pathname: string): boolean {
    return this.buckets.has(decodeURIComponent(pathname.split('/')[1] ?? ''));
  }

  /** Every key of a bucket, in list order (for tests that look behind the API). */
  keys(bucket: string): string[] {
    return [...(this.bucket(bucket).objects.keys())].sort(byUtf8);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://s3.local');
      const [, bucketName = '', ...rest] = url.pathname.split('/');
      const bucket = this.bucket(decodeURIComponent(bucketName));
      const key = rest.map(decodeURIComponent).join('/');
      const method = req.method ?? 'GET';
      if (key === '') {
        if (method === 'GET' && url.searchParams.get('list-type') === '2') return this.list(res, bucket.objects, url.searchParams);
        throw new S3Error(501, 'NotImplemented', `The local S3 serves ListObjectsV2 (GET /<bucket>?list-type=2) on a bucket, not ${method} ${url.search}.`);
      }
      if (url.searchParams.has('uploads') || url.searchParams.has('uploadId')) return await this.multipart(req, res, bucket, decodeURIComponent(bucketName), key, url.searchParams);
      if (method === 'PUT') return await this.put(req, res, bucket, key);
      if (method === 'GET' || method === 'HEAD') return this.get(res, bucket.objects, key, method === 'HEAD');
      if (method === 'DELETE') {
        if (bucket.rules.writeOnce) throw new S3Error(403, 'AccessDenied', 'Access Denied: the bucket is write-once (Object Lock, compliance mode); no object is ever deleted.');
        bucket.objects.delete(key);
        res.writeHead(204).end();
        return;
      }
      throw new S3Error(501, 'NotImplemented', `The local S3 does not implement ${method} on an object.`);
    } catch (error) {
      const e = error instanceof S3Error ? error : new S3Error(500, 'InternalError', error instanceof Error ? error.message : String(error));
      req.resume();
      res.writeHead(e.status, { 'content-type': 'application/xml' });
      res.end(req.method === 'HEAD' ? undefined : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${e.code}</Code><Message>${xmlEscape(e.message)}</Message></Error>`);
    }
  }

  private bucket(name: string) {
    const bucket = this.buckets.get(name);
    if (!bucket) throw new S3Error(404, 'NoSuchBucket', `The bucket ${JSON.stringify(name)} does not exist here; the local S3 has ${[...this.buckets.keys()].join(', ') || 'no bucket'}.`);
    return bucket;
  }

  private async put(req: IncomingMessage, res: ServerResponse, bucket: { rules: LocalS3Bucket; objects: Map<string, StoredObject> }, key: string): Promise<void> {
    if (String(req.headers['content-encoding'] ?? '').includes('aws-chunked')) {
      throw new S3Error(501, 'NotImplemented', 'The local S3 takes a body sent whole (Content-Length), not aws-chunked; send a string or a Buffer as Body.');
    }
    const body = await readAll(req);
    const ifNoneMatch = req.headers['if-none-match'];
    if (bucket.rules.writeOnce && ifNoneMatch !== '*') {
      throw new S3Error(403, 'AccessDenied', 'Access Denied: the bucket policy denies PutObject without If-None-Match: * (write-once: an object is never replaced).');
    }
    if (ifNoneMatch === '*' && bucket.objects.has(key)) {
      throw new S3Error(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold (If-None-Match: * and the key exists).');
    }
    const sent = req.headers['x-amz-checksum-sha256'];
    if (typeof sent === 'string' && createHash('sha256').update(body).digest('base64') !== sent) {
      throw new S3Error(400, 'BadDigest', 'The SHA256 you specified did not match the calculated checksum.');
    }
    const etag = `"${createHash('md5').update(body).digest('hex')}"`;
    bucket.objects.set(key, { body, etag, lastModified: new Date(), contentType: String(req.headers['content-type'] ?? 'binary/octet-stream') });
    res.writeHead(200, { etag }).end();
  }

  /** CreateMultipartUpload, UploadPart, CompleteMultipartUpload and AbortMultipartUpload (not on a write-once bucket). */
  private async multipart(req: IncomingMessage, res: ServerResponse, bucket: { rules: LocalS3Bucket; objects: Map<string, StoredObject> }, bucketName: string, key: string, query: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET';
    if (bucket.rules.writeOnce) throw new S3Error(403, 'AccessDenied', 'Access Denied: the write-once bucket takes conditional PutObject only.');
    if (method === 'POST' && query.has('uploads')) {
      const uploadId = `upload-${++this.uploadCount}`;
      this.uploads.set(uploadId, { bucket: bucketName, key, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'), parts: new Map() });
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<InitiateMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${xmlEscape(bucketName)}</Bucket><Key>${xmlEscape(key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`);
      return;
    }
    const uploadId = query.get('uploadId') ?? '';
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.bucket !== bucketName || upload.key !== key) throw new S3Error(404, 'NoSuchUpload', `The specified upload does not exist: ${uploadId}`);
    if (method === 'PUT') {
      const partNumber = Number(query.get('partNumber'));
      if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000) throw new S3Error(400, 'InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive.');
      const body = await readAll(req);
      const etag = `"${createHash('md5').update(body).digest('hex')}"`;
      upload.parts.set(partNumber, { body, etag });
      res.writeHead(200, { etag }).end();
      return;
    }
    if (method === 'DELETE') {
      this.uploads.delete(uploadId);
      res.writeHead(204).end();
      return;
    }
    if (method === 'POST') {
      const xml = (await readAll(req)).toString('utf8');
      const named = [...xml.matchAll(/<Part>\s*<ETag>([^<]*)<\/ETag>\s*<PartNumber>(\d+)<\/PartNumber>\s*<\/Part>/g)].map((m) => ({ etag: m[1].replace(/&quot;/g, '"'), number: Number(m[2]) }));
      if (named.length === 0) throw new S3Error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate against our published schema.');
      const bodies = named.map(({ etag, number }, i) => {
        const part = upload.parts.get(number);
        if (!part || part.etag !== etag) throw new S3Error(400, 'InvalidPart', `One or more of the specified parts could not be found: part ${number}.`);
        if (i > 0 && named[i - 1].number >= number) throw new S3Error(400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
        if (i < named.length - 1 && part.body.length < MIN_PART_BYTES) throw new S3Error(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
        return part.body;
      });
      const body = Buffer.concat(bodies);
      const etag = `"${createHash('md5').update(Buffer.concat(named.map((n) => Buffer.from(n.etag.replace(/"/g, ''), 'hex')))).digest('hex')}-${named.length}"`;
      bucket.objects.set(key, { body, etag, lastModified: new Date(), contentType: upload.contentType });
      this.uploads.delete(uploadId);
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUploadResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${xmlEscape(bucketName)}</Bucket><Key>${xmlEscape(key)}</Key><ETag>${xmlEscape(etag)}</ETag></CompleteMultipartUploadResult>`);
      return;
    }
    throw new S3Error(501, 'NotImplemented', `The local S3 does not implement ${method} on a multipart upload.`);
  }

  /** Multipart uploads begun and neither completed nor aborted (for tests). */
  openUploads(): number {
    return this.uploads.size;
  }

  private get(res: ServerResponse, objects: Map<string, StoredObject>, key: string, head: boolean): void {
    const object = objects.get(key);
    if (!object) throw new S3Error(404, 'NoSuchKey', `The specified key does not exist: ${key}`);
    res.writeHead(200, {
      etag: object.etag, 'content-type': object.contentType, 'content-length': object.body.length, 'last-modified': object.lastModified.toUTCString(),
    });
    res.end(head ? undefined : object.body);
  }

  private list(res: ServerResponse, objects: Map<string, StoredObject>, query: URLSearchParams): void {
    const prefix = query.get('prefix') ?? '';
    const maxKeys = Math.min(MAX_KEYS, Math.max(0, Number(query.get('max-keys') ?? MAX_KEYS) || 0));
    const token = query.get('continuation-token');
    const after = token ? Buffer.from(token, 'base64url').toString() : query.get('start-after') ?? '';
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix) && byUtf8(k, after) > 0).sort(byUtf8);
    const page = keys.slice(0, maxKeys);
    const truncated = keys.length > page.length;
    const contents = page.map((k) => {
      const o = objects.get(k)!;
      return `<Contents><Key>${xmlEscape(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>${xmlEscape(o.etag)}</ETag><Size>${o.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    }).join('');
    const next = truncated ? `<NextContinuationToken>${Buffer.from(page[page.length - 1]).toString('base64url')}</NextContinuationToken>` : '';
    const echoed = token ? `<ContinuationToken>${xmlEscape(token)}</ContinuationToken>` : '';
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${echoed}${next}${contents}</ListBucketResult>`);
  }
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_OBJECT_BYTES) throw new S3Error(400, 'EntityTooLarge', `The local S3 takes objects up to ${MAX_OBJECT_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The local S3 on its own loopback port (port 0: a free one), for tests that need S3 without the whole edge. */
export async function startLocalS3(buckets: Record<string, LocalS3Bucket>, port = 0): Promise<{ url: string; s3: LocalS3; connections(): number; close(): Promise<void> }> {
  const s3 = new LocalS3(buckets);
  const server = createServer((req, res) => void s3.handle(req, res));
  server.keepAliveTimeout = LOCAL_KEEP_ALIVE_MS;
  let connections = 0;
  server.on('connection', () => { connections += 1; });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: actual } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${actual}`,
    s3,
    /** TCP connections opened so far (a client kept for many calls opens one). */
    connections: () => connections,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}
