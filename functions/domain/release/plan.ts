/**
 * Planning a release (contract sections 4 and 5): the release as it should be now, from the facts (folded from the
 * order's events, below), the hold and the rule it is pinned to, inside its eligibility window (below); an operator's
 * manual release and retry; and the what-if plan of previews.
 */
import { DAY_MS } from '../../../kit/civil-days';
import { INDIA_OFFSET_MINUTES, Instant, isoAt, wholeSecondAt } from '../instant';
import { eventKey, eventTime } from '../order-events';
import { predictSettlement } from '../schedule-options';
import { calendarOf } from '../settings';
import type {
  Clamp, DisputeResolution, OrderEvent, OrderEventType, OrderRecord, ReleaseRule, Settings, VendorHold, VendorPolicy, VendorRelease,
} from '../types';
import {
  MANUAL_FROM, allows, audit, commit, isPending, isSentOrFinal, isUnsent, reasonText, ruleText, sameRelease, stamp, type Cause, type Effect, type Reason,
  type Refusal, type ReleaseEvent, type ReleaseKeyOf, type Transition,
} from './states';

export interface PlanInput {
  order: OrderRecord;
  vendorId: string;
  amount: string;
  /** The vendor's policy in force: used by a new release, or by every open one when `repin` (policy replan). */
  policy: VendorPolicy;
  settings: Settings;
  facts: VendorFacts;
  /** The vendor's hold as last stored (null: never held). */
  hold: VendorHold | null;
  now: Instant;
  current: VendorRelease | null;
  keyOf: ReleaseKeyOf;
  cause: Cause;
  /** Plan under `policy` even if the release was pinned to another version (PUT policy with applyTo open_orders). */
  repin?: boolean;
}

/**
 * Whether a plan leaves the release as it is: it is being sent or reached an end (manual release and retry reopen one
 * on purpose), except an AT_MAX by its rule that a policy replan (`repin`) moves.
 */
function staysAsIs(current: VendorRelease, repin: boolean | undefined): boolean {
  return isSentOrFinal(current.state) && !(repin && current.state === 'AT_MAX' && isUnsent(current));
}

/** The release as it should be now, from the facts, the hold and the rule it is pinned to. */
export function plan(input: PlanInput): Transition {
  const { current } = input;
  if (current && staysAsIs(current, input.repin)) return { kind: 'unchanged', release: current };
  return planFrom(current, current, input, input.repin ? 'repin' : 'plan');
}

/**
 * Plans `basis` (the release as the decision should see it: possibly reopened or claimed) and writes over `stored`
 * (what is in the table now, whose version the write replaces and whose schedule may need cancelling).
 */
function planFrom(stored: VendorRelease | null, basis: VendorRelease | null, input: PlanInput, event: ReleaseEvent): Transition {
  const decided = decide(baseOf(basis, input), input, basis, 0);
  return commit(stored, decided, event, input.now, input.keyOf, [auditOf(stored, decided, input)]);
}

export function baseOf(current: VendorRelease | null, input: PlanInput): VendorRelease {
  const { order, vendorId, amount, policy, now } = input;
  const pinned = current && !input.repin;
  return {
    orderId: order.orderId,
    vendorId,
    amount,
    // Kept on the release (and so in the open index's entry) so that reading a vendor's open money needs no order.
    currency: order.currency ?? current?.currency,
    state: 'PLANNED',
    policyVersion: pinned ? current.policyVersion : policy.version,
    rule: pinned ? current.rule : policy.release,
    scheduleOption: pinned ? current.scheduleOption : policy.scheduleOption,
    transactionTime: order.transactionTime,
    maxEligibility: order.maxEligibility,
    targetEligibility: null,
    sendAt: null,
    releaseKey: current?.releaseKey ?? null,
    appliedEligibility: null,
    predictedSettlement: null,
    clamp: null,
    attempts: current?.attempts ?? [],
    ...(current?.sends !== undefined ? { sends: current.sends } : {}),
    // Placeholders the decision replaces (present here so that every decision keeps the same object shape).
    reasonCode: 'planned',
    reason: null,
    settledAt: null,
    holdReason: null,
    plannedSendAt: null,
    settledFrom: null,
    manual: current?.manual ?? null,
    orderNotFoundSince: current?.orderNotFoundSince ?? null,
    ...(current?.exposure ? { exposure: current.exposure } : {}),
    version: current?.version ?? 0,
    updatedAt: stamp(now),
  };
}

