/** Use case: the gateway's signed webhooks: a paid split order (split read from the gateway) becomes `order.paid`, a vendor settlement marks SETTLED. */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import Decimal from '../../domain/decimal';
import { DateTime } from 'luxon';
import { GATEWAY_ZONE } from '../../domain/dates';
import { Instant } from '../../domain/instant';
import { ValidationError, assertNesting, isRecord, issueText, pruneNesting, storableDetail, type ValidationIssue } from '../../domain/errors';
import { gatewaySplitIssues, isValidId } from '../../domain/order-events';
import {
  checkSettlement, settle, settledOffPrediction, unresolvedRequests, type SettleRecon, type Transition,
} from '../../domain/release';
import { UnauthorizedError, describeError } from '../errors';
import type { VendorRelease } from '../../domain/types';
import type { AuditEntry, Dependencies } from '../ports';
import { appendAudit, readDecideWrite, runEffects, storedInstant } from '../release-store';

export interface WebhookRequest {
  /** Header names lower-cased. */
  headers: Record<string, string | undefined>;
  /** The body exactly as received: the signature covers these bytes. */
  rawBody: Buffer;
}

export type WebhookResult =
  | { action: 'order_paid_published'; orderId: string; vendors: number }
  | { action: 'release_settled'; orderId: string; vendorId: string }
  | { action: 'ignored'; reason: string };

/** base64(HMAC-SHA256(key = client secret, message = timestamp + raw body)), as the gateway signs. */
export function webhookSignature(secret: string, timestamp: string, rawBody: Buffer): string {
  return createHmac('sha256', secret).update(timestamp, 'utf8').update(rawBody).digest('base64');
}

