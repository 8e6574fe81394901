/** Use case: take one marketplace order event, keep it, and bring every vendor release of its order up to date. */
import { createHash } from 'node:crypto';
import { Instant } from '../../domain/instant';
import { ValidationError, issueText, jsonText, pruneNesting, storableDetail, type ValidationIssue } from '../../domain/errors';
import { eventKey, parseOrderEvent, vendorsOutsideOrderIssues } from '../../domain/order-events';
import { maxEligibility, planRelease, vendorFacts } from '../../domain/release/plan';
import type { Cause } from '../../domain/release/states';
import { compareSecondPayment } from '../../domain/same-payment';
import { defaultPolicy } from '../../domain/settings';
import type { OrderEvent, OrderRecord, RejectedEvent, VendorRelease } from '../../domain/types';
import { describeError } from '../errors';
import type { Dependencies, PlanningConfig, StoredOrder } from '../ports';
import { planOrderReleases, storedInstant } from '../release-store';
import { followDelivery } from './exposure-cap';

/** What the bus envelope says about an event, kept on a rejection so that an operator can find the sender. */
export interface EventEnvelope {
  id?: string | null;
  source?: string | null;
  time?: string | null;
}

export type HandleOrderEventResult =
  | { outcome: 'rejected'; rejected: RejectedEvent }
  | { outcome: 'accepted'; orderId: string; duplicate: boolean; releases: VendorRelease[] };

type PaidEvent = Extract<OrderEvent, { type: 'order.paid' }>;

/** The cause the audit records for planning after a payment. */
const PAYMENT: Cause = { kind: 'payment', actor: 'marketplace' };

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
    event = parseOrderEvent(detailType, detail, deps.clock.now());
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
    const key = eventKey(event);
    const stored = await deps.orders.recordEvent({ orderId: event.orderId, key, event, receivedAt: storedInstant(now) });
    // An event naming a vendor outside the order is kept but never applied (planning skips it); it is listed as
    // rejected when the order's vendors are known: here if the order is paid, else when the payment arrives.
    const strays: StrayReport | undefined = stored && event.vendorIds ? { key, detailType, detail, envelope } : undefined;
    const planned = await reconcileOrder(deps, event.orderId, { kind: 'event', actor: 'marketplace', reason: event.type }, undefined, strays);
    if (planned?.rejected) return { outcome: 'rejected', rejected: planned.rejected };
    // Only an order with money released early has exposure for a delivery to move: no read for the others.
    if (planned && event.type === 'order.delivered' && planned.releases.some((r) => r.exposure)) await followDelivery(deps, event.orderId);
    return { outcome: 'accepted', orderId: event.orderId, duplicate: !stored, releases: planned?.releases ?? [] };
  }
  // The payment is kept as the order record itself (an event item would only say it again), written once: a conflicting
  // payment under the same id is refused before anything of it is kept.
  // Consistent, and kept by a warm container while the config stamp has not moved (see DynamoConfigReader).
  const config = await deps.config.forPlanning(event.vendors.map((v) => v.vendorId));
  const order = orderRecordOf(event, config.settings.deferByDays, storedInstant(now));
  // Never store what cannot be planned: a payment whose planning throws would poison its order for good.
  const unplannable = planningIssues(order, config, now);
  if (unplannable.length) return reject(deps, detailType, detail, envelope, unplannable);
  const created = await deps.orders.createOrder(order);
  if (created === 'exists') {
    // It exists: a duplicate, a concurrent twin, or another payment under the same id. An order record never changes
    // once written, so the first one stands.
    // The gateway's payment webhook and the marketplace's event tell the same payment in two clocks: the gateway's
    // time is kept (its window counts from it); a real conflict is refused naming the field that differs.
    const existing = await deps.orders.getOrder(event.orderId);
    const second = existing ? compareSecondPayment(existing, event) : { kind: 'same' as const };
    if (second.kind === 'conflict') return reject(deps, detailType, detail, envelope, [second.issue]);
    if (second.kind === 'adopt_gateway_time' && existing) {
      await deps.orders.adoptGatewayPayment(orderRecordOf(event, existing.deferByDays, existing.recordedAt));
    }
  }
  // A new order has nothing else stored under it: an event racing the payment finds the order paid when it tries to
  // mark it, and plans it itself. Otherwise the order is read with what came before.
  const releases = created === 'new'
    ? (await planOrderReleases(deps, order.orderId, { cause: PAYMENT, stored: { order, events: [], releases: [] }, config, recheck: false, newOrder: true })) ?? []
    : (await reconcileOrder(deps, event.orderId, PAYMENT, config, created === 'awaited' ? 'all' : undefined))?.releases ?? [];
  return { outcome: 'accepted', orderId: event.orderId, duplicate: created === 'exists', releases };
}

