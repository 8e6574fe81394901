/** The gateway's vendor settlement eligibility PUT over HTTP: validation, timeouts, retries, throttling, attempt log. */
import { DateTime } from 'luxon';
import type { Attempt, GatewayAnswer } from '../../domain/types';
import { formatInstant, GATEWAY_ZONE, parseGatewayDate } from '../../domain/dates';
import { ID_PATTERN } from '../../domain/order-events';
import type { EligibilityGateway, GatewayCallResult } from '../../application/ports';
import { realSleep, SendRateLimiter, type Sleep } from './send-rate-limiter';

export interface HttpEligibilityGatewayOptions {
  /** `{vendor_base_url}` of the interface, e.g. "https://api.example.com" (no trailing path). */
  vendorBaseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Per request, body included. Default 5,000 ms. */
  timeoutMs?: number;
  /** Tries within one call for retryable answers (429, 5xx, timeout, network). Default 4. */
  maxTries?: number;
  /** Client-side limit of sends per sliding minute, shared by all calls of this instance. Default 600. */
  ratePerMinute?: number;
  /** How long one call may wait in all (for the rate limit and between tries). Default 20,000 ms. */
  maxWaitMs?: number;
  /** Full-jitter exponential backoff between tries. Defaults 200 ms and 5,000 ms. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Stamps attempts (the shared clock locally); waiting and timeouts always use real time. */
  now?: () => DateTime;
  /** Sleep between tries; tests may record the delays. */
  sleep?: Sleep;
  random?: () => number;
}

const MAX_MESSAGE_CHARS = 500;
const REDACTED = '[redacted]';

/** Shared with the order lookup: ids that go into a gateway URL. */
export function requireId(field: 'orderId' | 'vendorId', value: string): void {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    const shown = typeof value === 'string' ? `"${value.slice(0, 60)}"` : typeof value;
    throw new Error(`${field}: ${shown} is not a valid id; send 3 to 45 characters of A-Z, a-z, 0-9, "_" or "-"`);
  }
}

