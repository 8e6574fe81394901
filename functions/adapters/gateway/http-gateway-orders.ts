/**
 * The gateway's order lookups over HTTP: the order (`GET /pg/orders/{order_id}`, the split a payment webhook does not
 * carry), the vendor, and the order recon (`GET /pg/easy-split/orders/{order_id}`, what eligibility the gateway holds).
 */
import { INDIA_TIME, parseEligibilityInput } from '../../domain/dates';
import type { Instant } from '../../domain/instant';
import type { GatewayOrder, GatewayOrderSplit, GatewayOrders } from '../../application/ports';
import { requireId } from '../../domain/order-events';
import { GatewayTransport, type GatewayClientOptions, type GatewayExchange } from './gateway-transport';

/** The PG API version whose order shape Holdback reads (`order_splits`, `order_amount`). */
export const PG_API_VERSION = '2022-09-01';

export interface HttpGatewayOrdersOptions extends GatewayClientOptions {
  /** The PG API base, e.g. "https://api.example.com/pg" (the sandbox serves it at its root + "/pg"). */
  pgBaseUrl: string;
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

/** What a 2xx answer's body held: the value looked up, or why it is unusable. */
type Read<T> = { kind: 'found'; value: T } | { kind: 'failed'; reason: string };

type TryOutcome<T> = Read<T> | { kind: 'missing' } | { kind: 'retryable'; reason: string; retryAfterSeconds?: number };

export class HttpGatewayOrders implements GatewayOrders {
  private readonly transport: GatewayTransport;

  constructor(options: HttpGatewayOrdersOptions) {
    this.transport = new GatewayTransport(options, {
      baseUrl: options.pgBaseUrl,
      baseUrlField: 'pgBaseUrl',
      baseUrlExample: 'https://api.example.com/pg',
      headers: { 'x-api-version': PG_API_VERSION, Accept: 'application/json' },
      maxMessageChars: 300,
      // The gateway waits for the webhook's answer, so a lookup gives up sooner than a release.
      defaults: { maxTries: 3, maxWaitMs: 10_000, backoffCapMs: 2_000 },
    });
  }

  async fetchOrder(orderId: string): Promise<GatewayOrder | null> {
    requireId(orderId, 'orderId');
    // Only the gateway's own "no such order" means missing; a bare 404 (a wrong base URL) must not drop paid orders.
    return this.lookup(`/orders/${encodeURIComponent(orderId)}`, `order ${orderId}`, 'order_not_found', (body) => this.orderOf(body, orderId));
  }

  /** The vendor's schedule option as the gateway settles by it (`schedule_option.schedule_id`). */
  async fetchVendor(vendorId: string): Promise<{ scheduleOption: number } | null> {
    requireId(vendorId, 'vendorId');
    return this.lookup(`/easy-split/vendors/${encodeURIComponent(vendorId)}`, `vendor ${vendorId}`, 'vendor_not_found', vendorOf);
  }

  /**
   * The vendor's `settlement_eligibility_date` at the order recon, as ISO 8601 in India time; null when the recon lists
   * the vendor without one, or not at all. Throws when the recon cannot be read (the order unknown to it included).
   */
  async fetchEligibility(orderId: string, vendorId: string): Promise<Instant | null> {
    requireId(orderId, 'orderId');
    requireId(vendorId, 'vendorId');
    return this.lookup(`/easy-split/orders/${encodeURIComponent(orderId)}`, `the recon of order ${orderId}`, null,
      (body) => eligibilityOf(body, orderId, vendorId, (value) => this.transport.scrub(value)));
  }