/** The rule's target before clamping; null while it waits for an event (a delivery). */
function ruleTarget(rule: ReleaseRule, transactionTime: Instant, facts: VendorFacts): Instant | null {
  switch (rule.kind) {
    case 'at_max': return null;
    case 'immediate': return transactionTime;
    case 'after_payment': return transactionTime.plus(rule.delay, 'release.delay');
    case 'after_delivery': return facts.deliveredAt ? facts.deliveredAt.plus(rule.delay, 'release.delay') : null;
  }
}

/** The release left at max eligibility, the gateway's default. */
function atMax(base: VendorRelease, max: Instant, settings: Settings, reason: Reason): VendorRelease {
  const zone = settings.timezone;
  return {
    ...base,
    state: 'AT_MAX',
    targetEligibility: wholeSecondAt(max.ms, zone),
    // The gateway's own default applies, so the settlement is still predictable (forecasts use it).
    predictedSettlement: wholeSecondAt(predictSettlement(max, base.scheduleOption, calendarOf(settings)).ms, zone),
    reasonCode: reason.code,
    reason: reasonText(reason),
  };
}

function clampText(clamp: Clamp | null): string {
  if (!clamp) return '';
  const why = clamp.reason === 'before_transaction' ? 'before the transaction time'
    : clamp.reason === 'after_max_eligibility' ? 'after max eligibility' : 'in the past';
  return `; asked for ${clamp.requested}, ${why}, so clamped to ${clamp.clampedTo}`;
}

/** The release as the facts, the hold and its rule (or manual release) say it should be, from `base`. */
export function decide(base: VendorRelease, input: PlanInput, current: VendorRelease | null, dueWithinMs: number): VendorRelease {
  const { settings, facts, hold } = input;
  const zone = settings.timezone;
  const now = input.now.ms;
  const window: EligibilityWindow = { transactionTime: base.transactionTime, maxEligibility: base.maxEligibility };
  const max = window.maxEligibility;
  const manual = base.manual ?? null;

  // at_max sends nothing, so neither a dispute nor a cancellation changes it; checked first so that a cancellation
  // arriving before or after the payment gives the same AT_MAX. A manual release overrides the rule.
  if (!manual && base.rule.kind === 'at_max') return atMax(base, max, settings, { code: 'at_max_rule', rule: base.rule, max: isoAt(max.ms, zone) });
  if (facts.cancelledAt) {
    return { ...base, state: 'CANCELLED', manual: null, reasonCode: 'cancelled', reason: reasonText({ code: 'cancelled', at: facts.cancelledAt.in(zone).toISO() }) };
  }
  if (!manual && facts.lastResolution === 'customer_won') return atMax(base, max, settings, { code: 'customer_won' });
  if (nextGatewayMinuteMs(now) > max.ms) return atMax(base, max, settings, { code: 'window_closed' });

  const requested = manual
    ? manual.at ?? manual.requestedAt
    : ruleTarget(base.rule, window.transactionTime, facts);
  const target = requested ? clampIntoWindow(requested, window) : null;
  const targetAt = target ? wholeSecondAt(target.eligibility.ms, zone) : null;
  const why = manual ? `manual release by ${manual.actor} (${manual.reason})` : ruleText(base.rule);
  const overridden = manual?.override === true;
  if (hold?.held && !overridden) {
    return {
      ...base, state: 'HELD', holdReason: 'vendor_hold', targetEligibility: targetAt, clamp: target?.clamp ?? null,
      reasonCode: 'vendor_hold', reason: reasonText({ code: 'vendor_hold', actor: hold.actor, at: hold.at.toText(), why: hold.reason }),
    };
  }
  if (facts.disputeOpen && !overridden) {
    return { ...base, state: 'HELD', holdReason: 'dispute', targetEligibility: targetAt, clamp: target?.clamp ?? null, reasonCode: 'dispute', reason: reasonText({ code: 'dispute' }) };
  }
  if (!target) return { ...base, state: 'WAITING', reasonCode: 'waiting_delivery', reason: reasonText({ code: 'waiting_delivery', why }) };

  const planned = target.eligibility.minus(settings.releaseLead, 'releaseLead').ms;
  let sendAt = planned;
  const pending = current && isPending(current.state) && current.sendAt ? current : null;
  const pendingAt = pending ? pending.sendAt!.ms : null;
  const retrying = pending !== null && (pending.sends ?? 0) > 0 && pending.reasonCode === 'retrying';
  // Replanning must not hurry a retry's backoff, nor move a send that is already due.
  if (retrying && pendingAt !== null && pendingAt > sendAt) sendAt = pendingAt;
  const due = sendAt <= now + dueWithinMs;
  if (due) sendAt = pendingAt !== null && pendingAt <= now ? pendingAt : now;

  const timing = due ? 'due now' : `sent at ${isoAt(sendAt, zone)} (releaseLead ${settings.releaseLead} before the target)`;
  // A retry keeps its own reason while it waits; anything else says what the plan is.
  const keepRetry = retrying && pending.reason !== null;
  return {
    ...base,
    state: due ? 'PLANNED' : 'SCHEDULED',
    targetEligibility: targetAt,
    clamp: target.clamp,
    sendAt: wholeSecondAt(sendAt, zone),
    plannedSendAt: wholeSecondAt(planned, zone),
    reasonCode: keepRetry ? 'retrying' : 'planned',
    reason: keepRetry ? pending.reason : reasonText({ code: 'planned', why, target: targetAt!.toText(), clamp: clampText(target.clamp), timing }),
  };
}

