/** The gateway's order lookup over HTTP (`GET /pg/orders/{order_id}`): the split that a payment webhook does not carry. */
import type { GatewayOrder, GatewayOrderSplit, GatewayOrders } from '../../application/ports';
import { positiveInteger, requireId } from './http-eligibility-gateway';
import { realSleep, type Sleep } from './send-rate-limiter';

/** The PG API version whose order shape Holdback reads (`order_splits`, `order_amount`). */
export const PG_API_VERSION = '2022-09-01';

export interface HttpGatewayOrdersOptions {
  /** The PG API base, e.g. "https://api.example.com/pg" (the sandbox serves it at its root + "/pg"). */
  pgBaseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Per request, body included. Default 5,000 ms. */
  timeoutMs?: number;
  /** Tries for retryable answers (429, 5xx, timeout, network). Default 3. */
  maxTries?: number;
  /** How long one lookup may wait between tries in all; the gateway waits for the webhook's answer. Default 10,000 ms. */
  maxWaitMs?: number;
  /** Full-jitter exponential backoff between tries. Defaults 200 ms and 2,000 ms. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  sleep?: Sleep;
  random?: () => number;
}

/**
 * The gateway could not be asked (after the retries) or answered something unusable. Not caught by the webhook
 * receiver: the webhook is answered 5xx, and the gateway delivers it again later.
 */
export class GatewayOrderLookupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayOrderLookupError';
  }
}

type TryOutcome =
  | { kind: 'found'; order: GatewayOrder }
  | { kind: 'missing' }
  | { kind: 'retryable'; reason: string; retryAfterSeconds?: number }
  | { kind: 'failed'; reason: string };

const MAX_REASON_CHARS = 300;
const REDACTED = '[redacted]';

