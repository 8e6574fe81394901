/**
 * One signed AWS request without an SDK client: what the S3 and KMS adapters send (s3/s3-requests.ts,
 * kms/kms-requests.ts). The export-jobs and apiAudit functions call a handful of operations of each service
 * (PutObject, GetObject, ListObjectsV2, a multipart upload, a pre-signed GET; KMS's GetPublicKey, DescribeKey, Sign),
 * and the SDK's S3 and KMS clients brought about 190 KB of code each function loaded at every cold start for them
 * (the client, its endpoint rules, checksums, XML and storage packages). The signing is the SDK's own: the same
 * SigV4 signer every SDK client uses (@smithy/signature-v4, in every bundle already), with the credentials the SDK's
 * default chain finds (in Lambda, the environment's: functions/composition/lambda-credentials.ts). The request goes
 * out over node's own http(s) with keep-alive, retried as the SDK's standard mode retries (throttling, 5xx and
 * connection errors, `AWS_MAX_ATTEMPTS` tries, 3 by default, with full-jitter backoff).
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { SignatureV4 } from '@smithy/signature-v4';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { backoffDelayMs } from '../../../kit/backoff';

export interface AwsCredentials { accessKeyId: string; secretAccessKey: string; sessionToken?: string }

/** Where and as whom a service is called (the function's configuration: functions/composition/compose.ts). */
export interface AwsTarget {
  region: string;
  /** An endpoint of its own (the local edge); else `AWS_ENDPOINT_URL_<SERVICE>` or `AWS_ENDPOINT_URL` as the SDK reads them, else AWS's regional endpoint. */
  endpoint?: string;
  /** Fixed credentials (the embedded default's placeholders); the SDK's default chain when absent. */
  credentials?: AwsCredentials;
}

/** A request to sign and send: `path` already percent-encoded as it goes on the wire, `query` unencoded. */
export interface AwsRequest {
  method: string;
  url: URL;
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface AwsAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  /** The body, unread: `text()` reads it whole; a GetObject streams it. */
  stream: Readable;
}

/** A signed request as it goes on the wire: `target` the path with its query string, `headers` as signed. */
export interface SignedWireRequest {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Another way than HTTP to a service's endpoint (the embedded default's Lambda containers reach the local edge over a
 * MessagePort, local/lambda/edge-channel.ts): given each signed request to an origin it `carries`, it answers as the
 * endpoint's HTTP server would. Production sets none.
 */
export interface SignedTransport {
  carries(url: URL): boolean;
  send(request: SignedWireRequest): Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
}

/**
 * An error answer, with the status where the SDK's errors keep it (`$metadata.httpStatusCode`) and the service's code as
 * its name. Its message names the call (`KMS Sign: NotFoundException: ...`), or is the service's own, as the SDK's
 * error carries it, where the caller asked for the SDK's messages (`SignedOptions.sdkMessages`).
 */
export class AwsServiceError extends Error {
  readonly $metadata: { httpStatusCode: number };
  constructor(readonly code: string, message: string, status: number) {
    super(message);
    this.name = code;
    this.$metadata = { httpStatusCode: status };
  }
}

const bytesOf = (data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

/** node:crypto's SHA-256 (and HMAC) in the shape the signer takes, as the SDK's node runtime gives it (@smithy/hash-node). */
class NodeSha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }

  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}

/** Statuses the SDK's standard retry mode tries again (throttling and the server's transient errors). */
const RETRIED_STATUS = new Set([429, 500, 502, 503, 504]);
/**
 * Error codes the SDK's standard retry mode treats as throttling whatever their status (EventBridge, KMS and SQS
 * answer a throttled call 400 with one of these: @smithy/core's THROTTLING_ERROR_CODES).
 */
const THROTTLING_CODES = new Set([
  'BandwidthLimitExceeded', 'EC2ThrottledException', 'LimitExceededException', 'PriorRequestNotComplete', 'ProvisionedThroughputExceededException',
  'RequestLimitExceeded', 'RequestThrottled', 'RequestThrottledException', 'SlowDown', 'ThrottledException', 'Throttling', 'ThrottlingException',
  'TooManyRequestsException', 'TransactionInProgressException',
]);
/** The SDK's standard mode: a base of 100 ms doubling to at most 20 s, full jitter. */
const RETRY_BACKOFF = { firstMs: 100, capMs: 20_000, jitter: 1 };
/** A request that sends or answers nothing for this long is dropped and tried again. */
const SOCKET_IDLE_MS = 60_000;

