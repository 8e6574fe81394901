/** Use case: take one marketplace order event, keep it, and bring every vendor release of its order up to date. */
import { createHash } from 'node:crypto';
import Decimal from 'decimal.js';
import { parseInstant } from '../domain/dates';
import { ValidationError, type ValidationIssue } from '../domain/errors';
import { eventKey, parseOrderEvent } from '../domain/order-events';
import { planRelease, vendorFacts } from '../domain/release';
import { defaultPolicy } from '../domain/settings';
import type { OrderEvent, OrderRecord, RejectedEvent, Settings, VendorRelease } from '../domain/types';
import { maxEligibility } from '../domain/window';
import { describeError } from './errors';
import { VersionConflictError, type Dependencies } from './ports';
import { releaseVendor } from './release-vendor';
import { MAX_WRITE_ATTEMPTS, commandOf, nextVersion, sameRelease, storedInstant } from './release-writes';

/** What the bus envelope says about an event, kept on a rejection so that an operator can find the sender. */
export interface EventEnvelope {
  id?: string | null;
  source?: string | null;
  time?: string | null;
}

export type HandleOrderEventResult =
  | { outcome: 'rejected'; rejected: RejectedEvent }
  | { outcome: 'accepted'; orderId: string; duplicate: boolean; releases: VendorRelease[] };

/** A detail bigger than this is stored cut short: the reasons matter, not a megabyte of payload. */
const MAX_STORED_DETAIL_CHARS = 8000;

type PaidEvent = Extract<OrderEvent, { type: 'order.paid' }>;

/**
 * Validates the event completely before anything is written, so a malformed event is rejected (and listed) but never
 * half-applied. A valid one is stored under its deterministic key (a duplicate lands on the same key) and the order is
 * reconciled; events of an order whose payment has not arrived wait in the table until `order.paid` comes.
 *
 * A second `order.paid` that disagrees with the recorded one (other time, vendors, amounts or currency) is rejected as a
 * conflict and the first is kept: the gateway's transaction time of an order cannot change, so the later one is wrong.
 */
export async function handleOrderEvent(
  deps: Dependencies,
  detailType: unknown,
  detail: unknown,
  envelope: EventEnvelope = {},
): Promise<HandleOrderEventResult> {
  let event: OrderEvent;
  try {
    event = parseOrderEvent(detailType, detail);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return reject(deps, detailType, detail, envelope, error.issues);
  }

  if (event.type === 'order.paid') {
    const existing = await deps.orders.getOrder(event.orderId);
    if (existing && !samePayment(existing, event)) {
      return reject(deps, detailType, detail, envelope, [{
        field: 'orderId',
        problem: `${event.orderId} was already paid at ${existing.transactionTime} with other details; the first order.paid is kept`,
        expected: 'the same order.paid again (a duplicate is fine) or a new orderId for a different order',
      }]);
    }
  }

  const now = deps.clock.now();
  const stored = await deps.orders.recordEvent({ orderId: event.orderId, key: eventKey(event), event, receivedAt: storedInstant(now) });
  if (event.type === 'order.paid') {
    const settings = await deps.settings.get();
    // false means it exists already (a duplicate, or a concurrent twin): the first record stays.
    await deps.orders.createOrder(orderRecordOf(event, settings, storedInstant(now)));
  }
  const releases = await reconcileOrder(deps, event.orderId);
  return { outcome: 'accepted', orderId: event.orderId, duplicate: !stored, releases };
}

/**
 * Plans every vendor of a paid order from all its stored events and records what changed; nothing happens for an
 * order that is not paid yet. Safe to call any number of times.
 */
export async function reconcileOrder(deps: Dependencies, orderId: string): Promise<VendorRelease[]> {
  const order = await deps.orders.getOrder(orderId);
  if (!order) return [];
  const [settings, stored] = await Promise.all([deps.settings.get(), deps.orders.listEvents(orderId)]);
  const events = stored.map((s) => s.event);
  const releases: VendorRelease[] = [];
  for (const vendor of order.vendors) {
    releases.push(await reconcileVendor(deps, order, vendor, settings, events));
  }
  return releases;
}