export class HttpGatewayOrders implements GatewayOrders {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly maxTries: number;
  private readonly maxWaitMs: number;
  private readonly backoffBaseMs: number;
  private readonly backoffCapMs: number;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  // ES private fields: neither JSON.stringify nor util.inspect shows them, so logging the client cannot leak them.
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];

  constructor(options: HttpGatewayOrdersOptions) {
    let url: URL;
    try {
      url = new URL(options.pgBaseUrl);
    } catch {
      throw new Error(`pgBaseUrl: "${options.pgBaseUrl}" is not a URL; send e.g. "https://api.example.com/pg"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`pgBaseUrl: protocol ${url.protocol} is not supported; send an http(s) URL`);
    }
    if (!options.clientId) throw new Error('clientId: missing; send the gateway client id');
    if (!options.clientSecret) throw new Error('clientSecret: missing; send the gateway client secret');
    this.baseUrl = options.pgBaseUrl.replace(/\/+$/, '');
    this.timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 5_000);
    this.maxTries = positiveInteger('maxTries', options.maxTries ?? 3);
    this.maxWaitMs = options.maxWaitMs ?? 10_000;
    if (!(this.maxWaitMs >= 0)) throw new Error(`maxWaitMs: ${options.maxWaitMs} is negative; send 0 or more`);
    this.backoffBaseMs = options.backoffBaseMs ?? 200;
    this.backoffCapMs = options.backoffCapMs ?? 2_000;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.#headers = {
      'x-client-id': options.clientId,
      'x-client-secret': options.clientSecret,
      'x-api-version': PG_API_VERSION,
      Accept: 'application/json',
    };
    this.#secrets = [options.clientSecret, options.clientId];
  }

  async fetchOrder(orderId: string): Promise<GatewayOrder | null> {
    requireId('orderId', orderId);
    const url = `${this.baseUrl}/orders/${encodeURIComponent(orderId)}`;
    const deadline = Date.now() + this.maxWaitMs;
    for (let tryNumber = 1; ; tryNumber++) {
      const outcome = await this.ask(url, orderId);
      if (outcome.kind === 'found') return outcome.order;
      if (outcome.kind === 'missing') return null;
      const gaveUp = `order ${orderId} could not be read from the gateway (${tryNumber} ${tryNumber === 1 ? 'try' : 'tries'})`;
      if (outcome.kind === 'failed' || tryNumber >= this.maxTries) throw new GatewayOrderLookupError(`${gaveUp}: ${outcome.reason}`);
      const delayMs = this.backoffMs(tryNumber, outcome.retryAfterSeconds);
      if (Date.now() + delayMs > deadline) throw new GatewayOrderLookupError(`${gaveUp}: ${outcome.reason}`);
      await this.sleep(delayMs);
    }
  }

  /** Full jitter (a random delay up to the exponential ceiling), and at least what a 429 asked for. */
  private backoffMs(tryNumber: number, retryAfterSeconds = 0): number {
    const ceiling = Math.min(this.backoffCapMs, this.backoffBaseMs * 2 ** (tryNumber - 1));
    return Math.max(Math.floor(this.random() * ceiling), retryAfterSeconds * 1000);
  }

  private async ask(url: string, orderId: string): Promise<TryOutcome> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method: 'GET', headers: this.#headers, signal: AbortSignal.timeout(this.timeoutMs) });
      text = await response.text();
    } catch (error) {
      return { kind: 'retryable', reason: this.transportReason(error) };
    }
    const body = objectOf(text);
    if (response.ok) {
      if (!body) return { kind: 'failed', reason: `HTTP ${response.status} with a body that is not a JSON object` };
      return this.orderOf(body, orderId);
    }
    const said = `HTTP ${response.status} ${this.scrub(textOf(body?.code) ?? '')}: ${this.scrub(textOf(body?.message) ?? text)}`;
    // Only the gateway's own "no such order" means missing; a bare 404 (a wrong base URL) must not drop paid orders.
    if (response.status === 404 && body?.code === 'order_not_found') return { kind: 'missing' };
    if (response.status === 429 || response.status >= 500) {
      const retry = Number(response.headers.get('x-ratelimit-retry'));
      return { kind: 'retryable', reason: said, ...(Number.isFinite(retry) && retry > 0 ? { retryAfterSeconds: retry } : {}) };
    }
    return { kind: 'failed', reason: said };
  }

  /** The 2022-09-01 OrdersEntity's order_amount and order_splits; amounts become decimal text, never floats again. */
  private orderOf(body: Record<string, unknown>, orderId: string): TryOutcome {
    if (body.order_id !== orderId) {
      return { kind: 'failed', reason: `the answer is for order ${JSON.stringify(textOf(body.order_id))}, not ${orderId}` };
    }
    const orderAmount = textOf(body.order_amount);
    if (orderAmount === null) return { kind: 'failed', reason: 'the answer has no order_amount' };
    const raw = body.order_splits ?? [];
    if (!Array.isArray(raw)) return { kind: 'failed', reason: 'the answer\'s order_splits is not a list' };
    const splits: GatewayOrderSplit[] = [];
    for (const [i, entry] of raw.entries()) {
      const split = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {};
      if (typeof split.vendor_id !== 'string') return { kind: 'failed', reason: `the answer's order_splits[${i}] has no vendor_id` };
      const amount = textOf(split.amount);
      const percentage = textOf(split.percentage);
      splits.push({ vendorId: split.vendor_id, ...(amount !== null ? { amount } : {}), ...(percentage !== null ? { percentage } : {}) });
    }
    return { kind: 'found', order: { orderAmount, splits } };
  }

  private transportReason(error: unknown): string {
    // Duck-typed: fetch's errors may come from another realm (e.g. under jest), where instanceof Error fails.
    const failure = (error ?? {}) as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (failure.name === 'TimeoutError' || failure.name === 'AbortError') return `no answer within ${this.timeoutMs} ms`;
    const cause = failure.cause;
    const detail = cause && (cause.code || cause.message) ? [cause.code, cause.message].filter(Boolean).join(': ') : failure.message;
    return this.scrub(detail || 'network error');
  }

  /** Credentials never leave the client, even if a server or an error echoes them. */
  private scrub(text: string): string {
    let clean = text;
    for (const secret of this.#secrets) clean = clean.split(secret).join(REDACTED);
    return clean.length > MAX_REASON_CHARS ? `${clean.slice(0, MAX_REASON_CHARS)}...` : clean;
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

/** A JSON number or string as text (the gateway sends amounts as numbers); anything else is absent. */
function textOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : null;
}