export const readAll = async (stream: AsyncIterable<Buffer | Uint8Array>): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
};

/** How a service is reached and answers beyond its signing name and host. */
export interface SignedOptions {
  /** The variable the SDK reads the service's own endpoint from, when it is not `AWS_ENDPOINT_URL_<SIGNING NAME>` (EventBridge's signing name is "events"). */
  endpointEnv?: string;
  /** Errors carry the service's message as the SDK's errors do (callers that read it, or show it, as they did with the SDK's client). */
  sdkMessages?: boolean;
}

export class SignedRequests {
  readonly signer: SignatureV4;
  readonly base: URL;
  /** Whether `base` is an endpoint of its own rather than AWS's (S3 then addresses buckets path-style). */
  readonly ownEndpoint: boolean;
  /** Kept connections, one pool per protocol (an SQS queue URL names its own host, whatever the base's protocol). */
  private readonly agents: { 'http:'?: HttpAgent; 'https:'?: HttpsAgent } = {};
  private readonly maxAttempts: number;
  /** Where set (a client hook sets it, as one sets an SDK client's request handler), what carries the requests it takes instead of HTTP. */
  transport: SignedTransport | null = null;

  /**
   * `service`: the signing name ("s3", "kms"); `host`: AWS's regional host of the service (`s3.ap-south-1.amazonaws.com`).
   * S3 signs its path as sent (uriEscapePath false), as the SDK's S3 client does; every other service escapes it.
   */
  constructor(readonly service: string, target: AwsTarget, host: string, private readonly options: SignedOptions = {}) {
    // As the SDK reads them: the service's own variable, else the one for every service.
    const endpoint = target.endpoint ?? (process.env[options.endpointEnv ?? `AWS_ENDPOINT_URL_${service.toUpperCase()}`] || process.env.AWS_ENDPOINT_URL)?.trim();
    this.ownEndpoint = Boolean(endpoint);
    this.base = new URL(endpoint || `https://${host}`);
    this.signer = new SignatureV4({
      service, region: target.region, sha256: NodeSha256, uriEscapePath: service !== 's3', applyChecksum: true,
      credentials: target.credentials ?? defaultProvider(),
    });
    const attempts = Number(process.env.AWS_MAX_ATTEMPTS);
    this.maxAttempts = Number.isSafeInteger(attempts) && attempts >= 1 ? attempts : 3;
  }

  /** Signs and sends `request`, again after a throttling, a 5xx or a dropped connection; any other answer is returned as it came. */
  async send(request: AwsRequest): Promise<AwsAnswer> {
    return this.retrying(async (last) => {
      const answer = await this.once(request);
      if (last || !RETRIED_STATUS.has(answer.status)) return answer;
      await readAll(answer.stream);
      throw new AwsServiceError('Retried', `${this.service} ${request.method} ${request.path}: answered ${answer.status}`, answer.status);
    });
  }