/** Constant-time comparison of the signature text; a missing header or another length is simply "not valid". */
export function isValidWebhookSignature(secret: string, request: WebhookRequest): boolean {
  const signature = request.headers['x-webhook-signature'];
  const timestamp = request.headers['x-webhook-timestamp'];
  if (!signature || !timestamp) return false;
  const expected = Buffer.from(webhookSignature(secret, timestamp, request.rawBody), 'utf8');
  const given = Buffer.from(signature.trim(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A signed webhook older (or further ahead) than this is refused as a replay: the gateway signs each delivery afresh. */
export const WEBHOOK_MAX_AGE_MS = 5 * 60_000;

/** Why a signed timestamp (epoch milliseconds) is not fresh, or null when it is. */
export function webhookStaleness(timestamp: string | undefined, nowMs: number): string | null {
  const at = Number(timestamp);
  if (!Number.isFinite(at)) return `x-webhook-timestamp is ${JSON.stringify(timestamp)}, not epoch milliseconds; the gateway sends e.g. "1669975200000"`;
  const skew = nowMs - at;
  if (Math.abs(skew) <= WEBHOOK_MAX_AGE_MS) return null;
  return `x-webhook-timestamp is ${Math.round(Math.abs(skew) / 1000)} s ${skew > 0 ? 'old' : 'ahead'}, more than ${WEBHOOK_MAX_AGE_MS / 60_000} minutes: refused as a replay; the gateway signs every delivery with its own time`;
}

/**
 * Verifies the signature and the timestamp's freshness (401 otherwise), then acts on the two webhook types Holdback cares about; every other type
 * is acknowledged and ignored, so the gateway does not retry it.
 */
export async function handleGatewayWebhook(deps: Dependencies, request: WebhookRequest): Promise<WebhookResult> {
  if (!isValidWebhookSignature(await deps.secrets.webhookSecret(), request)) {
    throw new UnauthorizedError('x-webhook-signature is missing or does not match the body; the gateway signs base64(HMAC-SHA256(client secret, x-webhook-timestamp + raw body))');
  }
  const staleness = webhookStaleness(request.headers['x-webhook-timestamp'], deps.clock.now().ms);
  if (staleness) throw new UnauthorizedError(staleness);
  try {
    return await actOnSignedWebhook(deps, request);
  } catch (error) {
    // A signed webhook refused (400) is listed with the rejected events, so an operator sees what the gateway sent.
    if (error instanceof ValidationError) await listWebhook(deps, request.rawBody, error.issues.map(issueText));
    throw error;
  }
}

/**
 * A refused or unmatched webhook as a rejected event: its type and reasons, the body cut to a depth and size that
 * store safely. Keyed by the body's hash, so the same delivery twice is one entry.
 */
async function listWebhook(deps: Dependencies, rawBody: Buffer, reasons: string[]): Promise<void> {
  let body: unknown;
  try {
    body = pruneNesting(JSON.parse(rawBody.toString('utf8')));
  } catch {
    body = { text: rawBody.toString('utf8', 0, Math.min(rawBody.length, 2000)) };
  }
  const type = field(body, 'type');
  await deps.rejected.add({
    id: `webhook#${createHash('sha256').update(rawBody).digest('hex').slice(0, 32)}`,
    at: storedInstant(deps.clock.now()),
    source: 'gateway.webhook',
    detailType: typeof type === 'string' ? type.slice(0, 100) : null,
    reasons,
    detail: storableDetail(body),
  });
}

async function actOnSignedWebhook(deps: Dependencies, request: WebhookRequest): Promise<WebhookResult> {
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    throw new ValidationError([{ field: 'body', problem: 'is not JSON', expected: 'the gateway webhook JSON {type, event_time, data}' }]);
  }
  assertNesting(body, 'body', 'the gateway webhook JSON {type, event_time, data}');
  const type = field(body, 'type');
  const data = field(body, 'data');
  // One audit record per received webhook, written once its outcome is known (what it settled, or why it was refused):
  // a webhook that was not acknowledged is delivered again, and that delivery is recorded too.
  const entry = webhookAuditEntry(deps, body, request.rawBody);
  let acted: Settled;
  try {
    if (type === 'PAYMENT_SUCCESS_WEBHOOK') acted = { result: await publishPaidOrder(deps, data) };
    else if (type === 'VENDOR_SETTLEMENT_SUCCESS') acted = await markSettled(deps, data, field(body, 'event_time'));
    else acted = { result: { action: 'ignored', reason: `webhook type ${JSON.stringify(type)} needs no action` } };
    // A settlement Holdback cannot match is still acknowledged (the gateway would only send it again, and nothing it
    // sends again would match better), but it is listed so that an operator sees money that moved without a release.
    if (acted.unmatched) await listWebhook(deps, request.rawBody, [acted.unmatched]);
  } catch (error) {
    await appendAudit(deps, [{ ...entry, detail: { ...entry.detail, outcome: { action: 'refused', error: describeError(error) } } }]);
    throw error;
  }
  await appendAudit(deps, [{ ...entry, detail: { ...entry.detail, outcome: { ...acted.result, ...acted.outcome } } }]);
  return acted.result;
}

/** Where a paid order's split came from: the webhook itself, or the gateway's order (the usual case). */
interface SplitSource {
  /** Names the origin in validation issues. */
  field: string;
  orderAmount: unknown;
  splits: { vendorId: unknown; amount: unknown; percentage: unknown }[];
}

async function publishPaidOrder(deps: Dependencies, data: unknown): Promise<WebhookResult> {
  const order = field(data, 'order');
  const payment = field(data, 'payment');
  const orderId = field(order, 'order_id');
  const status = field(payment, 'payment_status');
  if (status !== undefined && status !== 'SUCCESS') return { action: 'ignored', reason: `payment_status is ${String(status)}` };
  if (!isValidId(orderId)) {
    throw new ValidationError([{ field: 'data.order.order_id', problem: `is ${JSON.stringify(orderId)}`, expected: 'the order id, 3 to 45 characters of A-Z, a-z, 0-9, "_" or "-"' }]);
  }
  const source = await splitSourceOf(deps, order, orderId as string);
  if (!source) return { action: 'ignored', reason: `the gateway does not know order ${String(orderId)}` };
  if (source.splits.length === 0) {
    return { action: 'ignored', reason: `order ${String(orderId)} has no order_splits: no vendor to release` };
  }

  // Nothing is rounded: a share of "10.005" or shares above the order are the gateway's error, not Holdback's to fix.
  const issues: ValidationIssue[] = gatewaySplitIssues(source.field, source.orderAmount, source.splits);
  const orderAmount = decimalOf(source.orderAmount);
  const paymentTime = gatewayTime(field(payment, 'payment_time'));
  if (!paymentTime) issues.push({ field: 'data.payment.payment_time', problem: 'is missing or not a time', expected: 'an ISO 8601 time' });
  const vendors = source.splits.map(({ vendorId, amount: fixed, percentage: percent }, i) => {
    const amount = decimalOf(fixed);
    const percentage = decimalOf(percent);
    if (!isValidId(vendorId)) issues.push({ field: `${source.field}[${i}].vendor_id`, problem: `is ${JSON.stringify(vendorId)}`, expected: 'a vendor id' });
    let share: Decimal | null = amount;
    if (!share && percentage && orderAmount) share = orderAmount.mul(percentage).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    if (!share) {
      issues.push({ field: `${source.field}[${i}]`, problem: 'has neither an amount nor a percentage of a known order_amount', expected: '{vendor_id, amount} or {vendor_id, percentage} with the order\'s order_amount' });
    }
    return { vendorId: String(vendorId), amount: share ? share.toFixed(2) : '0.00' };
  });
  if (issues.length) throw new ValidationError(issues);

  const currency = field(order, 'order_currency');
  await deps.publisher.publishOrderEvent('order.paid', {
    orderId: orderId as string,
    transactionTime: storedInstant(paymentTime!),
    vendors,
    ...(typeof currency === 'string' ? { currency } : {}),
    // The gateway's own payment time: the window counts from it, so it wins over the marketplace's order.paid.
    transactionTimeSource: 'gateway',
  });
  return { action: 'order_paid_published', orderId: orderId as string, vendors: vendors.length };
}

/**
 * The gateway's payment webhook carries no order_splits, so the order is read from the gateway; a webhook that does
 * carry them is taken as is. A failed read throws: the webhook is answered 5xx and the gateway delivers it again.
 * Null when the gateway does not know the order.
 */
async function splitSourceOf(deps: Dependencies, order: unknown, orderId: string): Promise<SplitSource | null> {
  const inline = field(order, 'order_splits');
  if (Array.isArray(inline) && inline.length > 0) {
    return {
      field: 'data.order.order_splits',
      orderAmount: field(order, 'order_amount'),
      splits: inline.map((split) => ({ vendorId: field(split, 'vendor_id'), amount: field(split, 'amount'), percentage: field(split, 'percentage') })),
    };
  }
  const fetched = await deps.gatewayOrders.fetchOrder(orderId);
  if (!fetched) return null;
  return {
    field: `order_splits of the gateway's order ${orderId}`,
    orderAmount: fetched.orderAmount,
    splits: fetched.splits.map((split) => ({ vendorId: split.vendorId, amount: split.amount, percentage: split.percentage })),
  };
}

/** What a webhook did; `unmatched` says why a settlement matched no release (it is then listed with the rejected events). */
interface Settled {
  result: WebhookResult;
  outcome?: Record<string, unknown>;
  unmatched?: string;
}

/** Why a settlement of a vendor in an order matches no release: the order or the vendor is unknown, or not planned yet. */
async function whyUnmatched(deps: Dependencies, orderId: string, vendorId: string): Promise<string> {
  const order = await deps.orders.getOrder(orderId);
  const what = `VENDOR_SETTLEMENT_SUCCESS for vendor ${vendorId} in order ${orderId}: the gateway settled money Holdback holds no release for`;
  if (!order) return `${what}; order ${orderId} is unknown to Holdback (no order.paid or payment webhook received for it): send its order.paid if it is a marketplace order`;
  if (!order.vendors.some((v) => v.vendorId === vendorId)) {
    return `${what}; vendor ${vendorId} is not in order ${orderId} (its vendors: ${order.vendors.map((v) => v.vendorId).join(', ')}): check the order's split at the gateway`;
  }
  return `${what}; its release was not planned yet when the settlement came`;
}

/**
 * The settlement's order and vendor; a settlement that matches no release (an unknown order, a vendor outside the
 * order, no single order_id and vendor_id) is acknowledged and listed with the rejected events. The outcome (for the
 * webhook's audit record): the settlement time, the state it settled from, and a prediction mismatch.
 */
async function markSettled(deps: Dependencies, data: unknown, eventTime: unknown): Promise<Settled> {
  const settlement = field(data, 'settlement') ?? data;
  const orderId = field(settlement, 'order_id');
  const vendorId = field(settlement, 'vendor_id');
  if (!isValidId(orderId) || !isValidId(vendorId)) {
    const reason = 'settlement names no single order_id and vendor_id';
    return {
      result: { action: 'ignored', reason },
      unmatched: `VENDOR_SETTLEMENT_SUCCESS: data.settlement.order_id is ${JSON.stringify(orderId)?.slice(0, 60)} and vendor_id ${JSON.stringify(vendorId)?.slice(0, 60)}; ${reason}: the gateway sends one order id and one vendor id, 3 to 45 characters of A-Z, a-z, 0-9, "_" or "-"`,
    };
  }
  const settledAt = gatewayTime(field(settlement, 'settled_at')) ?? gatewayTime(field(settlement, 'settled_on'))
    ?? gatewayTime(eventTime) ?? deps.clock.now();
  const ids = { orderId: orderId as string, vendorId: vendorId as string };
  const result: WebhookResult = { action: 'release_settled', ...ids };
  const decision = await readDecideWrite<Settled | null>(deps, async () => {
    const current = await deps.orders.getRelease(ids.orderId, ids.vendorId);
    if (!current) return { write: null, value: null };
    // A send without a clear answer (a lost sender, a timeout) may be what settled: the recon says which date it held.
    const recon = await settlementRecon(deps, current);
    // Checked against its prediction: a mismatch stays on the outcome and emits config.drift_detected.
    const transition = await withSettlementCheck(deps, settle(current, settledAt, deps.clock.now(), recon));
    if (transition.kind === 'unchanged') return { write: null, value: { result, outcome: { alreadySettledAt: current.settledAt } } };
    const settled = transition.release;
    return {
      write: transition,
      value: {
        result,
        outcome: { settledAt: settled.settledAt, settledFrom: settled.settledFrom, ...(settled.settlementMismatch ? { settlementMismatch: settled.settlementMismatch } : {}) },
      },
    };
  });
  if (decision.value === null) {
    const unmatched = await whyUnmatched(deps, ids.orderId, ids.vendorId);
    return { result: { action: 'ignored', reason: `no release of vendor ${ids.vendorId} in order ${ids.orderId}` }, outcome: { listed: unmatched }, unmatched };
  }
  if (decision.write) await runEffects(deps, decision.write.effects);
  return decision.value;
}

/**
 * The settle transition with its check (the machine's checkSettlement): the gateway's own schedule option for the
 * vendor (its vendor API) is asked only when the settlement is off its prediction.
 */
async function withSettlementCheck(deps: Dependencies, transition: Transition): Promise<Transition> {
  if (transition.kind !== 'write' || transition.release.settledAt === null) return transition;
  const settings = await deps.settings.get();
  const gatewayOption = settledOffPrediction(transition, settings) ? await gatewayScheduleOption(deps, transition.release.vendorId) : null;
  return checkSettlement(transition, settings, gatewayOption);
}

/** The gateway's schedule option for the vendor, or null when the gateway has no vendor API, no such vendor, or no answer. */
async function gatewayScheduleOption(deps: Dependencies, vendorId: string): Promise<number | null> {
  if (!deps.gatewayOrders.fetchVendor) return null;
  try {
    return (await deps.gatewayOrders.fetchVendor(vendorId))?.scheduleOption ?? null;
  } catch (error) {
    deps.logger.warn('the gateway\'s vendor could not be read; the mismatch is reported without its schedule option', { vendorId, error: describeError(error) });
    return null;
  }
}

/**
 * The order recon for a settled release that has a send of unknown outcome (so that it settles from APPLIED with its
 * eligibility when the gateway holds that date), else undefined; a recon that cannot be read settles it as it is.
 */
async function settlementRecon(deps: Dependencies, release: VendorRelease): Promise<SettleRecon | undefined> {
  if (release.state === 'APPLIED' || release.state === 'SETTLED' || unresolvedRequests(release).length === 0 || !deps.gatewayOrders.fetchEligibility) return undefined;
  try {
    const gatewayEligibility = await deps.gatewayOrders.fetchEligibility(release.orderId, release.vendorId);
    return { gatewayEligibility, at: storedInstant(deps.clock.now()), settings: await deps.settings.get() };
  } catch (error) {
    deps.logger.warn('settled release with a send of unknown outcome: the order recon could not be read, settled as it is', {
      orderId: release.orderId, vendorId: release.vendorId, state: release.state, error: describeError(error),
    });
    return undefined;
  }
}

/**
 * What the audit log keeps of a signed webhook: its type, time, ids and amounts, and the SHA-256 of the body as
 * received (which proves what came without keeping the customer's details in a log nobody may edit). Into the order's
 * stream when it names one.
 */
function webhookAuditEntry(deps: Dependencies, body: unknown, rawBody: Buffer): AuditEntry {
  const data = field(body, 'data');
  const settlement = field(data, 'settlement') ?? data;
  const payment = field(data, 'payment');
  const orderId = [field(field(data, 'order'), 'order_id'), field(settlement, 'order_id')].find(isValidId) as string | undefined;
  const vendorId = field(settlement, 'vendor_id');
  const text = (value: unknown): string | number | undefined => (typeof value === 'string' || typeof value === 'number' ? value : undefined);
  return {
    kind: 'webhook_received',
    at: storedInstant(deps.clock.now()),
    actor: 'gateway',
    ...(orderId ? { orderId } : {}),
    ...(isValidId(vendorId) ? { vendorId: vendorId as string } : {}),
    detail: {
      type: text(field(body, 'type')) ?? null,
      eventTime: text(field(body, 'event_time')) ?? null,
      bodySha256: createHash('sha256').update(rawBody).digest('hex'),
      paymentStatus: text(field(payment, 'payment_status')),
      paymentTime: text(field(payment, 'payment_time')),
      paymentAmount: text(field(payment, 'payment_amount')),
      settlementAmount: text(field(settlement, 'settlement_amount')),
      settledAt: text(field(settlement, 'settled_at')) ?? text(field(settlement, 'settled_on')),
    },
  };
}

function field(value: unknown, name: string): unknown {
  return isRecord(value) ? value[name] : undefined;
}

function decimalOf(value: unknown): Decimal | null {
  if ((typeof value !== 'number' && typeof value !== 'string') || value === '') return null;
  try {
    // decimal.js-light has no Infinity or NaN: it throws on them, as on any text that is not a plain decimal.
    const d = new Decimal(value);
    return d.gt(0) ? d : null;
  } catch {
    return null;
  }
}

/** The gateway's times carry +05:30; one without an offset is read as India time, the gateway's clock. */
function gatewayTime(value: unknown): Instant | null {
  if (typeof value !== 'string' || value === '' || value === 'null') return null;
  const dt = DateTime.fromISO(value.replace(' ', 'T'), { zone: GATEWAY_ZONE, setZone: true });
  return dt.isValid ? Instant.fromDateTime(dt) : null;
}
