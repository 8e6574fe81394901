/** One HTTP transport for every gateway client: base URL, credentials, timeout, jittered retries, secret scrubbing. */
import { backoffDelayMs } from '../../../kit/backoff';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { fixedCredentials, SecretScrubber, type GatewayCredentialSource } from '../secrets/gateway-credentials';
import { realSleep, type Sleep } from './send-rate-limiter';

/** What every gateway client accepts besides its base URL; a client documents its own defaults. */
export interface GatewayClientOptions {
  /** Fixed credentials (the embedded default, tests); `credentials` wins when given. */
  clientId?: string;
  clientSecret?: string;
  /** Credentials fetched at run time for each call (Secrets Manager on AWS, cached by the source). */
  credentials?: GatewayCredentialSource;
  /** Learns every credential value, so that logs can scrub them too. */
  scrubber?: SecretScrubber;
  /** Per request, body included. Default 5,000 ms. */
  timeoutMs?: number;
  /** Tries within one call for retryable answers (429, 5xx, timeout, network). */
  maxTries?: number;
  /** How long one call may wait in all (between tries, and for whatever else the client waits on). */
  maxWaitMs?: number;
  /** Full-jitter exponential backoff between tries. Base default 200 ms. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Sleep between tries; tests may record the delays. */
  sleep?: Sleep;
  random?: () => number;
}

/** What a client fixes for its endpoint: where it points, what it sends, and its retry budget's defaults. */
export interface GatewayEndpoint {
  /** The base URL, the option's name in errors (e.g. "vendorBaseUrl") and an example value to suggest. */
  baseUrl: string;
  baseUrlField: string;
  baseUrlExample: string;
  /** Sent with every request besides the credentials (content type, API version). */
  headers: Record<string, string>;
  /** Gateway text kept in a message, after scrubbing. */
  maxMessageChars: number;
  defaults: { maxTries: number; maxWaitMs: number; backoffCapMs: number };
}

/** What one try got: the gateway's answer (status, raw text, the body if it is a JSON object), or no answer. */
export type GatewayExchange =
  | {
    kind: 'response';
    status: number;
    text: string;
    body: Record<string, unknown> | null;
    /** The gateway's `x-ratelimit-retry` when positive: seconds to wait before asking again. */
    retryAfterSeconds?: number;
  }
  | { kind: 'timeout'; message: string }
  | { kind: 'network'; message: string };

const REDACTED = '[redacted]';