  /**
   * `attempt` until it answers, at most `AWS_MAX_ATTEMPTS` times, with the standard mode's backoff between: again after
   * a dropped connection, a status the standard mode retries, or a throttling code (`last`: no try follows this one).
   * The one loop of every call, so that no answer is retried twice over.
   */
  private async retrying<T>(attempt: (last: boolean) => Promise<T>): Promise<T> {
    for (let n = 1; ; n += 1) {
      try {
        return await attempt(n >= this.maxAttempts);
      } catch (error) {
        const again = !(error instanceof AwsServiceError) || THROTTLING_CODES.has(error.code) || RETRIED_STATUS.has(error.$metadata.httpStatusCode);
        if (!again || n >= this.maxAttempts) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, backoffDelayMs(n, RETRY_BACKOFF)));
    }
  }

  /**
   * One operation of an AWS JSON protocol (1.0: SQS; 1.1: KMS): a POST to `url`'s path with `X-Amz-Target`, its input
   * as JSON, its output parsed. An error answer throws, named by the service's `__type` (which may carry a namespace,
   * `com.amazonaws.kms#NotFoundException`, or a suffix after `:`); a success whose body is not JSON throws too.
   * `what` names the call in errors ("KMS Sign").
   */
  async json<T>(what: string, url: URL, protocol: '1.0' | '1.1', target: string, input: unknown, headers: Record<string, string> = {}): Promise<T> {
    return this.parsedAnswer<T>(what, {
      method: 'POST', url, path: url.pathname || '/',
      headers: { 'content-type': `application/x-amz-json-${protocol}`, 'x-amz-target': target, ...headers },
      body: Buffer.from(JSON.stringify(input)),
    });
  }

  /**
   * One operation of a REST-JSON protocol (Scheduler): `method` on `path` (already percent-encoded) with `query`, its
   * input (if any) as the JSON body. Errors as `json`'s, the code from `x-amzn-errortype`, the body's `code` or `__type`.
   */
  async restJson<T>(what: string, method: string, path: string, query: Record<string, string>, input?: unknown): Promise<T> {
    const body = input === undefined ? undefined : Buffer.from(JSON.stringify(input));
    return this.parsedAnswer<T>(what, { method, url: this.base, path, query, ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}) });
  }

  /** `request` sent and its answer parsed, in `retrying`'s one loop: a throttling code is tried again as a 429 is. */
  private parsedAnswer<T>(what: string, request: AwsRequest): Promise<T> {
    return this.retrying(async () => this.parsed<T>(what, await this.once(request)));
  }

  /** An answer read whole and parsed; an error answer throws, named by its code; a success whose body is not JSON throws too. */
  private async parsed<T>(what: string, answer: AwsAnswer): Promise<T> {
    const text = (await readAll(answer.stream)).toString('utf8');
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? JSON.parse(text) as Record<string, unknown> : {};
    } catch {
      if (answer.status < 300) throw new AwsServiceError('UnreadableAnswer', `${what}: the answer is not JSON: ${text.slice(0, 200)}`, answer.status);
    }
    if (answer.status >= 300) {
      const code = String(answer.headers['x-amzn-errortype'] ?? parsed.code ?? parsed.__type ?? `Http${answer.status}`).split(',')[0].split(':')[0].split('#').pop()!;
      const message = String(parsed.message ?? parsed.Message ?? `answered ${answer.status}`);
      throw new AwsServiceError(code, this.options.sdkMessages ? message : `${what}: ${code}: ${message}`, answer.status);
    }
    return parsed as T;
  }

  private async once(request: AwsRequest): Promise<AwsAnswer> {
    const { url } = request;
    const body = request.body ?? Buffer.alloc(0);
    const signed = await this.signer.sign({
      method: request.method, protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined,
      path: request.path, query: request.query ?? {},
      headers: { ...request.headers, host: url.host, 'content-length': String(body.length) },
      body,
    });
    const search = new URLSearchParams(request.query ?? {}).toString().replace(/\+/g, '%20');
    const target = search ? `${request.path}?${search}` : request.path;
    if (this.transport?.carries(url)) {
      const answer = await this.transport.send({ method: request.method, target, headers: signed.headers, body });
      return { status: answer.status, headers: answer.headers, stream: Readable.from([answer.body]) };
    }
    const plain = url.protocol === 'http:';
    const send = plain ? httpRequest : httpsRequest;
    const agent = plain ? (this.agents['http:'] ??= new HttpAgent({ keepAlive: true })) : (this.agents['https:'] ??= new HttpsAgent({ keepAlive: true }));
    return new Promise<AwsAnswer>((resolve, reject) => {
      const outgoing = send({
        host: url.hostname, port: url.port || undefined, method: request.method, path: target,
        headers: signed.headers, agent,
      }, (incoming) => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, stream: incoming }));
      outgoing.setTimeout(SOCKET_IDLE_MS, () => outgoing.destroy(new Error(`${this.service} ${request.method} ${request.path}: no answer in ${SOCKET_IDLE_MS / 1000} s`)));
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}