export function positiveInteger(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${field}: ${value} is not a positive integer; send e.g. 5000`);
  return value;
}

function isInCallRetryable(answer: GatewayAnswer): boolean {
  if (answer.kind === 'timeout' || answer.kind === 'network') return true;
  return answer.kind === 'response' && (answer.httpStatus === 429 || answer.httpStatus >= 500);
}

export class HttpEligibilityGateway implements EligibilityGateway {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly maxTries: number;
  private readonly maxWaitMs: number;
  private readonly backoffBaseMs: number;
  private readonly backoffCapMs: number;
  private readonly limiter: SendRateLimiter;
  private readonly now: () => DateTime;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  // ES private fields: neither JSON.stringify nor util.inspect shows them, so logging the client cannot leak them.
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];

  constructor(options: HttpEligibilityGatewayOptions) {
    let url: URL;
    try {
      url = new URL(options.vendorBaseUrl);
    } catch {
      throw new Error(`vendorBaseUrl: "${options.vendorBaseUrl}" is not a URL; send e.g. "https://api.example.com"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`vendorBaseUrl: protocol ${url.protocol} is not supported; send an http(s) URL`);
    }
    if (!options.clientId) throw new Error('clientId: missing; send the gateway client id');
    if (!options.clientSecret) throw new Error('clientSecret: missing; send the gateway client secret');
    this.baseUrl = options.vendorBaseUrl.replace(/\/+$/, '');
    this.timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 5_000);
    this.maxTries = positiveInteger('maxTries', options.maxTries ?? 4);
    this.maxWaitMs = options.maxWaitMs ?? 20_000;
    if (!(this.maxWaitMs >= 0)) throw new Error(`maxWaitMs: ${options.maxWaitMs} is negative; send 0 or more`);
    this.backoffBaseMs = options.backoffBaseMs ?? 200;
    this.backoffCapMs = options.backoffCapMs ?? 5_000;
    this.limiter = new SendRateLimiter(options.ratePerMinute ?? 600);
    this.now = options.now ?? (() => DateTime.now());
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.#headers = {
      'X-Client-Id': options.clientId,
      'X-Client-Secret': options.clientSecret,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    };
    this.#secrets = [options.clientSecret, options.clientId];
  }

  async updateEligibility(orderId: string, vendorId: string, eligibility: string): Promise<GatewayCallResult> {
    requireId('orderId', orderId);
    requireId('vendorId', vendorId);
    if (parseGatewayDate(eligibility) === null) {
      throw new Error(`eligibility: "${String(eligibility).slice(0, 60)}" is not a gateway date; send "YYYY-MM-DD HH:MM:SS" in India time`);
    }
    const url = `${this.baseUrl}/api/v2/easy-split/orders/${encodeURIComponent(orderId)}`
      + `/settlement-eligibility/vendors/${encodeURIComponent(vendorId)}`;
    const deadline = Date.now() + this.maxWaitMs;
    const attempts: Attempt[] = [];
    for (let tryNumber = 1; ; tryNumber++) {
      const slot = await this.limiter.acquire(deadline);
      if (!slot.ok) {
        // Nothing is sent, so no attempt is recorded: our own throttle must not count against the release's sends.
        return { attempts, final: { kind: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil(slot.waitMs / 1000)) } };
      }
      const at = formatInstant(this.now(), GATEWAY_ZONE);
      const answer = await this.send(url, eligibility);
      attempts.push(this.attemptOf(at, eligibility, answer));
      if (!isInCallRetryable(answer) || tryNumber >= this.maxTries) return { attempts, final: answer };
      const delayMs = this.backoffMs(tryNumber, answer);
      // Waiting past the caller's patience would only delay the answer; the release is re-driven later instead.
      if (Date.now() + delayMs > deadline) return { attempts, final: answer };
      await this.sleep(delayMs);
    }
  }

  /** Full jitter (a random delay up to the exponential ceiling), and at least what a 429 asked for. */
  private backoffMs(tryNumber: number, answer: GatewayAnswer): number {
    const ceiling = Math.min(this.backoffCapMs, this.backoffBaseMs * 2 ** (tryNumber - 1));
    const jitter = Math.floor(this.random() * ceiling);
    const asked = answer.kind === 'response' && answer.retryAfterSeconds ? answer.retryAfterSeconds * 1000 : 0;
    return Math.max(jitter, asked);
  }

  private async send(url: string, eligibility: string): Promise<GatewayAnswer> {
    try {
      const response = await fetch(url, {
        method: 'PUT',
        headers: this.#headers,
        body: JSON.stringify({ settlementEligibilityDateUpdate: eligibility }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The body decides even on a non-2xx status: whether the HTTP status mirrors subCode is undocumented.
      const text = await response.text();
      return this.responseAnswer(response, text);
    } catch (error) {
      return this.transportAnswer(error);
    }
  }

  private responseAnswer(response: Response, text: string): GatewayAnswer {
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = null;
    }
    const field = (name: string): string | null => {
      const value = body?.[name];
      return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
    };
    const message = field('message') ?? (body ? '' : `unreadable answer: ${text}`);
    const retryHeader = Number(response.headers.get('x-ratelimit-retry'));
    return {
      kind: 'response',
      httpStatus: response.status,
      status: field('status') ?? (response.status === 429 ? 'RATE_LIMITED' : 'ERROR'),
      subCode: field('subCode') ?? String(response.status),
      message: this.scrub(message),
      ...(response.status === 429 && Number.isFinite(retryHeader) && retryHeader > 0 ? { retryAfterSeconds: retryHeader } : {}),
    };
  }

  private transportAnswer(error: unknown): GatewayAnswer {
    // Duck-typed: fetch's errors may come from another realm (e.g. under jest), where instanceof Error fails.
    const failure = (error ?? {}) as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
      return { kind: 'timeout', message: `no answer within ${this.timeoutMs} ms` };
    }
    const cause = failure.cause;
    const detail = cause && (cause.code || cause.message)
      ? [cause.code, cause.message].filter(Boolean).join(': ')
      : failure.message ?? String(error);
    return { kind: 'network', message: this.scrub(detail || 'network error') };
  }

  private attemptOf(at: string, request: string, answer: GatewayAnswer): Attempt {
    switch (answer.kind) {
      case 'response':
        return { at, request, httpStatus: answer.httpStatus, status: answer.status, subCode: answer.subCode, message: answer.message };
      case 'timeout':
        return { at, request, httpStatus: null, status: 'TIMEOUT', subCode: null, message: answer.message };
      case 'network':
        return { at, request, httpStatus: null, status: 'NETWORK', subCode: null, message: answer.message };
      case 'throttled':
        return { at, request, httpStatus: null, status: 'RATE_LIMITED', subCode: null, message: 'throttled by the client' };
    }
  }

  /** Credentials never leave the client, even if a server or an error echoes them. */
  private scrub(text: string): string {
    let clean = text;
    for (const secret of this.#secrets) clean = clean.split(secret).join(REDACTED);
    return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS)}...` : clean;
  }
}
