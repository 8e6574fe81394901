/**
 * Sending a release: the claim, the plan brought up to date after it, the attempt recorded before the PUT leaves, and
 * the release after the gateway's answer (applied, failed, or retried with backoff while the window is open).
 */
import { INDIA_OFFSET_MINUTES, INDIA_TIME, Instant, gatewayDateText, wholeSecondAt } from '../instant';
import { classifyAnswer } from '../gateway-answer';
import { predictSettlement } from '../schedule-options';
import { DEFAULT_RETRY_BUDGET, calendarOf } from '../settings';
import { backoffDelayMs, type Backoff } from '../../../kit/backoff';
import type { AnswerClass, Attempt, Clamp, GatewayAnswer, ReleaseCommand, Settings, VendorRelease } from '../types';
import { auditOf, baseOf, clampEligibility, decide, nextGatewayMinuteMs, type EligibilityWindow, type PlanInput } from './plan';
import { ATTEMPTS_KEPT, NO_ANSWER_STATUS, SENT_STATUS, answerUnknown, outcomeUnknown, withAnswers } from './attempts';
import { SYSTEM_ACTOR, audit, because, commit, isPending, moved, sameRelease, stamp, waitsForExposure, type Effect, type Reason, type ReleaseKeyOf, type Transition, type Write } from './states';

/** Retry backoff: doubling from 30 s, capped so that a long fault is retried at least every 30 minutes. */
const BACKOFF_BASE_SECONDS = 30;
export const BACKOFF_CAP_SECONDS = 30 * 60;
const RETRY_BACKOFF: Backoff = { firstMs: BACKOFF_BASE_SECONDS * 1000, capMs: BACKOFF_CAP_SECONDS * 1000, jitter: 0 };
/** How long an APPLYING release may stay so before the sweep assumes its sender was lost and re-drives it. */
export const APPLYING_DEADLINE_MS = 2 * 60_000;
/** Scheduler fires with one-minute precision; a command arriving a little early is still this release's send. */
const EARLY_FIRE_MS = 60_000;
/** A last retry is placed this long before the window closes, so that its "next minute" is still inside it. */
const LAST_CHANCE_MS = 2 * 60_000;
/** Answers in a row that left open whether the PUT applied, after which the retry backs off instead of going at once. */
const UNKNOWN_AT_ONCE = 3;

/** Why this command must not send now, or null when it must. */
function whyNotDue(release: VendorRelease, command: ReleaseCommand, now: Instant): string | null {
  if (release.releaseKey !== command.releaseKey) return `release key ${command.releaseKey} is not the pending one (state ${release.state})`;
  if (!release.sendAt) return `nothing to send in state ${release.state}`;
  const sendAt = release.sendAt.ms;
  if (isPending(release.state) || waitsForExposure(release)) return sendAt <= now.ms + EARLY_FIRE_MS ? null : `not due before ${release.sendAt}`;
  if (release.state === 'APPLYING') {
    return sendAt < now.ms ? null : `being applied by another invocation until ${release.sendAt}`;
  }
  return `nothing to send in state ${release.state}`;
}

/** The claim's deadline, renewed while the claimant works. */
function deadline(now: Instant): Instant {
  return stamp(now.plusMs(APPLYING_DEADLINE_MS));
}

/**
 * Claims a due release for sending: APPLYING with a deadline after which the sweep assumes the sender was lost. Only
 * the claimant may send, and it reads the order and the hold only after this write (see `afterClaim`).
 */
export function claim(current: VendorRelease, command: ReleaseCommand, now: Instant): Write | { kind: 'skip'; reason: string } {
  const notDue = whyNotDue(current, command, now);
  if (notDue) return { kind: 'skip', reason: notDue };
  const release: VendorRelease = {
    ...current,
    state: 'APPLYING',
    // An attempt still "SENT" here was left by a sender that was lost before its answer was recorded.
    attempts: current.attempts.map((a) => (a.status === SENT_STATUS
      ? { ...a, status: NO_ANSWER_STATUS, message: `no answer recorded: its sender was lost (taken over at ${stamp(now)})` }
      : a)),
    // What leaves is recorded by `recordSend` just before it leaves; a lost sender's is in its attempts.
    sending: null,
    // A release claimed out of an exposure-cap wait is no longer waiting (its claim checks the cap again).
    ...(current.waitReason ? { waitReason: null } : {}),
    sendAt: deadline(now),
    version: current.version + 1,
    updatedAt: stamp(now),
  };
  return moved(current, 'claim', release, current.version, []);
}

