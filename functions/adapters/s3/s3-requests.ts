/**
 * The S3 operations Holdback calls, as S3's REST API takes them (the wire format the SDK's S3 client sends, signed by
 * the same SigV4 signer: aws-http/signed-request.ts says why there is no SDK client here): PutObject (conditional,
 * with a SHA-256 checksum), GetObject, ListObjectsV2, a multipart upload (create, part, complete, abort) and a
 * pre-signed GET. Buckets are addressed virtual-hosted on AWS (`<bucket>.s3.<region>.amazonaws.com`), path-style on an
 * endpoint of its own (the local edge), as the SDK's client does for a loopback address.
 */
import { createHash } from 'node:crypto';
import { AwsServiceError, SignedRequests, readAll, type AwsAnswer, type AwsTarget } from '../aws-http/signed-request';

/** RFC 3986 percent-encoding: every byte but the unreserved characters (the SDK's escapeUri). */
const escapeUri = (text: string): string => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
/** A key in a path: each segment escaped, its `/` kept (the SDK's extendedEncodeURIComponent of a greedy label). */
const encodeKey = (key: string): string => key.split('/').map(escapeUri).join('/');

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (text: string): string => text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, name: string) => {
  if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
  if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
  return XML_ENTITIES[name] ?? whole;
});
const escapeXml = (text: string): string => text.replace(/[<>&'"]/g, (c) => `&${Object.keys(XML_ENTITIES).find((name) => XML_ENTITIES[name] === c)};`);

/** Every text of `<tag>` elements in an S3 XML answer (S3's answers put no attributes and no nesting inside these). */
export const xmlTexts = (xml: string, tag: string): string[] => [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => unescapeXml(m[1]));

/** An S3 error answer (XML `<Error><Code>…`) as an error named by its code, with its status. */
async function failure(answer: AwsAnswer, what: string, text?: string): Promise<AwsServiceError> {
  const xml = text ?? (await readAll(answer.stream)).toString('utf8');
  const code = xmlTexts(xml, 'Code')[0] ?? `Http${answer.status}`;
  const message = xmlTexts(xml, 'Message')[0] ?? `S3 answered ${answer.status}`;
  return new AwsServiceError(code, `S3 ${what}: ${code}: ${message}`, answer.status);
}

export interface S3ObjectList { keys: string[]; truncated: boolean }

export class S3Requests {
  private readonly http: SignedRequests;

  constructor(private readonly target: AwsTarget) {
    this.http = new SignedRequests('s3', target, `s3.${target.region}.amazonaws.com`);
  }

  /** The object's URL (host and encoded path). */
  private address(bucket: string, key: string): { url: URL; path: string } {
    const base = this.http.base;
    if (this.http.ownEndpoint) return { url: base, path: `${base.pathname.replace(/\/+$/, '')}/${encodeKey(bucket)}/${encodeKey(key)}` };
    return { url: new URL(`${base.protocol}//${bucket}.${base.host}`), path: `/${encodeKey(key)}` };
  }

  private async call(method: string, bucket: string, key: string, what: string, options: { query?: Record<string, string>; headers?: Record<string, string>; body?: Buffer } = {}): Promise<AwsAnswer> {
    const answer = await this.http.send({ method, ...this.address(bucket, key), ...options });
    if (answer.status >= 300) throw await failure(answer, what);
    return answer;
  }

  /** PutObject; `ifNoneMatch` writes only a key not taken (412 PreconditionFailed otherwise). */
  async putObject(bucket: string, key: string, body: Buffer, options: { contentType?: string; ifNoneMatch?: boolean; sha256Checksum?: boolean } = {}): Promise<void> {
    const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/octet-stream' };
    if (options.ifNoneMatch) headers['if-none-match'] = '*';
    if (options.sha256Checksum) headers['x-amz-checksum-sha256'] = createHash('sha256').update(body).digest('base64');
    await readAll((await this.call('PUT', bucket, key, `PutObject ${key}`, { headers, body })).stream);
  }

  /** GetObject: the body as it streams in. */
  async getObject(bucket: string, key: string): Promise<AsyncIterable<Buffer>> {
    return (await this.call('GET', bucket, key, `GetObject ${key}`)).stream;
  }

  async getObjectText(bucket: string, key: string): Promise<string> {
    return (await readAll(await this.getObject(bucket, key))).toString('utf8');
  }

  /** ListObjectsV2: at most `maxKeys` keys under `prefix` after `startAfter`, in S3's (UTF-8 byte) order. */
  async listObjects(bucket: string, prefix: string, maxKeys: number, startAfter?: string): Promise<S3ObjectList> {
    const query: Record<string, string> = { 'list-type': '2', prefix, 'max-keys': String(maxKeys), ...(startAfter === undefined ? {} : { 'start-after': startAfter }) };
    const answer = await this.call('GET', bucket, '', `ListObjectsV2 ${prefix}`, { query });
    const xml = (await readAll(answer.stream)).toString('utf8');
    return { keys: xmlTexts(xml, 'Key'), truncated: xmlTexts(xml, 'IsTruncated')[0] === 'true' };
  }

  /** CreateMultipartUpload: the upload's id. */
  async createMultipartUpload(bucket: string, key: string, contentType: string): Promise<string> {
    const answer = await this.call('POST', bucket, key, `CreateMultipartUpload ${key}`, { query: { uploads: '' }, headers: { 'content-type': contentType } });
    const uploadId = xmlTexts((await readAll(answer.stream)).toString('utf8'), 'UploadId')[0];
    if (!uploadId) throw new AwsServiceError('NoUploadId', `S3 CreateMultipartUpload ${key}: the answer named no UploadId`, answer.status);
    return uploadId;
  }

  /** UploadPart (numbered from 1): the part's ETag, which CompleteMultipartUpload names. */
  async uploadPart(bucket: string, key: string, uploadId: string, partNumber: number, body: Buffer): Promise<string> {
    const answer = await this.call('PUT', bucket, key, `UploadPart ${key} #${partNumber}`, { query: { partNumber: String(partNumber), uploadId }, headers: { 'content-type': 'application/octet-stream' }, body });
    await readAll(answer.stream);
    const etag = answer.headers.etag;
    if (typeof etag !== 'string') throw new AwsServiceError('NoETag', `S3 UploadPart ${key} #${partNumber}: the answer had no ETag`, answer.status);
    return etag;
  }

  /** CompleteMultipartUpload; S3 may answer 200 with an error in the body (a failure after it started answering). */
  async completeMultipartUpload(bucket: string, key: string, uploadId: string, etags: readonly string[]): Promise<void> {
    const parts = etags.map((etag, i) => `<Part><ETag>${escapeXml(etag)}</ETag><PartNumber>${i + 1}</PartNumber></Part>`).join('');
    const body = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts}</CompleteMultipartUpload>`);
    const answer = await this.call('POST', bucket, key, `CompleteMultipartUpload ${key}`, { query: { uploadId }, headers: { 'content-type': 'application/xml' }, body });
    const xml = (await readAll(answer.stream)).toString('utf8');
    if (/<Error>/.test(xml)) throw await failure(answer, `CompleteMultipartUpload ${key}`, xml);
  }

  async abortMultipartUpload(bucket: string, key: string, uploadId: string): Promise<void> {
    await readAll((await this.call('DELETE', bucket, key, `AbortMultipartUpload ${key}`, { query: { uploadId } })).stream);
  }

  /**
   * A pre-signed GetObject URL, valid `expiresIn` seconds from `signingDate`, as @aws-sdk/s3-request-presigner makes
   * it for the SDK's client: the payload unsigned, the host the only signed header, the query's response overrides and
   * the client's checksum mode signed, the query in sorted order.
   */
  async presignGetObject(bucket: string, key: string, expiresIn: number, query: Record<string, string> = {}, signingDate = new Date()): Promise<string> {
    const { url, path } = this.address(bucket, key);
    const presigned = await this.http.signer.presign({
      method: 'GET', protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path,
      query: { ...query, 'x-amz-checksum-mode': 'ENABLED', 'x-id': 'GetObject' }, headers: { host: url.host, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
    }, { expiresIn, signingDate, unsignableHeaders: new Set(['content-type']) });
    const signed = presigned.query ?? {};
    const search = Object.keys(signed).sort().map((name) => `${escapeUri(name)}=${escapeUri(String(signed[name]))}`).join('&');
    return `${url.protocol}//${url.host}${path}?${search}`;
  }

  get region(): string {
    return this.target.region;
  }
}