  /**
   * One GET with the transport's retries: a 2xx JSON object read by `read`; the gateway's own `notFound` code on a 404
   * as null; 429, 5xx and network faults tried again; anything else thrown with what the gateway said, scrubbed.
   */
  private async lookup<T>(
    path: string, what: string, notFound: string | null, read: (body: Record<string, unknown>) => Read<T>,
  ): Promise<T | null> {
    const url = this.transport.url(path);
    const { outcome, tries } = await this.transport.withRetries(
      async () => this.outcomeOf(await this.transport.exchange('GET', url), notFound, read),
      (o) => (o.kind === 'retryable' ? o.retryAfterSeconds ?? 0 : null),
    );
    if (outcome.kind === 'found') return outcome.value;
    if (outcome.kind === 'missing') return null;
    throw new GatewayOrderLookupError(`${what} could not be read from the gateway (${tries} ${tries === 1 ? 'try' : 'tries'}): ${outcome.reason}`);
  }

  private outcomeOf<T>(exchange: GatewayExchange, notFound: string | null, read: (body: Record<string, unknown>) => Read<T>): TryOutcome<T> {
    if (exchange.kind !== 'response') return { kind: 'retryable', reason: exchange.message };
    const { status, body, text } = exchange;
    if (status >= 200 && status < 300) {
      if (!body) return { kind: 'failed', reason: `HTTP ${status} with a body that is not a JSON object` };
      return read(body);
    }
    if (status === 404 && notFound !== null && body?.code === notFound) return { kind: 'missing' };
    const scrub = (value: string): string => this.transport.scrub(value);
    const said = `HTTP ${status} ${scrub(textOf(body?.code) ?? '')}: ${scrub(textOf(body?.message) ?? text)}`;
    if (status === 429 || status >= 500) {
      return { kind: 'retryable', reason: said, ...(exchange.retryAfterSeconds ? { retryAfterSeconds: exchange.retryAfterSeconds } : {}) };
    }
    return { kind: 'failed', reason: said };
  }

  /** The 2022-09-01 OrdersEntity's order_amount and order_splits; amounts become decimal text, never floats again. */
  private orderOf(body: Record<string, unknown>, orderId: string): Read<GatewayOrder> {
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
    return { kind: 'found', value: { orderAmount, splits } };
  }
}

/** A JSON number or string as text (the gateway sends amounts as numbers); anything else is absent. */
function textOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The vendor object's `schedule_option` (an object with `schedule_id`, or a bare id in older answers). */
function vendorOf(body: Record<string, unknown>): Read<{ scheduleOption: number }> {
  const option = body.schedule_option;
  const id = option && typeof option === 'object' ? (option as Record<string, unknown>).schedule_id : option;
  const scheduleOption = typeof id === 'string' ? Number(id) : id;
  if (typeof scheduleOption !== 'number' || !Number.isInteger(scheduleOption)) {
    return { kind: 'failed', reason: 'the answer has no schedule_option.schedule_id' };
  }
  return { kind: 'found', value: { scheduleOption } };
}

/** The recon's `vendors[].settlement_eligibility_date` of one vendor (ISO 8601 with offset, or the gateway's form). */
function eligibilityOf(body: Record<string, unknown>, orderId: string, vendorId: string, scrub: (value: string) => string): Read<Instant | null> {
  if (body.order_id !== orderId) return { kind: 'failed', reason: `the answer is for order ${JSON.stringify(textOf(body.order_id))}, not ${orderId}` };
  if (!Array.isArray(body.vendors)) return { kind: 'failed', reason: 'the answer\'s vendors is not a list' };
  const vendor = body.vendors.find((v): v is Record<string, unknown> => !!v && typeof v === 'object' && (v as Record<string, unknown>).vendor_id === vendorId);
  const date = vendor?.settlement_eligibility_date;
  if (date === undefined || date === null) return { kind: 'found', value: null };
  try {
    return { kind: 'found', value: parseEligibilityInput(date, 'settlement_eligibility_date').in(INDIA_TIME).wholeSecond() };
  } catch {
    return { kind: 'failed', reason: `vendor ${vendorId}'s settlement_eligibility_date ${JSON.stringify(scrub(String(date)).slice(0, 60))} is not a date and time` };
  }
}