export type PreparedSend =
  | { eligibility: Instant; request: string; clamp: Clamp | null }
  | { skip: 'window_closed' };

/** The eligibility to send now: the target while it is still ahead, else the next gateway minute, never past max. */
export function prepareSend(release: VendorRelease, now: Instant): PreparedSend {
  const window: EligibilityWindow = {
    transactionTime: release.transactionTime,
    maxEligibility: release.maxEligibility,
  };
  const target = release.targetEligibility ?? window.transactionTime;
  const result = clampEligibility(target, window, now);
  if (result.eligibility === null) return { skip: 'window_closed' };
  // A target already clamped into the window keeps its original request on the record.
  const clamp = result.clamp
    ? { ...result.clamp, requested: release.clamp?.requested ?? result.clamp.requested }
    : release.clamp;
  return { eligibility: result.eligibility.inOffset(INDIA_OFFSET_MINUTES), request: gatewayDateText(result.eligibility), clamp };
}

/** The claimed release, its plan brought up to date, and what to send (`recordSend` writes it before the PUT leaves). */
export interface SendNow {
  kind: 'send';
  release: VendorRelease;
  eligibility: Instant;
  request: string;
}

/**
 * After the claim, the claimant plans again from the order and the hold as read AFTER its claim: a dispute, a
 * cancellation or a hold stored before that read is always seen here (write, then read), so no money of a disputed or
 * held vendor leaves. Only a plan that still says "send now" sends; anything else is written from the claim.
 */
export function afterClaim(input: PlanInput & { current: VendorRelease }): SendNow | Transition {
  const applying = input.current;
  const reopened: VendorRelease = { ...applying, state: 'PLANNED', sendAt: stamp(input.now) };
  const claimed: PlanInput = { ...input, cause: { kind: 'claim', actor: SYSTEM_ACTOR } };
  const decided = decide(baseOf(reopened, claimed), claimed, reopened, EARLY_FIRE_MS);
  if (decided.state !== 'PLANNED') return commit(applying, decided, 'replan_after_claim', input.now, input.keyOf, [auditOf(applying, decided, claimed)]);
  const release: VendorRelease = {
    ...applying, targetEligibility: decided.targetEligibility, clamp: decided.clamp, plannedSendAt: decided.plannedSendAt,
    reason: decided.reason, reasonCode: decided.reasonCode,
  };
  const send = prepareSend(release, input.now);
  if ('skip' in send) return windowClosed(release, input.now);
  return { kind: 'send', release: { ...release, clamp: send.clamp }, eligibility: send.eligibility, request: send.request };
}

/**
 * A claimed early release that would pass the policy's maxExposure (contract 6.4): WAITING with reason
 * `exposure_cap` and the figures in its message, claimed again at `untilMs` (the instant the blocking exposure falls
 * enough, or max eligibility, where the gateway settles it anyway) under a new key.
 */
export function waitForExposure(input: { current: VendorRelease; message: string; untilMs: number; now: Instant; keyOf: ReleaseKeyOf; figures: Record<string, unknown> }): Write {
  const { current, now } = input;
  const version = current.version + 1;
  const releaseKey = input.keyOf(current.orderId, current.vendorId, version);
  const untilMs = Math.max(input.untilMs, now.ms);
  const release: VendorRelease = {
    ...current, state: 'WAITING', waitReason: 'exposure_cap', ...because({ code: 'exposure_cap', message: input.message }), sending: null, exposure: null,
    sendAt: wholeSecondAt(untilMs, INDIA_TIME), releaseKey, version, updatedAt: stamp(now),
  };
  const command = { orderId: current.orderId, vendorId: current.vendorId, releaseKey };
  return moved(current, 'exposure_wait', release, current.version, [
    { kind: 'schedule', command, at: release.sendAt! },
    audit('planned', release, now, SYSTEM_ACTOR, { cause: 'claim', from: current.state, to: 'WAITING', reason: input.message, waitReason: 'exposure_cap', sendAt: release.sendAt, ...input.figures }),
  ]);
}