async function reconcileVendor(
  deps: Dependencies,
  order: OrderRecord,
  vendor: { vendorId: string; amount: string },
  settings: Settings,
  events: OrderEvent[],
): Promise<VendorRelease> {
  const policy = (await deps.policies.current(vendor.vendorId)) ?? defaultPolicy(vendor.vendorId, settings);
  const facts = vendorFacts(events, vendor.vendorId);
  for (let attempt = 1; ; attempt++) {
    const current = await deps.orders.getRelease(order.orderId, vendor.vendorId);
    const now = deps.clock.now();
    const planned = planRelease({ order, vendorId: vendor.vendorId, amount: vendor.amount, policy, settings, facts, now, current });
    if (current && sameRelease(current, planned)) return current;
    const next = nextVersion(planned, current, now);
    try {
      await deps.orders.putRelease(next, current?.version ?? null);
    } catch (error) {
      // Someone else wrote this release meanwhile (another event, the release handler): plan again from theirs.
      if (error instanceof VersionConflictError && attempt < MAX_WRITE_ATTEMPTS) continue;
      throw error;
    }
    await startSideEffects(deps, current, next);
    return next;
  }
}

/**
 * After the write: cancel a schedule that no longer applies, create the new one, or send at once. A failure here is
 * logged, not thrown: the release is stored, and the sweep re-drives any send whose schedule went missing.
 */
async function startSideEffects(deps: Dependencies, current: VendorRelease | null, next: VendorRelease): Promise<void> {
  const ids = { orderId: next.orderId, vendorId: next.vendorId };
  try {
    if (current?.state === 'SCHEDULED' && current.releaseKey && current.releaseKey !== next.releaseKey) {
      await deps.scheduler.cancel(current.releaseKey);
    }
    const command = commandOf(next);
    if (next.state === 'SCHEDULED' && command && command.releaseKey !== current?.releaseKey && next.sendAt) {
      await deps.scheduler.schedule(command, parseInstant(next.sendAt, 'sendAt'));
    }
    if (next.state === 'PLANNED' && command) {
      await releaseVendor(deps, command);
    }
  } catch (error) {
    deps.logger.error('release side effect failed; the sweep will re-drive it', { ...ids, state: next.state, error: describeError(error) });
  }
}

function orderRecordOf(event: PaidEvent, settings: Settings, recordedAt: string): OrderRecord {
  const transactionTime = parseInstant(event.transactionTime, 'transactionTime');
  return {
    orderId: event.orderId,
    transactionTime: storedInstant(transactionTime),
    maxEligibility: storedInstant(maxEligibility(transactionTime, settings.deferByDays)),
    deferByDays: settings.deferByDays,
    currency: event.currency,
    vendors: event.vendors.map((v) => ({ vendorId: v.vendorId, amount: v.amount })),
    recordedAt,
  };
}

/** The same payment told twice (perhaps with another offset or amount spelling) is not a conflict. */
function samePayment(order: OrderRecord, event: PaidEvent): boolean {
  if (+parseInstant(order.transactionTime, 'transactionTime') !== +parseInstant(event.transactionTime, 'transactionTime')) return false;
  if (order.currency !== event.currency || order.vendors.length !== event.vendors.length) return false;
  const amounts = new Map(order.vendors.map((v) => [v.vendorId, v.amount]));
  return event.vendors.every((v) => amounts.has(v.vendorId) && new Decimal(amounts.get(v.vendorId)!).equals(v.amount));
}

async function reject(
  deps: Dependencies,
  detailType: unknown,
  detail: unknown,
  envelope: EventEnvelope,
  issues: ValidationIssue[],
): Promise<HandleOrderEventResult> {
  const rejected: RejectedEvent = {
    id: envelope.id ?? contentId(detailType, detail),
    at: storedInstant(deps.clock.now()),
    source: envelope.source ?? null,
    detailType: typeof detailType === 'string' ? detailType : null,
    reasons: issues.map((i) => `${i.field}: ${i.problem}; send ${i.expected}`),
    detail: storableDetail(detail),
  };
  await deps.rejected.add(rejected);
  deps.logger.warn('order event rejected', { id: rejected.id, detailType: rejected.detailType, reasons: rejected.reasons });
  return { outcome: 'rejected', rejected };
}

/** Without a bus id, the same malformed event redelivered gets the same id (so it is listed once). */
function contentId(detailType: unknown, detail: unknown): string {
  return createHash('sha256').update(`${String(detailType)}\u0000${safeJson(detail)}`).digest('hex').slice(0, 32);
}

function storableDetail(detail: unknown): unknown {
  const text = safeJson(detail);
  return text.length > MAX_STORED_DETAIL_CHARS ? { truncated: true, text: text.slice(0, MAX_STORED_DETAIL_CHARS) } : detail;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
