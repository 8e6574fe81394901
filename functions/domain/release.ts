/** The release state machine of one vendor's share of one order (contract sections 4 and 5), as pure decisions. */
import { DateTime } from 'luxon';
import {
  INDIA_TIME, formatEpochMs, formatGatewayDate, formatInstant, momentOf, parseInstant, parseMoment, shiftMoment,
  type Moment,
} from './dates';
import { classifyAnswer } from './gateway-answer';
import { eventKey, eventTime } from './order-events';
import { predictSettlement, settlementOfMoment } from './schedule-options';
import { calendarOf } from './settings';
import {
  FINAL_STATES,
  type Attempt, type Clamp, type DisputeResolution, type GatewayAnswer, type HoldbackEvent, type OrderEvent,
  type OrderEventType, type OrderRecord, type ReleaseRule, type Settings, type VendorPolicy, type VendorRelease,
} from './types';
import { clampEligibility, clampMomentIntoWindow, nextGatewayMinuteMs, type EligibilityWindow, type MomentWindow } from './window';

/** After this many sends a still-retryable answer becomes FAILED. */
export const MAX_SENDS = 12;
const BACKOFF_BASE_SECONDS = 30;
const BACKOFF_CAP_SECONDS = 30 * 60;

export const CUSTOMER_WON_REASON = 'dispute closed customer_won: no early release';
export const WINDOW_CLOSED_REASON = 'window closed';

export interface VendorFacts {
  /** The latest delivery (by its own time). */
  deliveredAt: DateTime | null;
  disputeOpen: boolean;
  /** Once a customer won a dispute it stays customer_won: a later dispute cannot restore an early release. */
  lastResolution: DisputeResolution | null;
  /** The earliest cancellation. */
  cancelledAt: DateTime | null;
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
  const unique = new Map<string, { event: OrderEvent; at: DateTime }>();
  for (const event of events) {
    if (!concerns(event, vendorId)) continue;
    unique.set(eventKey(event), { event, at: DateTime.fromISO(eventTime(event), { setZone: true }) });
  }
  const ordered = [...unique.entries()].sort(([keyA, a], [keyB, b]) =>
    +a.at - +b.at || SAME_TIME_RANK[a.event.type] - SAME_TIME_RANK[b.event.type] || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0));
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

export interface PlanInput {
  order: OrderRecord;
  vendorId: string;
  amount: string;
  policy: VendorPolicy;
  settings: Settings;
  facts: VendorFacts;
  now: DateTime;
  current: VendorRelease | null;
}

function windowOf<T>(
  release: { transactionTime: string; maxEligibility: string },
  parse: (text: unknown, field: string) => T,
): { transactionTime: T; maxEligibility: T } {
  return {
    transactionTime: parse(release.transactionTime, 'transactionTime'),
    maxEligibility: parse(release.maxEligibility, 'maxEligibility'),
  };
}

/** The rule's target before clamping; null while it waits for an event (a delivery). */
function ruleTarget(rule: ReleaseRule, transactionTime: Moment, facts: VendorFacts): Moment | null {
  switch (rule.kind) {
    case 'at_max': return null;
    case 'immediate': return transactionTime;
    case 'after_payment': return shiftMoment(transactionTime, rule.delay, 'release.delay', 1);
    case 'after_delivery': return facts.deliveredAt ? shiftMoment(momentOf(facts.deliveredAt), rule.delay, 'release.delay', 1) : null;
  }
}

/** Whether nothing more may happen to this release (it was sent, or it reached an end). */
function isSentOrFinal(release: VendorRelease): boolean {
  return release.state === 'APPLYING' || FINAL_STATES.includes(release.state);
}