export interface RecordSendInput {
  /** The release as last written by this invocation (APPLYING). */
  release: VendorRelease;
  request: string;
  /** The try within this send (a 429 is tried again within the send), and when the gateway client stamps it. */
  attempt: number;
  at: Instant;
  now: Instant;
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
    sending: { request, claimedAt: release.sending?.claimedAt ?? stamp(now) },
    sendAt: deadline(now),
    version: release.version + 1,
    updatedAt: stamp(now),
  };
  return moved(release, 'record_send', next, release.version, [audit('gateway_attempt', release, now, SYSTEM_ACTOR, {
    phase: 'sent', send: (release.sends ?? 0) + 1, attempt, request: { eligibility: request, at },
  })]);
}

/**
 * The claim with its first attempt already on the record, in one conditional write instead of two: the attempt that
 * `prepareSend` makes of the release as stored, stamped `at` as the gateway client stamps it, with `exposureOf`'s
 * guess of the exposure the send path enters. The claimant still reads the order and the hold only after this write
 * (see `afterClaim`); when what it then sends is exactly this attempt (`sameFirstSend`), nothing more is written
 * before the PUT, and otherwise its next write starts again from the claim (a plan that does not send drops the
 * attempt: it never left). A sender lost after this write leaves its attempt on the record, as one lost after
 * `recordSend` does, so that the next claimant reads the gateway's order recon before it sends. Null: nothing to send.
 */
export function claimWithFirstSend(
  claimed: Write, input: { at: Instant; now: Instant; exposureOf: (release: VendorRelease, eligibility: Instant) => VendorRelease['exposure'] },
): Write | null {
  const send = prepareSend(claimed.release, input.now);
  if ('skip' in send) return null;
  const release: VendorRelease = { ...claimed.release, clamp: send.clamp };
  const sending: VendorRelease = { ...release, exposure: input.exposureOf(release, send.eligibility) ?? null };
  const recorded = recordSend({ release: sending, request: send.request, attempt: 1, at: input.at, now: input.now });
  return { ...claimed, release: { ...recorded.release, version: claimed.release.version } };
}

/**
 * Whether `stored`, written by `claimWithFirstSend`, already puts on the record what `recorded` (recordSend's first
 * attempt) would: the same release but for the moment each was made (the claim's deadline and stamps, the pending
 * attempt's `at`: the audit record carries the second the PUT left), its reason (the words of the plan made after the
 * claim) and its exposure's figures (a delivery moves their close; only the currency is read back from the release,
 * the ledger holds the entry). The caller goes on from `recorded`, so the answer's write stores those as today.
 */
export function sameFirstSend(stored: VendorRelease, recorded: VendorRelease): boolean {
  const pending = stored.attempts.at(-1);
  if (!stored.sending || !recorded.sending || pending?.status !== SENT_STATUS) return false;
  const attempts = recorded.attempts.map((a, i) => (i === recorded.attempts.length - 1 && a.status === SENT_STATUS ? { ...a, at: pending.at } : a));
  const asRecorded = { ...recorded, attempts, sendAt: stored.sendAt, sending: { ...recorded.sending, claimedAt: stored.sending.claimedAt } };
  return sameRelease(onRecordBeforePut(asRecorded), onRecordBeforePut(stored));
}

/** A release as sameFirstSend compares it: its reason and its exposure's figures left out. */
function onRecordBeforePut(release: VendorRelease): VendorRelease {
  return { ...release, reason: '', reasonCode: undefined, exposure: release.exposure ? { ...release.exposure, amount: '', closesAt: release.transactionTime } : null };
}

/**
 * The window closed before the send: nothing can move any more. A release that was never sent stays with the
 * gateway's default (AT_MAX); one that was retrying is FAILED (it did not move, and now never will).
 */
function windowClosed(applying: VendorRelease, now: Instant): Write {
  const ids = { orderId: applying.orderId, vendorId: applying.vendorId };
  const retried = (applying.sends ?? 0) > 0;
  const why = because(retried
    ? { code: 'window_closed_retrying', max: applying.maxEligibility.toText(), sends: applying.sends ?? 0, last: applying.reason }
    : { code: 'window_closed' });
  const release: VendorRelease = {
    ...applying, state: retried ? 'FAILED' : 'AT_MAX', sendAt: null, releaseKey: null, sending: null, ...why,
    version: applying.version + 1, updatedAt: stamp(now),
  };
  const effects: Effect[] = retried ? [{ kind: 'publish', event: { type: 'vendor.release_failed', detail: { ...ids, reason: why.reason, retryable: false } } }] : [];
  effects.push(audit('planned', release, now, SYSTEM_ACTOR, { cause: 'window_closed', from: 'APPLYING', to: release.state, reason: why.reason }));
  return moved(applying, 'window_closed', release, applying.version, effects);
}

