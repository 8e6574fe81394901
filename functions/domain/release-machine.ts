/**
 * The release state machine of one vendor's share of one order (contract sections 4 to 6): every transition as a pure
 * function that returns the release to write (with the version it must replace) and the effects to run after the
 * write. The use cases only read, write conditionally and run the effects.
 */
import { DateTime } from 'luxon';
import {
  INDIA_TIME, formatEpochMs, formatGatewayDate, formatInstant, momentOf, parseInstant, parseMoment, shiftMoment,
  type Moment,
} from './dates';
import { classifyAnswer } from './gateway-answer';
import { eventKey, eventTime } from './order-events';
import { predictSettlement, settlementOfMoment } from './schedule-options';
import { DEFAULT_RETRY_BUDGET, calendarOf } from './settings';
import {
  FINAL_STATES, type AnswerClass, type Attempt, type Clamp, type DisputeResolution, type GatewayAnswer, type HoldbackEvent,
  type IsoInstant, type OrderEvent, type OrderEventType, type OrderRecord, type ReleaseCommand, type ReleaseRule,
  type ReleaseState, type SendInFlight, type Settings, type VendorHold, type VendorPolicy, type VendorRelease,
} from './types';
import { clampEligibility, clampMomentIntoWindow, nextGatewayMinuteMs, type EligibilityWindow, type MomentWindow } from './window';

/** Retry backoff: doubling from 30 s, capped so that a long fault is retried at least every 30 minutes. */
const BACKOFF_BASE_SECONDS = 30;
export const BACKOFF_CAP_SECONDS = 30 * 60;
/** How long an APPLYING release may stay so before the sweep assumes its sender was lost and re-drives it. */
export const APPLYING_DEADLINE_MS = 2 * 60_000;
/** Scheduler fires with one-minute precision; a command arriving a little early is still this release's send. */
const EARLY_FIRE_MS = 60_000;
/** Attempts kept on the release (the audit log keeps every one): a release retried for days stays a small item. */
const ATTEMPTS_KEPT = 20;
/** A last retry is placed this long before the window closes, so that its "next minute" is still inside it. */
const LAST_CHANCE_MS = 2 * 60_000;

const CUSTOMER_WON_REASON = 'dispute closed customer_won: no early release';
const WINDOW_CLOSED_REASON = 'window closed';
const DISPUTE_HOLD_REASON = 'dispute open';
const CANCELLED_REASON = 'order cancelled before the release was sent';

/** The actor of decisions Holdback takes by itself (events, schedules, answers). */
export const SYSTEM_ACTOR = 'holdback';

/** Deterministic name of one pending send (also the Scheduler schedule name); injected so the domain names nothing. */
export type ReleaseKeyOf = (orderId: string, vendorId: string, version: number) => string;

/** An audit record about one release (the audit log's entry shape, contract 6.2). */
export interface ReleaseAuditRecord {
  kind: string;
  at: IsoInstant;
  actor: string | null;
  orderId: string;
  vendorId: string;
  detail: Record<string, unknown>;
}

/** What a use case runs after the write, in this order. */
export type Effect =
  | { kind: 'cancel_schedule'; releaseKey: string }
  | { kind: 'schedule'; command: ReleaseCommand; at: IsoInstant }
  | { kind: 'enqueue'; command: ReleaseCommand }
  | { kind: 'publish'; event: HoldbackEvent }
  | { kind: 'audit'; entry: ReleaseAuditRecord };

/** The release to write, conditional on `expectedVersion` (null: must not exist yet), then the effects. */
export interface Write {
  kind: 'write';
  release: VendorRelease;
  expectedVersion: number | null;
  effects: Effect[];
}

export interface Unchanged {
  kind: 'unchanged';
  release: VendorRelease;
}

/** A transition the state does not allow (the API answers 409 `invalid_state`). */
export interface Refusal {
  kind: 'refused';
  state: ReleaseState;
  message: string;
}

export type Transition = Write | Unchanged;

/** Why a plan was made: the audit's account of it. */
export interface Cause {
  kind: 'event' | 'payment' | 'hold' | 'unhold' | 'policy_replan' | 'manual_release' | 'retry' | 'claim';
  actor: string | null;
  reason?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Facts

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

// ---------------------------------------------------------------------------------------------------------------
// Plan

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
  now: DateTime;
  current: VendorRelease | null;
  keyOf: ReleaseKeyOf;
  cause: Cause;
  /** Plan under `policy` even if the release was pinned to another version (PUT policy with applyTo open_orders). */
  repin?: boolean;
}

/** States that wait for a send at `sendAt` under `releaseKey`. */
export function isPending(state: ReleaseState): boolean {
  return state === 'PLANNED' || state === 'SCHEDULED';
}

/** Nothing more may be planned for it: it is being sent, was sent, or reached an end. */
function isSentOrFinal(state: ReleaseState): boolean {
  return state === 'APPLYING' || FINAL_STATES.includes(state);
}

/** Not sent yet and still open to a plan: what a hold, an unhold and a policy replan look at. */
export function isUnsent(release: VendorRelease): boolean {
  return isPending(release.state) || release.state === 'WAITING' || release.state === 'HELD'
    || (release.state === 'AT_MAX' && release.reason !== WINDOW_CLOSED_REASON && release.reason !== CUSTOMER_WON_REASON);
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
  return planFrom(current, current, input);
}

/**
 * Plans `basis` (the release as the decision should see it: possibly reopened or claimed) and writes over `stored`
 * (what is in the table now, whose version the write replaces and whose schedule may need cancelling).
 */
function planFrom(stored: VendorRelease | null, basis: VendorRelease | null, input: PlanInput, dueWithinMs = 0): Transition {
  const decided = decide(baseOf(basis, input), input, basis, dueWithinMs);
  return commit(stored, decided, input.now, input.keyOf, [auditOf(stored, decided, input)]);
}