export function positiveInteger(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${field}: ${value} is not a positive integer; send e.g. 5000`);
  return value;
}

export class GatewayTransport {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly maxTries: number;
  private readonly maxWaitMs: number;
  private readonly backoffBaseMs: number;
  private readonly backoffCapMs: number;
  private readonly maxMessageChars: number;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  /** Connections kept open between calls, as a warm Lambda container reuses them (no TLS handshake per PUT). */
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;
  // ES private fields: neither JSON.stringify nor util.inspect shows them, so logging a client cannot leak them.
  readonly #headers: Record<string, string>;
  readonly #credentials: GatewayCredentialSource;
  readonly #scrubber: SecretScrubber;

  constructor(options: GatewayClientOptions, endpoint: GatewayEndpoint) {
    const { baseUrlField: field, baseUrl } = endpoint;
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new Error(`${field}: "${baseUrl}" is not a URL; send e.g. "${endpoint.baseUrlExample}"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`${field}: protocol ${url.protocol} is not supported; send an http(s) URL`);
    }
    this.#scrubber = options.scrubber ?? new SecretScrubber();
    if (options.credentials) {
      this.#credentials = options.credentials;
    } else {
      if (!options.clientId) throw new Error('clientId: missing; send the gateway client id');
      if (!options.clientSecret) throw new Error('clientSecret: missing; send the gateway client secret');
      this.#credentials = fixedCredentials({ clientId: options.clientId, clientSecret: options.clientSecret }, this.#scrubber);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 5_000);
    this.maxTries = positiveInteger('maxTries', options.maxTries ?? endpoint.defaults.maxTries);
    this.maxWaitMs = options.maxWaitMs ?? endpoint.defaults.maxWaitMs;
    if (!(this.maxWaitMs >= 0)) throw new Error(`maxWaitMs: ${options.maxWaitMs} is negative; send 0 or more`);
    this.backoffBaseMs = options.backoffBaseMs ?? 200;
    this.backoffCapMs = options.backoffCapMs ?? endpoint.defaults.backoffCapMs;
    this.maxMessageChars = endpoint.maxMessageChars;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    const https = url.protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
    this.request = https ? httpsRequest : httpRequest;
    this.#headers = endpoint.headers;
  }

  /** The absolute URL of a path below the base; the caller has validated and encoded every id in it. */
  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /**
   * Calls `tryOnce` until an outcome is final (`retryAfterSeconds` answers null), `maxTries` is reached, or the next
   * wait would pass the call's deadline (waiting past the caller's patience would only delay the answer; the caller
   * re-drives later instead). `retryAfterSeconds` answers how long the gateway asked to wait (0 when it did not).
   */
  async withRetries<T>(
    tryOnce: (deadlineMs: number) => Promise<T>,
    retryAfterSeconds: (outcome: T) => number | null,
  ): Promise<{ outcome: T; tries: number }> {
    const deadline = Date.now() + this.maxWaitMs;
    for (let tries = 1; ; tries++) {
      const outcome = await tryOnce(deadline);
      const asked = retryAfterSeconds(outcome);
      if (asked === null || tries >= this.maxTries) return { outcome, tries };
      const delayMs = this.backoffMs(tries, asked);
      if (Date.now() + delayMs > deadline) return { outcome, tries };
      await this.sleep(delayMs);
    }
  }

  /**
   * One request with the credentials and the timeout (for the whole exchange, body included); never throws for what
   * the network or the gateway does. Node's own HTTP client rather than fetch, whose undici machinery stood out in the
   * end-to-end profile (about a tenth of a handler thread's CPU).
   */
  async exchange(method: 'GET' | 'PUT', url: string, body?: unknown): Promise<GatewayExchange> {
    let credentials;
    try {
      credentials = await this.#credentials();
    } catch (error) {
      // No credentials, no request: answered like a fault of the network, so the release is retried, not failed.
      return this.transportFailure(error);
    }
    this.#scrubber.remember(credentials.clientSecret, credentials.clientId);
    return new Promise((resolve) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = {
        ...this.#headers, 'x-client-id': credentials.clientId, 'x-client-secret': credentials.clientSecret,
        ...(payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(payload)) }),
      };
      let timedOut = false;
      const fail = (error: unknown): void => {
        clearTimeout(timer);
        resolve(timedOut ? { kind: 'timeout', message: `no answer within ${this.timeoutMs} ms` } : this.transportFailure(error));
      };
      const answered = (response: IncomingMessage): void => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          const retry = Number(response.headers['x-ratelimit-retry']);
          resolve({
            kind: 'response',
            status: response.statusCode ?? 0,
            text,
            body: objectOf(text),
            ...(Number.isFinite(retry) && retry > 0 ? { retryAfterSeconds: retry } : {}),
          });
        });
      };
      let sent: ReturnType<typeof httpRequest>;
      try {
        sent = this.request(url, { method, headers, agent: this.agent }, answered);
      } catch (error) {
        resolve(this.transportFailure(error));
        return;
      }
      const timer = setTimeout(() => {
        timedOut = true;
        sent.destroy(new Error('timeout'));
      }, this.timeoutMs);
      sent.on('error', fail);
      sent.end(payload);
    });
  }

  /** Credentials never leave the client, even if a server or an error echoes them; long gateway text is cut. */
  scrub(text: string): string {
    const clean = this.#scrubber.scrub(text, REDACTED);
    return clean.length > this.maxMessageChars ? `${clean.slice(0, this.maxMessageChars)}...` : clean;
  }

  /** Full jitter (a random delay up to the exponential ceiling), and at least what a 429 asked for. */
  private backoffMs(tryNumber: number, askedSeconds: number): number {
    const jittered = backoffDelayMs(tryNumber, { firstMs: this.backoffBaseMs, capMs: this.backoffCapMs, jitter: 1 }, this.random);
    return Math.max(jittered, askedSeconds * 1000);
  }

  private transportFailure(error: unknown): GatewayExchange {
    // Duck-typed: errors may come from another realm (e.g. under jest), where instanceof Error fails.
    const failure = (error ?? {}) as { code?: string; message?: string };
    const detail = failure.code && !failure.message?.includes(failure.code)
      ? `${failure.code}: ${failure.message ?? ''}`
      : failure.message ?? String(error);
    return { kind: 'network', message: this.scrub(detail || 'network error') };
  }
}

function objectOf(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