/** Seconds to wait before send number n+1: doubling from 30 s, at most 30 min, never less than the gateway asked. */
export function retryDelaySeconds(sends: number, retryAfterSeconds?: number): number {
  // The one backoff (kit/backoff.ts), without jitter: a release's next send is a planned, audited instant.
  const backoff = backoffDelayMs(sends + 1, RETRY_BACKOFF, () => 0) / 1000;
  return Math.max(backoff, retryAfterSeconds ?? 0);
}

export interface AnswerInput {
  /** The claimed release as sent (from `afterClaim`). */
  release: VendorRelease;
  /** The eligibility that was sent, and its gateway form. */
  sent: Instant;
  request: string;
  result: { attempts: Attempt[]; final: GatewayAnswer };
  settings: Settings;
  now: Instant;
  keyOf: ReleaseKeyOf;
}

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

function budgetMs(settings: Settings, from: Instant): number {
  return from.plus(settings.retryBudget ?? DEFAULT_RETRY_BUDGET, 'retryBudget').ms - from.ms;
}

/** Writes a release after an answer (or an unread recon), with the outcome's audit and effects. */
export type Finish = (next: VendorRelease, effects: Effect[]) => Write;
/** Writes the release FAILED for `reason`, with `vendor.release_failed`. */
export type Fail = (reason: Reason) => Write;

/**
 * The release after one send's answer. FAILED is final only when the gateway's answer is final or the window closed:
 * retryable answers are retried at a capped rate while the window is open, and "Order ID does not exist" (the gateway
 * may learn of the order late) within the settings' retry budget.
 */
export function answer(input: AnswerInput): Write {
  const { release, sent, result, settings, now } = input;
  const sends = (release.sends ?? 0) + 1;
  const ids = { orderId: release.orderId, vendorId: release.vendorId };
  const updated: VendorRelease = {
    ...release, attempts: withAnswers(release.attempts, result.attempts), sends, sending: null, version: release.version + 1, updatedAt: stamp(now),
  };
  const classified = classifyUncertain(classifyAnswer(result.final), result.final, updated.attempts);
  /*
   * One audit record per gateway attempt; the last one also carries what the answer made of the release (one record
   * where an attempt and a separate planning record cost two writes and two index writes).
   */
  const finish: Finish = (next, effects) => {
    const outcome = { from: 'APPLYING', to: next.state, reason: next.reason, sendAt: next.sendAt };
    const attemptAudits = answerAudits(release, result.attempts, sends, now, { meaning: classified, ...outcome });
    const outcomeAudit = attemptAudits.length > 0 ? [] : [audit('planned', next, now, SYSTEM_ACTOR, { cause: 'answer', ...outcome })];
    return moved(release, 'answer', next, release.version, [...attemptAudits, ...effects, ...outcomeAudit]);
  };
  const failed = failing({ ...updated, orderNotFoundSince: null }, finish);

  switch (classified.kind) {
    case 'applied': {
      const applied = appliedAt(updated, sent, settings, (eligibility) => ({ code: 'applied', eligibility, send: sends }));
      return finish(applied.release, [applied.event]);
    }
    case 'terminal':
      return failed({ code: 'gateway_refused', message: classified.reason });
    case 'config_drift':
      return failed({ code: 'config_drift', message: classified.reason }, [{ kind: 'publish', event: { type: 'config.drift_detected', detail: { ...ids, message: classified.reason } } }]);
    case 'retryable':
      return retry(updated, classified, input, finish, failed);
  }
}