/** The release record as it should be now; `current` itself when nothing changes or it can no longer change. */
export function planRelease(input: PlanInput): VendorRelease {
  const { order, vendorId, amount, policy, settings, facts, now, current } = input;
  if (current && isSentOrFinal(current)) return current;
  const zone = settings.timezone;
  const window: MomentWindow = windowOf(order, parseMoment);
  const base: VendorRelease = {
    orderId: order.orderId,
    vendorId,
    amount,
    state: 'PLANNED',
    policyVersion: current ? current.policyVersion : policy.version,
    rule: current ? current.rule : policy.release,
    scheduleOption: current ? current.scheduleOption : policy.scheduleOption,
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
    reason: null,
    settledAt: null,
    version: current?.version ?? 0,
    updatedAt: formatInstant(now, zone),
  };
  const next = decide(base, { window, settings, facts, now, current });
  return current && sameContents(current, next) ? current : next;
}

/** The release left at max eligibility, the gateway's default. */
function atMax(base: VendorRelease, max: Moment, settings: Settings, reason: string | null): VendorRelease {
  const zone = settings.timezone;
  return {
    ...base,
    state: 'AT_MAX',
    targetEligibility: formatEpochMs(max.ms, zone),
    // The gateway's own default applies, so the settlement is still predictable (forecasts use it).
    predictedSettlement: formatEpochMs(settlementOfMoment(max, base.scheduleOption, calendarOf(settings)), zone),
    reason,
  };
}

function decide(
  base: VendorRelease,
  ctx: { window: MomentWindow; settings: Settings; facts: VendorFacts; now: DateTime; current: VendorRelease | null },
): VendorRelease {
  const { window, settings, facts, current } = ctx;
  const zone = settings.timezone;
  const now = ctx.now.toMillis();
  const max = window.maxEligibility;

  // at_max sends nothing, so neither a dispute nor a cancellation changes it; checked first so that a cancellation
  // arriving before or after the payment gives the same AT_MAX (AT_MAX is final once recorded).
  if (base.rule.kind === 'at_max') return atMax(base, max, settings, null);
  if (facts.cancelledAt) return { ...base, state: 'CANCELLED', reason: 'order cancelled before the release was sent' };
  if (facts.lastResolution === 'customer_won') return atMax(base, max, settings, CUSTOMER_WON_REASON);
  if (nextGatewayMinuteMs(now) > max.ms) return atMax(base, max, settings, WINDOW_CLOSED_REASON);

  const requested = ruleTarget(base.rule, window.transactionTime, facts);
  const target = requested ? clampMomentIntoWindow(requested, window) : null;
  const targetText = target ? formatEpochMs(target.eligibility.ms, zone) : null;
  if (facts.disputeOpen) {
    return { ...base, state: 'HELD', targetEligibility: targetText, clamp: target?.clamp ?? null, reason: 'dispute open' };
  }
  if (!target) return { ...base, state: 'WAITING', reason: 'waiting for the delivery' };

  let sendAt = shiftMoment(target.eligibility, settings.releaseLead, 'releaseLead', -1).ms;
  const pending = current && (current.state === 'PLANNED' || current.state === 'SCHEDULED') && current.sendAt ? current : null;
  const pendingAt = pending ? parseMoment(pending.sendAt, 'sendAt').ms : null;
  const retrying = pending !== null && (pending.sends ?? 0) > 0;
  // Replanning must not hurry a retry's backoff, nor move a send that is already due.
  if (retrying && pendingAt !== null && pendingAt > sendAt) sendAt = pendingAt;
  const due = sendAt <= now;
  if (due) sendAt = pendingAt !== null && pendingAt <= now ? pendingAt : now;
  return {
    ...base,
    state: due ? 'PLANNED' : 'SCHEDULED',
    targetEligibility: targetText,
    clamp: target.clamp,
    sendAt: formatEpochMs(sendAt, zone),
    reason: retrying ? pending.reason : null,
  };
}

