/** Use case: take one marketplace order event, keep it, and bring every vendor release of its order up to date. */
import { createHash } from 'node:crypto';
import Decimal from 'decimal.js';
import { parseInstant } from '../domain/dates';
import { ValidationError, type ValidationIssue } from '../domain/errors';
import { eventKey, parseOrderEvent } from '../domain/order-events';
import { planRelease, vendorFacts } from '../domain/release';
import { defaultPolicy } from '../domain/settings';
import type { OrderEvent, OrderRecord, RejectedEvent, Settings, VendorPolicy, VendorRelease } from '../domain/types';
import { maxEligibility } from '../domain/window';
import { describeError } from './errors';
import { VersionConflictError, type Dependencies, type PlanningConfig, type StoredOrder } from './ports';
import { claimFor, sendClaimed } from './release-vendor';
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
 * half-applied. A valid one is stored under its deterministic key (a duplicate lands on the same key), `order.paid` as
 * the order record, and the order is reconciled; events of an order whose payment has not arrived wait in the table
 * until `order.paid` comes.
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

  const now = deps.clock.now();
  if (event.type !== 'order.paid') {
    // An order not paid yet is marked before the event is stored, so that a payment coming later reads the order: no
    // moment exists (not even a crash between the two writes) in which this event is stored and a payment would
    // take the order for new. A paid order refuses the mark, and is planned here with the event.
    await deps.orders.markAwaitingPayment(event.orderId);
    const stored = await deps.orders.recordEvent({ orderId: event.orderId, key: eventKey(event), event, receivedAt: storedInstant(now) });
    const releases = await reconcileOrder(deps, event.orderId);
    return { outcome: 'accepted', orderId: event.orderId, duplicate: !stored, releases: releases ?? [] };
  }
  // The payment is kept as the order record itself (an event item would only say it again), written once: a conflicting
  // payment under the same id is refused before anything of it is kept.
  const config = await deps.config.forPlanning(event.vendors.map((v) => v.vendorId));
  const order = orderRecordOf(event, config.settings, storedInstant(now));
  const created = await deps.orders.createOrder(order);
  if (created === 'exists') {
    // It exists: a duplicate, a concurrent twin, or another payment under the same id. An order record never changes
    // once written, so the first one stands.
    const existing = await deps.orders.getOrder(event.orderId);
    if (existing && !samePayment(existing, event)) {
      return reject(deps, detailType, detail, envelope, [{
        field: 'orderId',
        problem: `${event.orderId} was already paid at ${existing.transactionTime} with other details; the first order.paid is kept`,
        expected: 'the same order.paid again (a duplicate is fine) or a new orderId for a different order',
      }]);
    }
  }
  // A new order has nothing else stored under it: an event racing the payment finds the order paid when it tries to
  // mark it, and plans it itself. Otherwise the order is read with what came before.
  const releases = created === 'new'
    ? await planOrder(deps, { order, events: [], releases: [] }, config)
    : (await reconcileOrder(deps, event.orderId, config)) ?? [];
  return { outcome: 'accepted', orderId: event.orderId, duplicate: created === 'exists', releases };
}

/**
 * Plans every vendor of a paid order from all its stored events and records what changed; nothing happens for an
 * order that is not paid yet. Safe to call any number of times. Each event (the payment: its order record) is stored
 * before this reads the order, so of two events racing, at least one sees both. Every release is written before any
 * side effect starts, so the releases read once up front are as fresh as per-vendor reads would be; a conditional
 * write that still loses reads the order again, events too, so that what the winner knew is never planned away.
 *
 * Reads: one query of the order, and one batch read of the settings and the policies (`config`, when the caller has
 * it already). A release keeps the policy it was first planned with, so only vendors without a release need theirs.
 * Null when the order is not paid yet.
 */
async function reconcileOrder(deps: Dependencies, orderId: string, config?: PlanningConfig): Promise<VendorRelease[] | null> {
  const stored = await deps.orders.loadOrder(orderId);
  return stored.order ? planOrder(deps, { ...stored, order: stored.order }, config) : null;
}