/** The release APPLIED at `sent`, with its predicted settlement, and the event that says so. */
export function appliedAt(updated: VendorRelease, sent: Instant, settings: Settings, reasonOf: (eligibility: string) => Reason): { release: VendorRelease; event: Effect } {
  const zone = settings.timezone;
  const eligibility = sent.in(zone).wholeSecond();
  const predicted = predictSettlement(sent, updated.scheduleOption, calendarOf(settings)).in(zone).wholeSecond();
  return {
    release: {
      ...updated, state: 'APPLIED', appliedEligibility: eligibility, predictedSettlement: predicted, sendAt: null, releaseKey: null,
      sending: null, orderNotFoundSince: null, ...because(reasonOf(eligibility.toText())),
    },
    event: { kind: 'publish', event: { type: 'vendor.release_applied', detail: { orderId: updated.orderId, vendorId: updated.vendorId, eligibility, predictedSettlement: predicted } } },
  };
}

/**
 * One `gateway_attempt` record per answered attempt (phase "answered"); the last also carries `last`, what the answer
 * made of the release (one record where an attempt and a separate planning record cost two writes).
 */
function answerAudits(release: VendorRelease, attempts: Attempt[], send: number, now: Instant, last: Record<string, unknown>): Effect[] {
  return attempts.map((a, i) => audit('gateway_attempt', release, now, SYSTEM_ACTOR, {
    phase: 'answered',
    send,
    attempt: i + 1,
    request: { eligibility: a.request, at: a.at },
    answer: { httpStatus: a.httpStatus, status: a.status, subCode: a.subCode, message: a.message },
    ...(i === attempts.length - 1 ? last : {}),
  }));
}

/** FAILED for good with `reason` and `vendor.release_failed` (after `extra` effects), written by `finish`. */
export function failing(updated: VendorRelease, finish: Finish): (reason: Reason, extra?: Effect[]) => Write {
  return (reason, extra = []) => {
    const why = because(reason);
    const detail = { orderId: updated.orderId, vendorId: updated.vendorId, reason: why.reason, retryable: false };
    return finish(
      { ...updated, state: 'FAILED', sendAt: null, releaseKey: null, ...why },
      [...extra, { kind: 'publish', event: { type: 'vendor.release_failed', detail } }],
    );
  };
}

/** A retryable answer (or an unread recon): SCHEDULED again with backoff while the window and the budget allow. */
export function retry(
  updated: VendorRelease,
  classified: Extract<AnswerClass, { kind: 'retryable' }>,
  input: Pick<AnswerInput, 'settings' | 'now' | 'keyOf'>,
  finish: Finish,
  failed: Fail,
): Write {
  const { settings, now, keyOf } = input;
  const sends = updated.sends ?? 1;
  let notFoundSince: Instant | null = null;
  if (classified.budgeted) {
    notFoundSince = updated.orderNotFoundSince ?? stamp(now);
    // Counted in the settings' zone (a budget of days is days there), and said so.
    const since = wholeSecondAt(notFoundSince.ms, settings.timezone);
    const sinceText = since.toText();
    if (now.ms - since.ms >= budgetMs(settings, since)) {
      return failed({ code: 'gave_up', sends, why: classified.reason, since: sinceText, budget: settings.retryBudget ?? DEFAULT_RETRY_BUDGET });
    }
  }
  // "In the past" is retried at once with a later time (prepareSend recomputes it); other transient answers back off.
  let retryAt = classified.recompute ? now.ms : now.ms + retryDelaySeconds(sends, classified.retryAfterSeconds) * 1000;
  const max = updated.maxEligibility.ms;
  const lastChance = max - LAST_CHANCE_MS;
  if (nextGatewayMinuteMs(retryAt) > max) {
    // The backoff would pass the window's end: one last send just before it, if there is still time for one.
    if (lastChance <= now.ms || nextGatewayMinuteMs(lastChance) > max) {
      return failed({ code: 'window_closes', max: updated.maxEligibility.toText(), why: classified.reason });
    }
    retryAt = lastChance;
  }
  const retryTime = wholeSecondAt(retryAt, settings.timezone);
  const releaseKey = keyOf(updated.orderId, updated.vendorId, updated.version);
  const next: VendorRelease = {
    ...updated, state: 'SCHEDULED', sendAt: retryTime, releaseKey, orderNotFoundSince: notFoundSince,
    ...because({ code: 'retrying', why: classified.reason, send: sends + 1, at: retryTime.toText() }),
  };
  const command = { orderId: next.orderId, vendorId: next.vendorId, releaseKey };
  // No event for a retry: subscribers hear about a release once it is applied or has failed for good.
  return finish(next, [retryAt <= now.ms ? { kind: 'enqueue', command } : { kind: 'schedule', command, at: retryTime }]);
}
