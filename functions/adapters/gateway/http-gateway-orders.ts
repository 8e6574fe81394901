/**
 * The gateway's order lookups over HTTP: the order (`GET /pg/orders/{order_id}`, the split a payment webhook does not
 * carry), the vendor, and the order recon (`GET /pg/easy-split/orders/{order_id}`, what eligibility the gateway holds).
 */
import { INDIA_TIME, formatInstant, parseEligibilityInput } from '../../domain/dates';
import type { GatewayOrder, GatewayOrderSplit, GatewayOrders } from '../../application/ports';
import { GatewayTransport, requireId, type GatewayClientOptions, type GatewayExchange } from './gateway-transport';

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

type TryOutcome =
  | { kind: 'found'; order: GatewayOrder }
  | { kind: 'missing' }
  | { kind: 'retryable'; reason: string; retryAfterSeconds?: number }
  | { kind: 'failed'; reason: string };

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
    requireId('orderId', orderId);
    const url = this.transport.url(`/orders/${encodeURIComponent(orderId)}`);
    const { outcome, tries } = await this.transport.withRetries(
      async () => this.outcomeOf(await this.transport.exchange('GET', url), orderId),
      (o) => (o.kind === 'retryable' ? o.retryAfterSeconds ?? 0 : null),
    );
    if (outcome.kind === 'found') return outcome.order;
    if (outcome.kind === 'missing') return null;
    throw new GatewayOrderLookupError(
      `order ${orderId} could not be read from the gateway (${tries} ${tries === 1 ? 'try' : 'tries'}): ${outcome.reason}`,
    );
  }

  /** The vendor's schedule option as the gateway settles by it (`schedule_option.schedule_id`). */
  async fetchVendor(vendorId: string): Promise<{ scheduleOption: number } | null> {
    requireId('vendorId', vendorId);
    const url = this.transport.url(`/easy-split/vendors/${encodeURIComponent(vendorId)}`);
    const { outcome, tries } = await this.transport.withRetries(
      async () => vendorOutcomeOf(await this.transport.exchange('GET', url), (value) => this.transport.scrub(value)),
      (o) => (o.kind === 'retryable' ? o.retryAfterSeconds ?? 0 : null),
    );
    if (outcome.kind === 'found') return { scheduleOption: outcome.scheduleOption };
    if (outcome.kind === 'missing') return null;
    throw new GatewayOrderLookupError(`vendor ${vendorId} could not be read from the gateway (${tries} ${tries === 1 ? 'try' : 'tries'}): ${outcome.reason}`);
  }

  /**
   * The vendor's `settlement_eligibility_date` at the order recon, as ISO 8601 in India time; null when the recon lists
   * the vendor without one, or not at all. Throws when the recon cannot be read (the order unknown to it included).
   */
  async fetchEligibility(orderId: string, vendorId: string): Promise<string | null> {
    requireId('orderId', orderId);
    requireId('vendorId', vendorId);
    const url = this.transport.url(`/easy-split/orders/${encodeURIComponent(orderId)}`);
    const { outcome, tries } = await this.transport.withRetries(
      async () => reconOutcomeOf(await this.transport.exchange('GET', url), orderId, vendorId, (value) => this.transport.scrub(value)),
      (o) => (o.kind === 'retryable' ? o.retryAfterSeconds ?? 0 : null),
    );
    if (outcome.kind === 'found') return outcome.eligibility;
    throw new GatewayOrderLookupError(
      `the recon of order ${orderId} could not be read from the gateway (${tries} ${tries === 1 ? 'try' : 'tries'}): ${outcome.reason}`,
    );
  }

  private outcomeOf(exchange: GatewayExchange, orderId: string): TryOutcome {
    if (exchange.kind !== 'response') return { kind: 'retryable', reason: exchange.message };
    const { status, body, text } = exchange;
    if (status >= 200 && status < 300) {
      if (!body) return { kind: 'failed', reason: `HTTP ${status} with a body that is not a JSON object` };
      return this.orderOf(body, orderId);
    }
    const scrub = (value: string): string => this.transport.scrub(value);
    const said = `HTTP ${status} ${scrub(textOf(body?.code) ?? '')}: ${scrub(textOf(body?.message) ?? text)}`;
    // Only the gateway's own "no such order" means missing; a bare 404 (a wrong base URL) must not drop paid orders.
    if (status === 404 && body?.code === 'order_not_found') return { kind: 'missing' };
    if (status === 429 || status >= 500) {
      return { kind: 'retryable', reason: said, ...(exchange.retryAfterSeconds ? { retryAfterSeconds: exchange.retryAfterSeconds } : {}) };
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
}

/** A JSON number or string as text (the gateway sends amounts as numbers); anything else is absent. */
function textOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value !== '' ? value : null;
}