/** Plans every vendor of the order as read (see reconcileOrder), writes what changed, then starts the side effects. */
async function planOrder(
  deps: Dependencies,
  { order, events: stored, releases }: StoredOrder & { order: OrderRecord },
  config?: PlanningConfig,
): Promise<VendorRelease[]> {
  const view = orderView(stored, releases);
  const { settings, policies } = config
    ?? await deps.config.forPlanning(order.vendors.filter((v) => !view.currentOf.has(v.vendorId)).map((v) => v.vendorId));
  const written: { current: VendorRelease | null; next: VendorRelease }[] = [];
  const result: VendorRelease[] = [];
  for (const vendor of order.vendors) {
    // A vendor with a release already ignores the policy (planRelease keeps the one recorded on the release).
    const policy = policies.get(vendor.vendorId) ?? defaultPolicy(vendor.vendorId, settings);
    const outcome = await reconcileVendor(deps, order, vendor, { settings, policy }, view);
    if (outcome.written) written.push({ current: outcome.current, next: outcome.release });
    result.push(outcome.release);
  }
  for (const { current, next } of written) await startSideEffects(deps, current, next, settings);
  return result;
}

/**
 * The order's events and releases as this call last read them. A lost write reads them again, and the vendors planned
 * after it use that read too (the winner may have stored an event, e.g. a dispute, that concerns them as well).
 */
interface OrderView {
  events: OrderEvent[];
  currentOf: Map<string, VendorRelease>;
}

function orderView(events: StoredOrder['events'], releases: VendorRelease[]): OrderView {
  return { events: events.map((s) => s.event), currentOf: new Map(releases.map((r) => [r.vendorId, r])) };
}

/** The release as stored after planning, and whether this call wrote it (from `current`). */
type VendorOutcome =
  | { written: false; release: VendorRelease }
  | { written: true; release: VendorRelease; current: VendorRelease | null };

async function reconcileVendor(
  deps: Dependencies,
  order: OrderRecord,
  vendor: { vendorId: string; amount: string },
  plan: { settings: Settings; policy: VendorPolicy },
  view: OrderView,
): Promise<VendorOutcome> {
  let facts = vendorFacts(view.events, vendor.vendorId);
  let current = view.currentOf.get(vendor.vendorId) ?? null;
  for (let attempt = 1; ; attempt++) {
    const now = deps.clock.now();
    const planned = planRelease({ order, vendorId: vendor.vendorId, amount: vendor.amount, policy: plan.policy, settings: plan.settings, facts, now, current });
    if (current && sameRelease(current, planned)) return { written: false, release: current };
    let next = nextVersion(planned, current, now);
    // Due now: claimed for sending in the same write that plans it (one write less than planning, then claiming). A
    // lost sender leaves it APPLYING with a deadline, which the sweep re-drives, as for any claimed release.
    if (next.state === 'PLANNED') next = claimFor(next, next.version, now);
    try {
      await deps.orders.putRelease(next, current?.version ?? null);
      return { written: true, release: next, current };
    } catch (error) {
      // Someone else wrote this release meanwhile (another event, the release handler): plan again from theirs, and
      // from the events as stored now (the writer may have planned from an event this call has not seen).
      if (!(error instanceof VersionConflictError) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
    }
    const fresh = await deps.orders.loadOrder(order.orderId);
    Object.assign(view, orderView(fresh.events, fresh.releases));
    current = view.currentOf.get(vendor.vendorId) ?? null;
    facts = vendorFacts(view.events, vendor.vendorId);
  }
}

/**
 * After the write: cancel a schedule that no longer applies, create the new one, or send at once. A failure here is
 * logged, not thrown: the release is stored, and the sweep re-drives any send whose schedule went missing.
 */
async function startSideEffects(deps: Dependencies, current: VendorRelease | null, next: VendorRelease, settings: Settings): Promise<void> {
  const ids = { orderId: next.orderId, vendorId: next.vendorId };
  try {
    if (current?.state === 'SCHEDULED' && current.releaseKey && current.releaseKey !== next.releaseKey) {
      await deps.scheduler.cancel(current.releaseKey);
    }
    const command = commandOf(next);
    if (next.state === 'SCHEDULED' && command && command.releaseKey !== current?.releaseKey && next.sendAt) {
      await deps.scheduler.schedule(command, parseInstant(next.sendAt, 'sendAt'));
    }
    if (next.state === 'APPLYING') await sendClaimed(deps, next, settings);
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