export function auditOf(stored: VendorRelease | null, next: VendorRelease, input: PlanInput): Effect {
  const kind = input.cause.kind === 'manual_release' ? 'manual_release' : input.cause.kind === 'retry' ? 'retry' : 'planned';
  return audit(kind, next, input.now, input.cause.actor, {
    cause: input.cause.kind,
    ...(input.cause.reason ? { causeReason: input.cause.reason } : {}),
    from: stored?.state ?? null,
    to: next.state,
    reason: next.reason,
    holdReason: next.holdReason ?? null,
    rule: next.rule,
    policyVersion: next.policyVersion,
    targetEligibility: next.targetEligibility,
    plannedSendAt: next.plannedSendAt ?? null,
    sendAt: next.sendAt,
    clamp: next.clamp,
    ...(next.manual ? { manual: next.manual } : {}),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Manual release and retry (contract 6, issue 10.2)

export interface ManualRequest {
  actor: string;
  reason: string;
  /** The eligibility asked for; null: as soon as the gateway accepts. */
  at: Instant | null;
  override: boolean;
}

function windowClosedRefusal(current: VendorRelease, now: Instant): Refusal | null {
  if (nextGatewayMinuteMs(now.ms) <= current.maxEligibility.ms) return null;
  return { kind: 'refused', state: current.state, message: `the release is ${current.state} and its window closed at ${current.maxEligibility}: the gateway accepts no date any more` };
}

/**
 * A manual early release: allowed from PLANNED, SCHEDULED, WAITING, AT_MAX, FAILED and, with `override`, HELD. It
 * replaces the rule's target (a cancellation still drops it until it is sent).
 */
export function manualRelease(input: PlanInput & { current: VendorRelease }, request: ManualRequest): Transition | Refusal {
  const { current, now, settings } = input;
  if (!allows(current.state, 'manual_release', current, request.override)) {
    const hint = current.state === 'HELD' ? ' without "override": true (send it to release despite the hold)' : '';
    return { kind: 'refused', state: current.state, message: `the release of vendor ${current.vendorId} in order ${current.orderId} is ${current.state}: a manual release is allowed from ${MANUAL_FROM.join(', ')}, and HELD with override; not ${current.state}${hint}` };
  }
  const closed = windowClosedRefusal(current, now);
  if (closed) return closed;
  const manual = {
    actor: request.actor, reason: request.reason, override: request.override, requestedAt: stamp(now),
    at: request.at ? request.at.in(settings.timezone).wholeSecond() : null,
  };
  const reopened: VendorRelease = { ...current, state: 'PLANNED', sendAt: null, manual, orderNotFoundSince: null, reason: null };
  return planFrom(current, reopened, { ...input, cause: { kind: 'manual_release', actor: request.actor, reason: request.reason } }, 'manual_release');
}

/** An operator's retry of a FAILED release (issue 10.2): planned again under its rule, with a fresh retry budget. */
export function retryFailed(input: PlanInput & { current: VendorRelease }, request: { actor: string; reason: string }): Transition | Refusal {
  const { current, now } = input;
  if (!allows(current.state, 'retry', current)) {
    return { kind: 'refused', state: current.state, message: `the release of vendor ${current.vendorId} in order ${current.orderId} is ${current.state}: only a FAILED release can be retried` };
  }
  const closed = windowClosedRefusal(current, now);
  if (closed) return closed;
  const reopened: VendorRelease = { ...current, state: 'PLANNED', sendAt: null, orderNotFoundSince: null, reason: null };
  return planFrom(current, reopened, { ...input, cause: { kind: 'retry', actor: request.actor, reason: request.reason } }, 'retry');
}

// ---------------------------------------------------------------------------------------------------------------
// What-if planning (previews, the bench): the plan's release without bookkeeping or effects

const NO_KEY: ReleaseKeyOf = () => '';
const WHAT_IF: Cause = { kind: 'event', actor: null };

/**
 * The release as `plan` would make it (version and key untouched): `current` itself when nothing changes or it can
 * no longer change. Previews compare it with the release as it is.
 */
export function planRelease(input: Omit<PlanInput, 'keyOf' | 'cause' | 'hold'> & { hold?: VendorHold | null }): VendorRelease {
  // Spelled out, not `{ ...input, hold, keyOf, cause }`: V8 copies a spread followed by new keys on a slow path that
  // cost more than the decision itself (the profile of the bench's domain part showed it).
  const { current } = input;
  const full: PlanInput = {
    order: input.order, vendorId: input.vendorId, amount: input.amount, policy: input.policy, settings: input.settings, facts: input.facts,
    hold: input.hold ?? null, now: input.now, current, keyOf: NO_KEY, cause: WHAT_IF, repin: input.repin,
  };
  if (current && staysAsIs(current, input.repin)) return current;
  const next = decide(baseOf(current, full), full, current, 0);
  return current && sameRelease(current, next) ? current : { ...next, releaseKey: current?.releaseKey ?? null };
}

// The facts about one vendor's share of an order, folded from the order's events in the order of their own times.

export interface VendorFacts {
  /** The latest delivery (by its own time). */
  deliveredAt: Instant | null;
  disputeOpen: boolean;
  /** Once a customer won a dispute it stays customer_won: a later dispute cannot restore an early release. */
  lastResolution: DisputeResolution | null;
  /** The earliest cancellation. */
  cancelledAt: Instant | null;
}

// Events at the same instant fold in this order, so a dispute opened and closed in one instant ends closed.
const SAME_TIME_RANK: Record<OrderEventType, number> = {
  'order.paid': 0, 'order.delivered': 1, 'order.dispute_opened': 2, 'order.dispute_closed': 3, 'order.cancelled': 4,
};

/** Whether a follow-up event (delivery, dispute, cancellation) is about this vendor; the payment itself adds no fact. */
function concerns(event: OrderEvent, vendorId: string): boolean {
  if (event.type === 'order.paid') return false;
  return !event.vendorIds || event.vendorIds.includes(vendorId);
}

/**
 * The facts about one vendor, folded in the order of the events' own times (not arrival order), so out-of-order and
 * duplicated deliveries of the same events give the same facts.
 */
export function vendorFacts(events: OrderEvent[], vendorId: string): VendorFacts {
  const unique = new Map<string, { event: OrderEvent; at: Instant }>();
  for (const event of events) {
    if (!concerns(event, vendorId)) continue;
    unique.set(eventKey(event), { event, at: eventTime(event) });
  }
  const ordered = [...unique.entries()].sort(([keyA, a], [keyB, b]) =>
    a.at.ms - b.at.ms || SAME_TIME_RANK[a.event.type] - SAME_TIME_RANK[b.event.type] || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0));
  const facts: VendorFacts = { deliveredAt: null, disputeOpen: false, lastResolution: null, cancelledAt: null };
  for (const [, { event, at }] of ordered) {
    switch (event.type) {
      case 'order.delivered': facts.deliveredAt = at; break;
      case 'order.dispute_opened': facts.disputeOpen = true; break;
      case 'order.dispute_closed':
        facts.disputeOpen = false;
        if (facts.lastResolution !== 'customer_won') facts.lastResolution = event.resolution;
        break;
      case 'order.cancelled': facts.cancelledAt ??= at; break;
      default: break;
    }
  }
  return facts;
}

// The eligibility window [transaction time, transaction time + Defer by Days] and the gateway's "not in the past".

const MINUTE_MS = 60_000;

/** Transaction time plus Defer by Days, counted in India days (the gateway's clock, 24 hours each), in India time. */
export function maxEligibility(transactionTime: Instant, deferByDays: number): Instant {
  return Instant.withOffset(transactionTime.ms + deferByDays * DAY_MS, INDIA_OFFSET_MINUTES);
}

/**
 * How far ahead of now an eligibility sent "at the next minute" must lie: the gateway refuses a time in the past, and
 * a minute that is due a second after it was chosen has often passed by the time the PUT is processed (the client
 * may wait for its rate limit and retry). Sent at 10:00:50, "the next minute" is therefore 10:02, not 10:01.
 */
export const SEND_MARGIN_MS = 30_000;

/** The earliest time the gateway will still accept when the PUT arrives: the first whole minute after now + the margin. */
export function nextGatewayMinute(now: Instant): Instant {
  return Instant.withOffset(nextGatewayMinuteMs(now.ms), INDIA_OFFSET_MINUTES);
}

/** nextGatewayMinute in epoch milliseconds: India's offset is whole minutes, so its minutes start where UTC's do. */
export function nextGatewayMinuteMs(nowMs: number): number {
  return Math.floor((nowMs + SEND_MARGIN_MS) / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
}

export interface EligibilityWindow {
  transactionTime: Instant;
  maxEligibility: Instant;
}

export type ClampResult =
  | { eligibility: Instant; clamp: Clamp | null }
  | { eligibility: null; reason: 'window_closed' };

/** The clamp of `target` to `to`; its texts are written in the target's offset. */
function clamped(target: Instant, to: Instant, reason: Clamp['reason']): { eligibility: Instant; clamp: Clamp } {
  return { eligibility: to, clamp: { requested: target.wholeSecond(), clampedTo: to.inOffset(target.offset).wholeSecond(), reason } };
}

/** Moves a target into [transaction time, max eligibility]; the clamp says from where and why. */
export function clampIntoWindow(target: Instant, window: EligibilityWindow): { eligibility: Instant; clamp: Clamp | null } {
  if (target.ms < window.transactionTime.ms) return clamped(target, window.transactionTime, 'before_transaction');
  if (target.ms > window.maxEligibility.ms) return clamped(target, window.maxEligibility, 'after_max_eligibility');
  return { eligibility: target, clamp: null };
}

/**
 * Moves a target into the window, then into the future. The gateway takes whole seconds, so the result is a whole
 * second inside the window (rounded up, or down at the window's end).
 */
export function clampEligibility(target: Instant, window: EligibilityWindow, now: Instant): ClampResult {
  const earliest = nextGatewayMinute(now);
  if (earliest.ms > window.maxEligibility.ms) return { eligibility: null, reason: 'window_closed' };
  const inWindow = clampIntoWindow(target, window);
  if (inWindow.eligibility.ms < earliest.ms) return clamped(target, earliest, 'in_the_past');
  const eligibility = wholeSecondWithin(inWindow.eligibility, window.maxEligibility);
  if (eligibility.ms === inWindow.eligibility.ms) return inWindow;
  return { eligibility, clamp: inWindow.clamp && { ...inWindow.clamp, clampedTo: eligibility.inOffset(target.offset).wholeSecond() } };
}

function wholeSecondWithin(at: Instant, max: Instant): Instant {
  const floor = Math.floor(at.ms / 1000) * 1000;
  if (floor === at.ms) return at;
  return floor + 1000 <= max.ms ? at.plusMs(floor + 1000 - at.ms) : at.plusMs(floor - at.ms);
}