type VendorOutcome =
  | { kind: 'found'; scheduleOption: number }
  | { kind: 'missing' }
  | { kind: 'retryable'; reason: string; retryAfterSeconds?: number }
  | { kind: 'failed'; reason: string };

/** The vendor object's `schedule_option` (an object with `schedule_id`, or a bare id in older answers). */
function vendorOutcomeOf(exchange: GatewayExchange, scrub: (value: string) => string): VendorOutcome {
  if (exchange.kind !== 'response') return { kind: 'retryable', reason: exchange.message };
  const { status, body, text } = exchange;
  if (status >= 200 && status < 300) {
    const option = body?.schedule_option;
    const id = option && typeof option === 'object' ? (option as Record<string, unknown>).schedule_id : option;
    const scheduleOption = typeof id === 'string' ? Number(id) : id;
    if (typeof scheduleOption !== 'number' || !Number.isInteger(scheduleOption)) {
      return { kind: 'failed', reason: 'the answer has no schedule_option.schedule_id' };
    }
    return { kind: 'found', scheduleOption };
  }
  if (status === 404 && body?.code === 'vendor_not_found') return { kind: 'missing' };
  const said = `HTTP ${status} ${scrub(textOf(body?.code) ?? '')}: ${scrub(textOf(body?.message) ?? text)}`;
  if (status === 429 || status >= 500) {
    return { kind: 'retryable', reason: said, ...(exchange.retryAfterSeconds ? { retryAfterSeconds: exchange.retryAfterSeconds } : {}) };
  }
  return { kind: 'failed', reason: said };
}

type ReconOutcome =
  | { kind: 'found'; eligibility: string | null }
  | { kind: 'retryable'; reason: string; retryAfterSeconds?: number }
  | { kind: 'failed'; reason: string };

/** The recon's `vendors[].settlement_eligibility_date` of one vendor (ISO 8601 with offset, or the gateway's form). */
function reconOutcomeOf(exchange: GatewayExchange, orderId: string, vendorId: string, scrub: (value: string) => string): ReconOutcome {
  if (exchange.kind !== 'response') return { kind: 'retryable', reason: exchange.message };
  const { status, body, text } = exchange;
  if (status < 200 || status >= 300) {
    const said = `HTTP ${status} ${scrub(textOf(body?.code) ?? '')}: ${scrub(textOf(body?.message) ?? text)}`;
    if (status === 429 || status >= 500) {
      return { kind: 'retryable', reason: said, ...(exchange.retryAfterSeconds ? { retryAfterSeconds: exchange.retryAfterSeconds } : {}) };
    }
    return { kind: 'failed', reason: said };
  }
  if (!body) return { kind: 'failed', reason: `HTTP ${status} with a body that is not a JSON object` };
  if (body.order_id !== orderId) return { kind: 'failed', reason: `the answer is for order ${JSON.stringify(textOf(body.order_id))}, not ${orderId}` };
  if (!Array.isArray(body.vendors)) return { kind: 'failed', reason: 'the answer\'s vendors is not a list' };
  const vendor = body.vendors.find((v): v is Record<string, unknown> => !!v && typeof v === 'object' && (v as Record<string, unknown>).vendor_id === vendorId);
  const date = vendor?.settlement_eligibility_date;
  if (date === undefined || date === null) return { kind: 'found', eligibility: null };
  try {
    return { kind: 'found', eligibility: formatInstant(parseEligibilityInput(date, 'settlement_eligibility_date'), INDIA_TIME) };
  } catch {
    return { kind: 'failed', reason: `vendor ${vendorId}'s settlement_eligibility_date ${JSON.stringify(scrub(String(date)).slice(0, 60))} is not a date and time` };
  }
}