function baseOf(current: VendorRelease | null, input: PlanInput): VendorRelease {
  const { order, vendorId, amount, policy, now, settings } = input;
  const pinned = current && !input.repin;
  return {
    orderId: order.orderId,
    vendorId,
    amount,
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
    reason: null,
    settledAt: null,
    holdReason: null,
    plannedSendAt: null,
    settledFrom: null,
    manual: current?.manual ?? null,
    orderNotFoundSince: current?.orderNotFoundSince ?? null,
    ...(current?.exposure ? { exposure: current.exposure } : {}),
    version: current?.version ?? 0,
    updatedAt: formatInstant(now, settings.timezone),
  };
}

function ruleText(rule: ReleaseRule): string {
  return 'delay' in rule ? `rule ${rule.kind} ${rule.delay}` : `rule ${rule.kind}`;
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

/** The release left at max eligibility, the gateway's default. */
function atMax(base: VendorRelease, max: Moment, settings: Settings, reason: string): VendorRelease {
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

function clampText(clamp: Clamp | null): string {
  if (!clamp) return '';
  const why = clamp.reason === 'before_transaction' ? 'before the transaction time'
    : clamp.reason === 'after_max_eligibility' ? 'after max eligibility' : 'in the past';
  return `; asked for ${clamp.requested}, ${why}, so clamped to ${clamp.clampedTo}`;
}

function decide(base: VendorRelease, input: PlanInput, current: VendorRelease | null, dueWithinMs: number): VendorRelease {
  const { settings, facts, hold } = input;
  const zone = settings.timezone;
  const now = input.now.toMillis();
  const window: MomentWindow = { transactionTime: parseMoment(base.transactionTime, 'transactionTime'), maxEligibility: parseMoment(base.maxEligibility, 'maxEligibility') };
  const max = window.maxEligibility;
  const manual = base.manual ?? null;

  // at_max sends nothing, so neither a dispute nor a cancellation changes it; checked first so that a cancellation
  // arriving before or after the payment gives the same AT_MAX. A manual release overrides the rule.
  if (!manual && base.rule.kind === 'at_max') {
    return atMax(base, max, settings, `${ruleText(base.rule)}: no update, the gateway settles from max eligibility ${formatEpochMs(max.ms, zone)}`);
  }
  if (facts.cancelledAt) {
    return { ...base, state: 'CANCELLED', manual: null, reason: `${CANCELLED_REASON} (cancelled at ${formatInstant(facts.cancelledAt, zone)})` };
  }
  if (!manual && facts.lastResolution === 'customer_won') return atMax(base, max, settings, CUSTOMER_WON_REASON);
  if (nextGatewayMinuteMs(now) > max.ms) return atMax(base, max, settings, WINDOW_CLOSED_REASON);

  const requested = manual
    ? parseMoment(manual.at ?? manual.requestedAt, 'manual.at')
    : ruleTarget(base.rule, window.transactionTime, facts);
  const target = requested ? clampMomentIntoWindow(requested, window) : null;
  const targetText = target ? formatEpochMs(target.eligibility.ms, zone) : null;
  const why = manual ? `manual release by ${manual.actor} (${manual.reason})` : ruleText(base.rule);
  const overridden = manual?.override === true;
  if (hold?.held && !overridden) {
    return {
      ...base, state: 'HELD', holdReason: 'vendor_hold', targetEligibility: targetText, clamp: target?.clamp ?? null,
      reason: `vendor hold by ${hold.actor} at ${hold.at}: ${hold.reason}`,
    };
  }
  if (facts.disputeOpen && !overridden) {
    return { ...base, state: 'HELD', holdReason: 'dispute', targetEligibility: targetText, clamp: target?.clamp ?? null, reason: DISPUTE_HOLD_REASON };
  }
  if (!target) return { ...base, state: 'WAITING', reason: `waiting for the delivery (${why})` };

  const planned = shiftMoment(target.eligibility, settings.releaseLead, 'releaseLead', -1).ms;
  let sendAt = planned;
  const pending = current && isPending(current.state) && current.sendAt ? current : null;
  const pendingAt = pending ? parseMoment(pending.sendAt, 'sendAt').ms : null;
  const retrying = pending !== null && (pending.sends ?? 0) > 0 && pending.reason?.startsWith('retrying') === true;
  // Replanning must not hurry a retry's backoff, nor move a send that is already due.
  if (retrying && pendingAt !== null && pendingAt > sendAt) sendAt = pendingAt;
  const due = sendAt <= now + dueWithinMs;
  if (due) sendAt = pendingAt !== null && pendingAt <= now ? pendingAt : now;
  const plannedText = formatEpochMs(planned, zone);
  const timing = due ? 'due now' : `sent at ${formatEpochMs(sendAt, zone)} (releaseLead ${settings.releaseLead} before the target)`;
  return {
    ...base,
    state: due ? 'PLANNED' : 'SCHEDULED',
    targetEligibility: targetText,
    clamp: target.clamp,
    sendAt: formatEpochMs(sendAt, zone),
    plannedSendAt: plannedText,
    reason: retrying && pending.reason ? pending.reason : `${why}: target ${targetText}${clampText(target.clamp)}; ${timing}`,
  };
}

// Bookkeeping that is not the release's content.
const BOOKKEEPING = new Set(['version', 'releaseKey', 'updatedAt']);

/** Whether two releases say the same thing, ignoring the bookkeeping (version, key, time of the write). */
function sameRelease(a: VendorRelease, b: VendorRelease): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !BOOKKEEPING.has(k)));
  for (const key of keys) {
    if (!sameValue((a as unknown as Record<string, unknown>)[key], (b as unknown as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // An absent optional field, an undefined one and a null one say the same (releases stored before a field existed).
  if (a === undefined || b === undefined || a === null || b === null) return (a ?? null) === (b ?? null);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const key of keys) if (!sameValue(ra[key], rb[key])) return false;
    return true;
  }
  return false;
}

/**
 * `next` as the version after `stored`, with a release key that is new whenever a different send is pending (so an
 * old schedule or message arriving late finds a key that no longer matches and does nothing), and the effects the
 * change needs: cancel the old schedule, create the new one, or enqueue a send that is due now.
 */
function commit(stored: VendorRelease | null, next: VendorRelease, now: DateTime, keyOf: ReleaseKeyOf, audit: Effect[]): Transition {
  if (stored && sameRelease(stored, next)) return { kind: 'unchanged', release: stored };
  const version = (stored?.version ?? 0) + 1;
  let releaseKey: string | null = null;
  if (isPending(next.state)) {
    const sameSend = stored !== null && stored.state === next.state && stored.sendAt === next.sendAt && stored.releaseKey;
    releaseKey = sameSend ? stored.releaseKey : keyOf(next.orderId, next.vendorId, version);
  }
  const release: VendorRelease = {
    ...next,
    version,
    releaseKey,
    sendAt: isPending(next.state) || next.state === 'APPLYING' ? next.sendAt : null,
    updatedAt: formatInstant(now, INDIA_TIME),
  };
  const effects: Effect[] = [];
  if (stored?.state === 'SCHEDULED' && stored.releaseKey && stored.releaseKey !== releaseKey) {
    effects.push({ kind: 'cancel_schedule', releaseKey: stored.releaseKey });
  }
  if (releaseKey && releaseKey !== stored?.releaseKey && release.sendAt) {
    const command = { orderId: release.orderId, vendorId: release.vendorId, releaseKey };
    effects.push(release.state === 'SCHEDULED' ? { kind: 'schedule', command, at: release.sendAt } : { kind: 'enqueue', command });
  }
  effects.push(...audit);
  return { kind: 'write', release, expectedVersion: stored?.version ?? null, effects };
}

function auditOf(stored: VendorRelease | null, next: VendorRelease, input: PlanInput): Effect {
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

function audit(kind: string, release: VendorRelease, now: DateTime, actor: string | null, detail: Record<string, unknown>): Effect {
  return {
    kind: 'audit',
    entry: { kind, at: formatInstant(now, INDIA_TIME), actor, orderId: release.orderId, vendorId: release.vendorId, detail },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Manual release and retry (contract 6, issue 10.2)

const MANUAL_FROM: readonly ReleaseState[] = ['PLANNED', 'SCHEDULED', 'WAITING', 'AT_MAX', 'FAILED'];

export interface ManualRequest {
  actor: string;
  reason: string;
  /** The eligibility asked for; null: as soon as the gateway accepts. */
  at: DateTime | null;
  override: boolean;
}

function windowClosedRefusal(current: VendorRelease, now: DateTime): Refusal | null {
  if (nextGatewayMinuteMs(now.toMillis()) <= parseMoment(current.maxEligibility, 'maxEligibility').ms) return null;
  return { kind: 'refused', state: current.state, message: `the release is ${current.state} and its window closed at ${current.maxEligibility}: the gateway accepts no date any more` };
}

/**
 * A manual early release: allowed from PLANNED, SCHEDULED, WAITING, AT_MAX, FAILED and, with `override`, HELD. It
 * replaces the rule's target (a cancellation still drops it until it is sent).
 */
export function manualRelease(input: PlanInput & { current: VendorRelease }, request: ManualRequest): Transition | Refusal {
  const { current, now, settings } = input;
  const allowed = MANUAL_FROM.includes(current.state) || (current.state === 'HELD' && request.override);
  if (!allowed) {
    const hint = current.state === 'HELD' ? ' without "override": true (send it to release despite the hold)' : '';
    return { kind: 'refused', state: current.state, message: `the release of vendor ${current.vendorId} in order ${current.orderId} is ${current.state}: a manual release is allowed from PLANNED, SCHEDULED, WAITING, AT_MAX, FAILED, and HELD with override; not ${current.state}${hint}` };
  }
  const closed = windowClosedRefusal(current, now);
  if (closed) return closed;
  const manual = {
    actor: request.actor, reason: request.reason, override: request.override, requestedAt: formatInstant(now, settings.timezone),
    at: request.at ? formatInstant(request.at, settings.timezone) : null,
  };
  const reopened: VendorRelease = { ...current, state: 'PLANNED', sendAt: null, manual, orderNotFoundSince: null, reason: null };
  return planFrom(current, reopened, { ...input, cause: { kind: 'manual_release', actor: request.actor, reason: request.reason } });
}

/** An operator's retry of a FAILED release (issue 10.2): planned again under its rule, with a fresh retry budget. */
export function retryFailed(input: PlanInput & { current: VendorRelease }, request: { actor: string; reason: string }): Transition | Refusal {
  const { current, now } = input;
  if (current.state !== 'FAILED') {
    return { kind: 'refused', state: current.state, message: `the release of vendor ${current.vendorId} in order ${current.orderId} is ${current.state}: only a FAILED release can be retried` };
  }
  const closed = windowClosedRefusal(current, now);
  if (closed) return closed;
  const reopened: VendorRelease = { ...current, state: 'PLANNED', sendAt: null, orderNotFoundSince: null, reason: null };
  return planFrom(current, reopened, { ...input, cause: { kind: 'retry', actor: request.actor, reason: request.reason } });
}

// ---------------------------------------------------------------------------------------------------------------
// Claim, replan after the claim, send and answer

/** Why this command must not send now, or null when it must. */
function whyNotDue(release: VendorRelease, command: ReleaseCommand, now: DateTime): string | null {
  if (release.releaseKey !== command.releaseKey) return `release key ${command.releaseKey} is not the pending one (state ${release.state})`;
  if (!release.sendAt) return `nothing to send in state ${release.state}`;
  const sendAt = parseMoment(release.sendAt, 'sendAt').ms;
  if (isPending(release.state) || waitsForExposure(release)) return sendAt <= now.toMillis() + EARLY_FIRE_MS ? null : `not due before ${release.sendAt}`;
  if (release.state === 'APPLYING') {
    return sendAt < now.toMillis() ? null : `being applied by another invocation until ${release.sendAt}`;
  }
  return `nothing to send in state ${release.state}`;
}

/**
 * Claims a due release for sending: APPLYING with a deadline after which the sweep assumes the sender was lost. Only
 * the claimant may send, and it reads the order and the hold only after this write (see `afterClaim`).
 */
export function claim(current: VendorRelease, command: ReleaseCommand, now: DateTime): Write | { kind: 'skip'; reason: string } {
  const notDue = whyNotDue(current, command, now);
  if (notDue) return { kind: 'skip', reason: notDue };
  return {
    kind: 'write',
    release: {
      ...current,
      state: 'APPLYING',
      // An attempt still "SENT" here was left by a sender that was lost before its answer was recorded.
      attempts: current.attempts.map((a) => (a.status === SENT_STATUS
        ? { ...a, status: NO_ANSWER_STATUS, message: `no answer recorded: its sender was lost (taken over at ${formatInstant(now, INDIA_TIME)})` }
        : a)),
      // What leaves is recorded by `recordSend` just before it leaves; a lost sender's is in its attempts.
      sending: null,
      // A release claimed out of an exposure-cap wait is no longer waiting (its claim checks the cap again).
      ...(current.waitReason ? { waitReason: null } : {}),
      sendAt: formatInstant(now.plus({ milliseconds: APPLYING_DEADLINE_MS }), INDIA_TIME),
      version: current.version + 1,
      updatedAt: formatInstant(now, INDIA_TIME),
    },
    expectedVersion: current.version,
    effects: [],
  };
}

export type PreparedSend =
  | { eligibility: DateTime; request: string; clamp: Clamp | null }
  | { skip: 'window_closed' };

/** The eligibility to send now: the target while it is still ahead, else the next gateway minute, never past max. */
export function prepareSend(release: VendorRelease, now: DateTime): PreparedSend {
  const window: EligibilityWindow = {
    transactionTime: parseInstant(release.transactionTime, 'transactionTime'),
    maxEligibility: parseInstant(release.maxEligibility, 'maxEligibility'),
  };
  const target = release.targetEligibility ? parseInstant(release.targetEligibility, 'targetEligibility') : window.transactionTime;
  const result = clampEligibility(target, window, now);
  if (result.eligibility === null) return { skip: 'window_closed' };
  // A target already clamped into the window keeps its original request on the record.
  const clamp = result.clamp
    ? { ...result.clamp, requested: release.clamp?.requested ?? result.clamp.requested }
    : release.clamp;
  return { eligibility: result.eligibility.setZone(INDIA_TIME), request: formatGatewayDate(result.eligibility), clamp };
}

/** The claimed release, its plan brought up to date, and what to send (`recordSend` writes it before the PUT leaves). */
export interface SendNow {
  kind: 'send';
  release: VendorRelease;
  eligibility: DateTime;
  request: string;
}

/**
 * After the claim, the claimant plans again from the order and the hold as read AFTER its claim: a dispute, a
 * cancellation or a hold stored before that read is always seen here (write, then read), so no money of a disputed or
 * held vendor leaves. Only a plan that still says "send now" sends; anything else is written from the claim.
 */
export function afterClaim(input: PlanInput & { current: VendorRelease }): SendNow | Transition {
  const applying = input.current;
  const reopened: VendorRelease = { ...applying, state: 'PLANNED', sendAt: formatInstant(input.now, INDIA_TIME) };
  const claimed: PlanInput = { ...input, cause: { kind: 'claim', actor: SYSTEM_ACTOR } };
  const decided = decide(baseOf(reopened, claimed), claimed, reopened, EARLY_FIRE_MS);
  if (decided.state !== 'PLANNED') return commit(applying, decided, input.now, input.keyOf, [auditOf(applying, decided, claimed)]);
  const release: VendorRelease = { ...applying, targetEligibility: decided.targetEligibility, clamp: decided.clamp, plannedSendAt: decided.plannedSendAt, reason: decided.reason };
  const send = prepareSend(release, input.now);
  if ('skip' in send) return windowClosed(release, input.now);
  return { kind: 'send', release: { ...release, clamp: send.clamp }, eligibility: send.eligibility, request: send.request };
}

/** A release WAITING under an exposure cap: claimed again at its `sendAt` (a risk window closes, or max eligibility). */
export function waitsForExposure(release: VendorRelease): boolean {
  return release.state === 'WAITING' && release.waitReason === 'exposure_cap' && release.sendAt !== null;
}

/**
 * A claimed early release that would pass the policy's maxExposure (contract 6.4): WAITING with reason
 * `exposure_cap` and the figures in its message, claimed again at `untilMs` (the instant the blocking exposure falls
 * enough, or max eligibility, where the gateway settles it anyway) under a new key.
 */
export function waitForExposure(input: { current: VendorRelease; message: string; untilMs: number; now: DateTime; keyOf: ReleaseKeyOf; figures: Record<string, unknown> }): Write {
  const { current, now } = input;
  const version = current.version + 1;
  const releaseKey = input.keyOf(current.orderId, current.vendorId, version);
  const untilMs = Math.max(input.untilMs, now.toMillis());
  const release: VendorRelease = {
    ...current, state: 'WAITING', waitReason: 'exposure_cap', reason: input.message, sending: null, exposure: null,
    sendAt: formatEpochMs(untilMs, INDIA_TIME), releaseKey, version, updatedAt: formatInstant(now, INDIA_TIME),
  };
  const command = { orderId: current.orderId, vendorId: current.vendorId, releaseKey };
  return {
    kind: 'write', release, expectedVersion: current.version,
    effects: [
      { kind: 'schedule', command, at: release.sendAt! },
      audit('planned', release, now, SYSTEM_ACTOR, { cause: 'claim', from: current.state, to: 'WAITING', reason: input.message, waitReason: 'exposure_cap', sendAt: release.sendAt, ...input.figures }),
    ],
  };
}

/** Status of an attempt recorded before its PUT left, until its answer is recorded. */
export const SENT_STATUS = 'SENT';
/** Status of an attempt whose sender was lost before it recorded the answer. */
export const NO_ANSWER_STATUS = 'NO_ANSWER';

/**
 * Whether an attempt's answer leaves open whether the gateway applied it: none came (not yet, a timeout, a reset, a
 * lost sender) or a 5xx (the gateway may have applied the PUT before failing). A 429 or a 4xx is a clean answer.
 */
export function outcomeUnknown(attempt: Attempt): boolean {
  if (attempt.confirmedFromRecon) return false;
  return attempt.status === SENT_STATUS || attempt.status === NO_ANSWER_STATUS || attempt.status === 'TIMEOUT'
    || attempt.status === 'NETWORK' || (attempt.httpStatus !== null && attempt.httpStatus >= 500);
}

/** Whether an answer leaves open whether the PUT was applied (see outcomeUnknown): the recon is read before sending again. */
export function answerUnknown(final: GatewayAnswer): boolean {
  return final.kind === 'timeout' || final.kind === 'network' || (final.kind === 'response' && final.httpStatus >= 500);
}

/**
 * The dates this release sent whose outcome is unknown, plus the one a lost claim was sending: if the gateway's order
 * recon holds one of them, that send arrived, and nothing may be sent again.
 */
export function unresolvedRequests(release: VendorRelease): string[] {
  const requests = new Set(release.attempts.filter(outcomeUnknown).map((a) => a.request));
  if (release.state === 'APPLYING' && release.sending) requests.add(release.sending.request);
  return [...requests];
}

export interface RecordSendInput {
  /** The release as last written by this invocation (APPLYING). */
  release: VendorRelease;
  request: string;
  /** The try within this send (a 429 is tried again within the send), and when the gateway client stamps it. */
  attempt: number;
  at: IsoInstant;
  now: DateTime;
}

/**
 * Before each PUT leaves: the attempt on the release (status SENT) and a `gateway_attempt` audit record with the
 * request, so that a sender lost after the PUT left still leaves its send on the record; the claim's deadline is
 * renewed, as the claimant is still at work.
 */
export function recordSend(input: RecordSendInput): Write {
  const { release, request, attempt, at, now } = input;
  const pending: Attempt = { at, request, httpStatus: null, status: SENT_STATUS, subCode: null, message: 'sent; no answer recorded yet' };
  const next: VendorRelease = {
    ...release,
    attempts: [...release.attempts, pending].slice(-ATTEMPTS_KEPT),
    sending: { request, claimedAt: release.sending?.claimedAt ?? formatInstant(now, INDIA_TIME) },
    sendAt: formatInstant(now.plus({ milliseconds: APPLYING_DEADLINE_MS }), INDIA_TIME),
    version: release.version + 1,
    updatedAt: formatInstant(now, INDIA_TIME),
  };
  return {
    kind: 'write', release: next, expectedVersion: release.version,
    effects: [audit('gateway_attempt', release, now, SYSTEM_ACTOR, {
      phase: 'sent', send: (release.sends ?? 0) + 1, attempt, request: { eligibility: request, at },
    })],
  };
}

/** The release's attempts with this send's SENT ones (the last `answered.length`) replaced by their answers. */
function withAnswers(attempts: Attempt[], answered: Attempt[]): Attempt[] {
  const kept = [...attempts];
  let open = answered.length;
  for (let i = kept.length - 1; i >= 0 && open > 0; i--) {
    if (kept[i].status === SENT_STATUS) {
      kept.splice(i, 1);
      open -= 1;
    }
  }
  return [...kept, ...answered].slice(-ATTEMPTS_KEPT);
}

/**
 * The window closed before the send: nothing can move any more. A release that was never sent stays with the
 * gateway's default (AT_MAX); one that was retrying is FAILED (it did not move, and now never will).
 */
function windowClosed(applying: VendorRelease, now: DateTime): Write {
  const ids = { orderId: applying.orderId, vendorId: applying.vendorId };
  const retried = (applying.sends ?? 0) > 0;
  const reason = retried
    ? `window closed at ${applying.maxEligibility} while retrying (${applying.sends} sends): ${applying.reason ?? 'no answer'}`
    : WINDOW_CLOSED_REASON;
  const release: VendorRelease = {
    ...applying, state: retried ? 'FAILED' : 'AT_MAX', sendAt: null, releaseKey: null, sending: null, reason,
    version: applying.version + 1, updatedAt: formatInstant(now, INDIA_TIME),
  };
  const effects: Effect[] = retried ? [{ kind: 'publish', event: { type: 'vendor.release_failed', detail: { ...ids, reason, retryable: false } } }] : [];
  effects.push(audit('planned', release, now, SYSTEM_ACTOR, { cause: 'window_closed', from: 'APPLYING', to: release.state, reason }));
  return { kind: 'write', release, expectedVersion: applying.version, effects };
}

/** Seconds to wait before send number n+1: doubling from 30 s, at most 30 min, never less than the gateway asked. */
export function retryDelaySeconds(sends: number, retryAfterSeconds?: number): number {
  const backoff = Math.min(2 ** Math.min(sends, 20) * BACKOFF_BASE_SECONDS, BACKOFF_CAP_SECONDS);
  return Math.max(backoff, retryAfterSeconds ?? 0);
}

export interface AnswerInput {
  /** The claimed release as sent (from `afterClaim`). */
  release: VendorRelease;
  /** The eligibility that was sent, and its gateway form. */
  sent: DateTime;
  request: string;
  result: { attempts: Attempt[]; final: GatewayAnswer };
  settings: Settings;
  now: DateTime;
  keyOf: ReleaseKeyOf;
}

/** Answers in a row that left open whether the PUT applied, after which the retry backs off instead of going at once. */
const UNKNOWN_AT_ONCE = 3;

/**
 * An answer that leaves open whether the PUT applied (timeout, reset, 5xx) is retried through a new claim, which reads
 * the gateway's order recon before it sends: at once for the first ones in a row, then with the usual backoff.
 */
function classifyUncertain(classified: AnswerClass, final: GatewayAnswer, attempts: Attempt[]): AnswerClass {
  if (classified.kind !== 'retryable' || !answerUnknown(final)) return classified;
  let inARow = 0;
  for (let i = attempts.length - 1; i >= 0 && outcomeUnknown(attempts[i]); i--) inARow += 1;
  return {
    ...classified,
    reason: `${classified.reason} (it may have been applied: the gateway's order recon is read before anything is sent again)`,
    recompute: inARow < UNKNOWN_AT_ONCE,
  };
}

function budgetMs(settings: Settings, from: Moment): number {
  return shiftMoment(from, settings.retryBudget ?? DEFAULT_RETRY_BUDGET, 'retryBudget', 1).ms - from.ms;
}

/**
 * The release after one send's answer. FAILED is final only when the gateway's answer is final or the window closed:
 * retryable answers are retried at a capped rate while the window is open, and "Order ID does not exist" (the gateway
 * may learn of the order late) within the settings' retry budget.
 */
export function answer(input: AnswerInput): Write {
  const { release, sent, result, settings, now } = input;
  const sends = (release.sends ?? 0) + 1;
  const version = release.version + 1;
  const ids = { orderId: release.orderId, vendorId: release.vendorId };
  const updated: VendorRelease = {
    ...release,
    attempts: withAnswers(release.attempts, result.attempts),
    sends,
    sending: null,
    version,
    updatedAt: formatInstant(now, INDIA_TIME),
  };
  const classified = classifyUncertain(classifyAnswer(result.final), result.final, updated.attempts);
  /*
   * One audit record per gateway attempt; the last one also carries what the answer made of the release (one record
   * where an attempt and a separate planning record cost two writes and two index writes).
   */
  const finish = (next: VendorRelease, effects: Effect[]): Write => {
    const outcome = { from: 'APPLYING', to: next.state, reason: next.reason, sendAt: next.sendAt };
    const attemptAudits = answerAudits(release, result.attempts, sends, now, { meaning: classified, ...outcome });
    const outcomeAudit = attemptAudits.length > 0 ? [] : [audit('planned', next, now, SYSTEM_ACTOR, { cause: 'answer', ...outcome })];
    return { kind: 'write', release: next, expectedVersion: release.version, effects: [...attemptAudits, ...effects, ...outcomeAudit] };
  };
  const failed = (reason: string, extra: Effect[] = []): Write => finish(
    { ...updated, state: 'FAILED', sendAt: null, releaseKey: null, reason, orderNotFoundSince: null },
    [...extra, { kind: 'publish', event: { type: 'vendor.release_failed', detail: { ...ids, reason, retryable: false } } }],
  );

  switch (classified.kind) {
    case 'applied': {
      const applied = appliedAt(updated, sent, settings, (eligibility) => `applied: eligibility ${eligibility} accepted by the gateway at send ${sends}`);
      return finish(applied.release, [applied.event]);
    }
    case 'terminal':
      return failed(classified.reason);
    case 'config_drift':
      return failed(classified.reason, [{ kind: 'publish', event: { type: 'config.drift_detected', detail: { ...ids, message: classified.reason } } }]);
    case 'retryable':
      return retry(updated, classified, input, finish, failed);
  }
}

/** The release APPLIED at `sent`, with its predicted settlement, and the event that says so. */
function appliedAt(updated: VendorRelease, sent: DateTime, settings: Settings, reasonOf: (eligibility: IsoInstant) => string): { release: VendorRelease; event: Effect } {
  const zone = settings.timezone;
  const eligibility = formatInstant(sent, zone);
  const predicted = formatInstant(predictSettlement(sent, updated.scheduleOption, calendarOf(settings)), zone);
  return {
    release: {
      ...updated, state: 'APPLIED', appliedEligibility: eligibility, predictedSettlement: predicted, sendAt: null, releaseKey: null,
      sending: null, orderNotFoundSince: null, reason: reasonOf(eligibility),
    },
    event: { kind: 'publish', event: { type: 'vendor.release_applied', detail: { orderId: updated.orderId, vendorId: updated.vendorId, eligibility, predictedSettlement: predicted } } },
  };
}

/**
 * One `gateway_attempt` record per answered attempt (phase "answered"); the last also carries `last`, what the answer
 * made of the release (one record where an attempt and a separate planning record cost two writes).
 */
function answerAudits(release: VendorRelease, attempts: Attempt[], send: number, now: DateTime, last: Record<string, unknown>): Effect[] {
  return attempts.map((a, i) => audit('gateway_attempt', release, now, SYSTEM_ACTOR, {
    phase: 'answered',
    send,
    attempt: i + 1,
    request: { eligibility: a.request, at: a.at },
    answer: { httpStatus: a.httpStatus, status: a.status, subCode: a.subCode, message: a.message },
    ...(i === attempts.length - 1 ? last : {}),
  }));
}

/** What the gateway's order recon said of one vendor: the eligibility it holds (null: none), or why it was not read. */
export type ReconRead =
  | { read: true; gatewayEligibility: IsoInstant | null; at: IsoInstant }
  | { read: false; reason: string };

/** The unresolved date the recon holds (see unresolvedRequests), or null. */
export function reconHolds(release: VendorRelease, gatewayEligibility: IsoInstant | null, also: string[] = []): string | null {
  if (gatewayEligibility === null) return null;
  const held = formatGatewayDate(parseInstant(gatewayEligibility, 'settlement_eligibility_date'));
  return [...unresolvedRequests(release), ...also].includes(held) ? held : null;
}

/**
 * The release APPLIED at the date the recon holds: the last attempt that sent it without a clear answer is marked
 * confirmed from the recon (status OK, the transport's words kept in its message); a send that left no attempt (a
 * claim of an older version) gets one. One `gateway_attempt` record (phase "confirmed_from_recon") says so.
 */
function confirmHeld(
  release: VendorRelease, held: string, recon: { gatewayEligibility: IsoInstant; at: IsoInstant },
  lost: SendInFlight | null, settings: Settings, now: DateTime, why: string,
): { release: VendorRelease; effects: Effect[] } {
  const confirmation = { at: recon.at, eligibility: recon.gatewayEligibility };
  const said = `confirmed from the gateway's order recon at ${recon.at}: eligibility ${recon.gatewayEligibility} held`;
  const attempts = [...release.attempts];
  let index = -1;
  for (let i = attempts.length - 1; i >= 0 && index < 0; i--) if (attempts[i].request === held && outcomeUnknown(attempts[i])) index = i;
  const confirmed: Attempt = index >= 0
    ? { ...attempts[index], status: 'OK', message: `${attempts[index].message ? `${attempts[index].message}; ` : ''}${said}`, confirmedFromRecon: confirmation }
    : { at: lost?.claimedAt ?? recon.at, request: held, httpStatus: null, status: 'OK', subCode: null, message: `no answer recorded; ${said}`, confirmedFromRecon: confirmation };
  // A send whose sender was lost never had its answer recorded, so it is counted now; one that timed out was counted.
  const uncounted = index < 0 || attempts[index].status === SENT_STATUS || attempts[index].status === NO_ANSWER_STATUS;
  const sends = (release.sends ?? 0) + (uncounted ? 1 : 0);
  if (index >= 0) attempts[index] = confirmed;
  else attempts.push(confirmed);
  const updated: VendorRelease = { ...release, attempts: attempts.slice(-ATTEMPTS_KEPT), sends };
  const applied = appliedAt(updated, parseInstant(recon.gatewayEligibility, 'settlement_eligibility_date').setZone(INDIA_TIME), settings,
    (eligibility) => `applied: eligibility ${eligibility} found at the gateway's order recon after send ${sends} ${why}; not sent again`);
  return {
    release: applied.release,
    effects: [applied.event, audit('gateway_attempt', release, now, SYSTEM_ACTOR, {
      phase: 'confirmed_from_recon', send: sends, request: { eligibility: held, at: confirmed.at },
      answer: { source: 'recon', at: recon.at, gatewayEligibility: recon.gatewayEligibility, status: 'OK', message: said },
      from: release.state, to: 'APPLIED', reason: applied.release.reason,
    })],
  };
}

export interface ReconInput {
  /** The release as this invocation's take-over claim wrote it (APPLYING). */
  release: VendorRelease;
  /** The send of the claim that was taken over, if any: its sender may have died after the gateway applied it. */
  lost: SendInFlight | null;
  /** The vendor's settlement eligibility as the gateway's order recon shows it; null when it shows none. */
  gatewayEligibility: IsoInstant | null;
  /** When the recon was read. */
  at?: IsoInstant;
  settings: Settings;
  now: DateTime;
}

/**
 * Before a claim sends: when the gateway already holds a date that an earlier send of this release carried without a
 * clear answer (its sender was lost, or it timed out), that send arrived and the release is APPLIED from the recon,
 * without a second PUT. Null when the recon holds none of them: the caller sends.
 */
export function confirmFromRecon(input: ReconInput): Write | null {
  const { release, lost, gatewayEligibility, settings, now } = input;
  const held = reconHolds(release, gatewayEligibility, lost ? [lost.request] : []);
  if (held === null || gatewayEligibility === null) return null;
  const why = lost ? `(claimed at ${lost.claimedAt}) lost its answer` : 'had no clear answer';
  const recon = { gatewayEligibility, at: input.at ?? formatInstant(now, INDIA_TIME) };
  const confirmed = confirmHeld(release, held, recon, lost, settings, now, why);
  return {
    kind: 'write',
    release: { ...confirmed.release, version: release.version + 1, updatedAt: formatInstant(now, INDIA_TIME) },
    expectedVersion: release.version,
    effects: confirmed.effects,
  };
}

export interface ReconUnreadInput {
  /** The claimed release (APPLYING) with a send of unknown outcome. */
  release: VendorRelease;
  /** Why the recon could not be read. */
  reason: string;
  settings: Settings;
  now: DateTime;
  keyOf: ReleaseKeyOf;
}

/**
 * A claim that finds a send of unknown outcome and cannot read the gateway's order recon sends nothing (the send may
 * have arrived): the release is retried later with the usual backoff while the window is open, and that claim reads
 * the recon first.
 */
export function reconUnread(input: ReconUnreadInput): Write {
  const { release, settings, now, keyOf } = input;
  const ids = { orderId: release.orderId, vendorId: release.vendorId };
  const updated: VendorRelease = { ...release, sending: null, version: release.version + 1, updatedAt: formatInstant(now, INDIA_TIME) };
  const classified = {
    kind: 'retryable' as const,
    reason: `the gateway's order recon could not be read (${input.reason}); an earlier send without a clear answer may have arrived, so nothing is sent before the recon is read`,
  };
  const finish = (next: VendorRelease, effects: Effect[]): Write => ({
    kind: 'write', release: next, expectedVersion: release.version,
    effects: [...effects, audit('planned', next, now, SYSTEM_ACTOR, { cause: 'recon_unread', from: 'APPLYING', to: next.state, reason: next.reason, sendAt: next.sendAt })],
  });
  const failed = (reason: string): Write => finish(
    { ...updated, state: 'FAILED', sendAt: null, releaseKey: null, reason },
    [{ kind: 'publish', event: { type: 'vendor.release_failed', detail: { ...ids, reason, retryable: false } } }],
  );
  const asAnswer: AnswerInput = {
    release, sent: now, request: '', result: { attempts: [], final: { kind: 'network', message: input.reason } }, settings, now, keyOf,
  };
  return retry(updated, classified, asAnswer, finish, failed);
}

function retry(
  updated: VendorRelease,
  classified: Extract<AnswerClass, { kind: 'retryable' }>,
  input: AnswerInput,
  finish: (next: VendorRelease, effects: Effect[]) => Write,
  failed: (reason: string) => Write,
): Write {
  const { settings, now, keyOf } = input;
  const sends = updated.sends ?? 1;
  let notFoundSince: string | null = null;
  if (classified.budgeted) {
    notFoundSince = updated.orderNotFoundSince ?? formatInstant(now, settings.timezone);
    const since = parseMoment(notFoundSince, 'orderNotFoundSince');
    const budget = budgetMs(settings, since);
    if (now.toMillis() - since.ms >= budget) {
      return failed(`gave up after ${sends} sends: ${classified.reason} since ${notFoundSince} (retry budget ${settings.retryBudget ?? DEFAULT_RETRY_BUDGET})`);
    }
  }
  // "In the past" is retried at once with a later time (prepareSend recomputes it); other transient answers back off.
  let retryAt = classified.recompute ? now.toMillis() : now.toMillis() + retryDelaySeconds(sends, classified.retryAfterSeconds) * 1000;
  const max = parseMoment(updated.maxEligibility, 'maxEligibility').ms;
  const lastChance = max - LAST_CHANCE_MS;
  if (nextGatewayMinuteMs(retryAt) > max) {
    // The backoff would pass the window's end: one last send just before it, if there is still time for one.
    if (lastChance <= now.toMillis() || nextGatewayMinuteMs(lastChance) > max) {
      return failed(`window closes at ${updated.maxEligibility} before another send: ${classified.reason}`);
    }
    retryAt = lastChance;
  }
  const retryText = formatEpochMs(retryAt, settings.timezone);
  const releaseKey = keyOf(updated.orderId, updated.vendorId, updated.version);
  const next: VendorRelease = {
    ...updated, state: 'SCHEDULED', sendAt: retryText, releaseKey, orderNotFoundSince: notFoundSince,
    reason: `retrying: ${classified.reason}; send ${sends + 1} at ${retryText}`,
  };
  const command = { orderId: next.orderId, vendorId: next.vendorId, releaseKey };
  // No event for a retry: subscribers hear about a release once it is applied or has failed for good.
  return finish(next, [retryAt <= now.toMillis() ? { kind: 'enqueue', command } : { kind: 'schedule', command, at: retryText }]);
}

// ---------------------------------------------------------------------------------------------------------------
// Settled

/** The order recon read when a settlement comes for a release with a send of unknown outcome, and the settings. */
export interface SettleRecon {
  gatewayEligibility: IsoInstant | null;
  at: IsoInstant;
  settings: Settings;
}

/**
 * The gateway reported the vendor's settlement: SETTLED, keeping what the release was before. No audit effect: the
 * received webhook's own audit record says what it settled. A release with a send of unknown outcome (APPLYING after
 * its sender was lost, or retrying after a timeout) whose date the order recon holds was applied: it settles from
 * APPLIED, with its eligibility, its attempt confirmed from the recon and `vendor.release_applied`.
 */
/**
 * Why a release is SETTLED, keeping why it was what it was: a cancelled order that the gateway settled anyway says so
 * (the money moved at the gateway's default date although nothing was released), as does one never moved.
 */
function settledReason(current: VendorRelease, at: string): string {
  // What an applied release was is in its fields already; any other state's reason says why nothing moved it.
  const before = current.reason && current.state !== 'APPLIED' ? `: ${current.reason}` : '';
  if (current.state === 'CANCELLED') {
    return `settled by the gateway at ${at} although the order was cancelled (was CANCELLED${before}): the money moved at the gateway's default date; recover it from the vendor or refund it`;
  }
  return `settled by the gateway at ${at} (was ${current.state}${before})`;
}

export function settle(current: VendorRelease, settledAt: DateTime, now: DateTime, recon?: SettleRecon): Transition {
  if (current.state === 'SETTLED') return { kind: 'unchanged', release: current };
  const effects: Effect[] = [];
  let before = current;
  const lost = current.state === 'APPLYING' ? current.sending ?? null : null;
  const held = recon && current.state !== 'APPLIED' ? reconHolds(current, recon.gatewayEligibility) : null;
  if (recon && held !== null && recon.gatewayEligibility !== null) {
    const confirmed = confirmHeld(current, held, { gatewayEligibility: recon.gatewayEligibility, at: recon.at }, lost, recon.settings, now,
      'had no clear answer before the gateway settled it');
    before = confirmed.release;
    effects.push(...confirmed.effects);
  }
  const release: VendorRelease = {
    ...before,
    state: 'SETTLED',
    settledAt: formatInstant(settledAt, INDIA_TIME),
    settledFrom: { state: before.state, appliedEligibility: before.appliedEligibility, predictedSettlement: before.predictedSettlement },
    sendAt: null,
    releaseKey: null,
    sending: null,
    reason: settledReason(before, formatInstant(settledAt, INDIA_TIME)),
    version: current.version + 1,
    updatedAt: formatInstant(now, INDIA_TIME),
  };
  // The gateway settled before Holdback's send: the send has nothing left to move.
  if (current.state === 'SCHEDULED' && current.releaseKey) effects.push({ kind: 'cancel_schedule', releaseKey: current.releaseKey });
  return { kind: 'write', release, expectedVersion: current.version, effects };
}

// ---------------------------------------------------------------------------------------------------------------
// What-if planning (previews, the bench): the plan's release without bookkeeping or effects

/**
 * The release as `plan` would make it (version and key untouched): `current` itself when nothing changes or it can
 * no longer change. Previews compare it with the release as it is.
 */
export function planRelease(input: Omit<PlanInput, 'keyOf' | 'cause' | 'hold'> & { hold?: VendorHold | null }): VendorRelease {
  const full: PlanInput = { ...input, hold: input.hold ?? null, keyOf: () => '', cause: { kind: 'event', actor: null } };
  const { current } = input;
  if (current && staysAsIs(current, input.repin)) return current;
  const next = decide(baseOf(current, full), full, current, 0);
  return current && sameRelease(current, next) ? current : { ...next, releaseKey: current?.releaseKey ?? null };
}