function sameContents(a: VendorRelease, b: VendorRelease): boolean {
  const { updatedAt: _a, ...restA } = a;
  const { updatedAt: _b, ...restB } = b;
  return canonicalJson(restA) === canonicalJson(restB);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export type PreparedSend =
  | { eligibility: DateTime; request: string; clamp: Clamp | null }
  | { skip: 'window_closed' };

/** The eligibility to send now: the target while it is still ahead, else the next gateway minute, never past max. */
export function prepareSend(release: VendorRelease, now: DateTime): PreparedSend {
  const window: EligibilityWindow = windowOf(release, parseInstant);
  const target = release.targetEligibility ? parseInstant(release.targetEligibility, 'targetEligibility') : window.transactionTime;
  const result = clampEligibility(target, window, now);
  if (result.eligibility === null) return { skip: 'window_closed' };
  // A target already clamped into the window keeps its original request on the record.
  const clamp = result.clamp
    ? { ...result.clamp, requested: release.clamp?.requested ?? result.clamp.requested }
    : release.clamp;
  return { eligibility: result.eligibility.setZone(INDIA_TIME), request: formatGatewayDate(result.eligibility), clamp };
}

export interface AnswerInput {
  release: VendorRelease;
  /** The eligibility that was sent. */
  sent: DateTime;
  result: { attempts: Attempt[]; final: GatewayAnswer };
  settings: Settings;
  now: DateTime;
}

/** Seconds to wait before send number n+1: doubling from 30 s, at most 30 min, never less than the gateway asked. */
export function retryDelaySeconds(sends: number, retryAfterSeconds?: number): number {
  const backoff = Math.min(2 ** sends * BACKOFF_BASE_SECONDS, BACKOFF_CAP_SECONDS);
  return Math.max(backoff, retryAfterSeconds ?? 0);
}

/** The release after one send's answer, the events to emit, and when to send again (null: never). */
export function applyAnswer(input: AnswerInput): { release: VendorRelease; events: HoldbackEvent[]; retryAt: DateTime | null } {
  const { release, sent, result, settings, now } = input;
  const zone = settings.timezone;
  const sends = (release.sends ?? 0) + 1;
  const updated: VendorRelease = {
    ...release,
    attempts: [...release.attempts, ...result.attempts],
    sends,
    updatedAt: formatInstant(now, zone),
  };
  const ids = { orderId: release.orderId, vendorId: release.vendorId };
  const failed = (reason: string, extra: HoldbackEvent[] = []) => ({
    release: { ...updated, state: 'FAILED' as const, sendAt: null, reason },
    events: [...extra, { type: 'vendor.release_failed' as const, detail: { ...ids, reason, retryable: false } }],
    retryAt: null,
  });

  const answer = classifyAnswer(result.final);
  switch (answer.kind) {
    case 'applied': {
      const eligibility = formatInstant(sent, zone);
      const predicted = formatInstant(predictSettlement(sent, release.scheduleOption, calendarOf(settings)), zone);
      return {
        release: { ...updated, state: 'APPLIED', appliedEligibility: eligibility, predictedSettlement: predicted, sendAt: null, reason: null },
        events: [{ type: 'vendor.release_applied', detail: { ...ids, eligibility, predictedSettlement: predicted } }],
        retryAt: null,
      };
    }
    case 'terminal':
      return failed(answer.reason);
    case 'config_drift':
      return failed(answer.reason, [{ type: 'config.drift_detected', detail: { ...ids, message: answer.reason } }]);
    case 'retryable': {
      if (sends >= (answer.maxSends ?? MAX_SENDS)) return failed(`gave up after ${sends} attempts: ${answer.reason}`);
      // "In the past" is retried at once: prepareSend recomputes a later time for the next send, so waiting gains
      // nothing. Other transient answers back off.
      const retryAt = answer.recompute ? now : now.plus({ seconds: retryDelaySeconds(sends, answer.retryAfterSeconds) });
      // No event for a retry: subscribers hear about a release once it is applied or has failed for good, not on
      // every transient answer.
      return {
        release: { ...updated, state: 'SCHEDULED', sendAt: formatInstant(retryAt, zone), reason: `retrying: ${answer.reason}` },
        events: [],
        retryAt,
      };
    }
  }
}