/**
 * Plans every vendor of a paid order from all its stored events and records what changed; nothing happens for an
 * order that is not paid yet. Safe to call any number of times. Each event (the payment: its order record) is stored
 * before this reads the order, so of two events racing, at least one sees both. Every release is written before any
 * side effect starts, so the releases read once up front are as fresh as per-vendor reads would be; a conditional
 * write that still loses reads the order again, events too, so that what the winner knew is never planned away.
 *
 * Reads: one query of the order, and one batch read of the settings, the policies and the holds (`config`, when the
 * caller has it already); see planOrderReleases. Null when the order is not paid yet.
 */
async function reconcileOrder(
  deps: Dependencies, orderId: string, cause: Cause, config?: PlanningConfig, strays?: StrayReport,
): Promise<{ releases: VendorRelease[]; rejected: RejectedEvent | null } | null> {
  const stored = await deps.orders.loadOrder(orderId);
  if (!stored.order) return null;
  const rejected = strays ? await rejectEventsOutsideOrder(deps, stored.order, stored.events, strays) : null;
  const releases = await planOrderReleases(deps, orderId, { cause, stored: { ...stored, order: stored.order }, config });
  return { releases: releases ?? [], rejected };
}

/**
 * Which kept events naming vendors outside the order to list: all of them (when the payment that fixes the order's
 * vendors arrives), or the one just stored (listed as it came, with its envelope).
 */
type StrayReport = 'all' | { key: string; detailType: unknown; detail: unknown; envelope: EventEnvelope };

/** Lists each kept event of the report that names vendors outside the order, once; the one just stored, if listed. */
async function rejectEventsOutsideOrder(
  deps: Dependencies, order: OrderRecord, events: StoredOrder['events'], strays: StrayReport,
): Promise<RejectedEvent | null> {
  const vendorIds = order.vendors.map((v) => v.vendorId);
  let listed: RejectedEvent | null = null;
  for (const { event, key } of events) {
    if (strays !== 'all' && key !== strays.key) continue;
    const issues = vendorsOutsideOrderIssues(event, vendorIds);
    if (issues.length === 0) continue;
    const result = strays === 'all'
      ? await reject(deps, event.type, event, { id: `${order.orderId}#${key}` }, issues)
      : await reject(deps, strays.detailType, strays.detail, strays.envelope, issues);
    if (result.outcome === 'rejected') listed = result.rejected;
  }
  return listed;
}

/** Why the payment's order cannot be planned (a dry run of every vendor's first plan), or nothing. */
function planningIssues(order: OrderRecord, { settings, policies }: PlanningConfig, now: Instant): ValidationIssue[] {
  try {
    for (const vendor of order.vendors) {
      const policy = policies.get(vendor.vendorId) ?? defaultPolicy(vendor.vendorId, settings);
      planRelease({ order, vendorId: vendor.vendorId, amount: vendor.amount, policy, settings, facts: vendorFacts([], vendor.vendorId), now, current: null });
    }
    return [];
  } catch (error) {
    return [{
      field: 'detail',
      problem: `cannot be planned (${describeError(error)}); nothing of it was kept`,
      expected: 'an order.paid whose times, amounts and vendors lie within the bounds in the README',
    }];
  }
}

function orderRecordOf(event: PaidEvent, deferByDays: number, recordedAt: Instant): OrderRecord {
  const transactionTime = event.transactionTime;
  return {
    orderId: event.orderId,
    transactionTime: storedInstant(transactionTime),
    maxEligibility: storedInstant(maxEligibility(transactionTime, deferByDays)),
    deferByDays,
    currency: event.currency,
    vendors: event.vendors.map((v) => ({ vendorId: v.vendorId, amount: v.amount })),
    recordedAt,
    transactionTimeSource: event.transactionTimeSource ?? 'marketplace',
  };
}

async function reject(
  deps: Dependencies,
  detailType: unknown,
  detail: unknown,
  envelope: EventEnvelope,
  issues: ValidationIssue[],
): Promise<HandleOrderEventResult> {
  // Cut to a depth every later step (hashing, serialising, storing) handles, before any of them walks it.
  const kept = pruneNesting(detail);
  const rejected: RejectedEvent = {
    id: envelope.id ?? contentId(detailType, kept),
    at: storedInstant(deps.clock.now()),
    source: envelope.source ?? null,
    detailType: typeof detailType === 'string' ? detailType : null,
    reasons: issues.map(issueText),
    detail: storableDetail(kept),
  };
  await deps.rejected.add(rejected);
  deps.logger.warn('order event rejected', { id: rejected.id, detailType: rejected.detailType, reasons: rejected.reasons });
  return { outcome: 'rejected', rejected };
}

/** Without a bus id, the same malformed event redelivered gets the same id (so it is listed once). */
function contentId(detailType: unknown, detail: unknown): string {
  return createHash('sha256').update(`${String(detailType)}\u0000${jsonText(detail)}`).digest('hex').slice(0, 32);
}
