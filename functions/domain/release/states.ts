/**
 * The release machine's states and moves (contract section 5): the one table of which event moves a release in which
 * state to which states, with the predicates read off it (pending, unsent, final, manual release from); why a release
 * is in its state (a typed reason and its words); and what a transition returns (the release to write, with the
 * version it must replace, and the effects to run after the write), every move checked against the table.
 */
import { createHash } from 'node:crypto';
import { INDIA_TIME, Instant } from '../instant';
import {
  RELEASE_STATES, type HoldbackEvent, type ReasonCode, type ReleaseCommand, type ReleaseRule, type ReleaseState, type VendorRelease,
} from '../types';

/** What happens to a release. */
export type ReleaseEvent =
  /** The facts, the hold or the payment changed: planned again under the rule it is pinned to. */
  | 'plan'
  /** A policy applied to open orders: planned again under the new rule. */
  | 'repin'
  /** An operator's early release (from HELD only with `override`). */
  | 'manual_release'
  /** An operator's retry of a FAILED release. */
  | 'retry'
  /** A due send is claimed by its sender; an APPLYING one whose deadline passed is taken over. */
  | 'claim'
  /** The claimant's plan after its claim, when it no longer says "send now". */
  | 'replan_after_claim'
  /** The PUT is about to leave: the attempt is recorded first. */
  | 'record_send'
  /** The gateway's answer to a send. */
  | 'answer'
  /** The gateway's order recon holds a date sent without a clear answer: it was applied. */
  | 'recon_confirmed'
  /** The recon could not be read before a send of unknown outcome: nothing is sent, retried later. */
  | 'recon_unread'
  /** The window closed before the claimed send. */
  | 'window_closed'
  /** The gateway reported the settlement. */
  | 'settle'
  /** The claimed early release would pass the policy's maxExposure: it waits for exposure to fall (contract 6.4). */
  | 'exposure_wait';

/** A condition on the release beyond its state. */
export type Guard =
  /** An AT_MAX by its rule (not by a closed window or a lost dispute): a new rule may move it. */
  | 'at_max_by_rule'
  /** The operator asked to release despite the hold. */
  | 'override'
  /** A WAITING release that waits under an exposure cap (not for a delivery): claimed again at its sendAt. */
  | 'exposure_cap';

export interface Move {
  to: readonly ReleaseState[];
  guard?: Guard;
}

/** What a plan can make of a release. */
const PLANNED_TO: readonly ReleaseState[] = ['PLANNED', 'SCHEDULED', 'WAITING', 'HELD', 'AT_MAX', 'CANCELLED'];
const SETTLES: Move = { to: ['SETTLED'] };

/** State x event -> next states. A pair not in the table does not happen (the machine refuses or leaves it as is). */
export const TRANSITIONS: Readonly<Record<ReleaseState, Readonly<Partial<Record<ReleaseEvent, Move>>>>> = {
  PLANNED: {
    plan: { to: PLANNED_TO }, repin: { to: PLANNED_TO }, manual_release: { to: PLANNED_TO }, claim: { to: ['APPLYING'] }, settle: SETTLES,
  },
  SCHEDULED: {
    plan: { to: PLANNED_TO }, repin: { to: PLANNED_TO }, manual_release: { to: PLANNED_TO }, claim: { to: ['APPLYING'] }, settle: SETTLES,
  },
  WAITING: {
    plan: { to: PLANNED_TO }, repin: { to: PLANNED_TO }, manual_release: { to: PLANNED_TO }, claim: { to: ['APPLYING'], guard: 'exposure_cap' }, settle: SETTLES,
  },
  HELD: { plan: { to: PLANNED_TO }, repin: { to: PLANNED_TO }, manual_release: { to: PLANNED_TO, guard: 'override' }, settle: SETTLES },
  APPLYING: {
    claim: { to: ['APPLYING'] },
    replan_after_claim: { to: ['SCHEDULED', 'WAITING', 'HELD', 'AT_MAX', 'CANCELLED'] },
    record_send: { to: ['APPLYING'] },
    answer: { to: ['APPLIED', 'SCHEDULED', 'FAILED'] },
    recon_confirmed: { to: ['APPLIED'] },
    recon_unread: { to: ['SCHEDULED', 'FAILED'] },
    window_closed: { to: ['AT_MAX', 'FAILED'] },
    exposure_wait: { to: ['WAITING'] },
    settle: SETTLES,
  },
  APPLIED: { settle: SETTLES },
  AT_MAX: { repin: { to: PLANNED_TO, guard: 'at_max_by_rule' }, manual_release: { to: PLANNED_TO }, settle: SETTLES },
  CANCELLED: { settle: SETTLES },
  FAILED: { manual_release: { to: PLANNED_TO }, retry: { to: PLANNED_TO }, settle: SETTLES },
  SETTLED: {},
};

function passes(guard: Guard | undefined, release: Pick<VendorRelease, 'reasonCode'> | null, override: boolean): boolean {
  if (guard === undefined) return true;
  if (guard === 'override') return override;
  if (guard === 'exposure_cap') return release?.reasonCode === 'exposure_cap';
  return release?.reasonCode === 'at_max_rule';
}

/** Whether `event` moves a release in `state` at all (its guard passed). */
export function allows(state: ReleaseState, event: ReleaseEvent, release: Pick<VendorRelease, 'reasonCode'> | null = null, override = false): boolean {
  const move = TRANSITIONS[state][event];
  return move !== undefined && passes(move.guard, release, override);
}

function statesWhere(test: (row: Readonly<Partial<Record<ReleaseEvent, Move>>>) => boolean): ReadonlySet<ReleaseState> {
  return new Set(RELEASE_STATES.filter((state) => test(TRANSITIONS[state])));
}

/** States that wait for a send at `sendAt` under `releaseKey`: a claim takes them (not a take-over of APPLYING). */
const PENDING = statesWhere((row) => row.claim !== undefined && row.claim.guard === undefined && row.record_send === undefined);
/** States a plan moves (not yet sent, not ended). */
const PLANNABLE = statesWhere((row) => row.plan !== undefined);
/** States after which nothing more is sent: no plan, no claim, no answer can move them any more. */
const FINAL = statesWhere((row) => row.plan === undefined && row.claim === undefined && row.answer === undefined);
/** States a manual release is allowed from without override, in the table's order. */
export const MANUAL_FROM: readonly ReleaseState[] = RELEASE_STATES.filter((state) => {
  const move = TRANSITIONS[state].manual_release;
  return move !== undefined && move.guard === undefined;
});

/** States that wait for a send at `sendAt` under `releaseKey`. */
export function isPending(state: ReleaseState): boolean {
  return PENDING.has(state);
}

/** States after which nothing more is sent to the gateway for this order and vendor. */
export function isFinal(state: ReleaseState): boolean {
  return FINAL.has(state);
}

/** Nothing more may be planned for it: it is being sent, was sent, or reached an end. */
export function isSentOrFinal(state: ReleaseState): boolean {
  return !PLANNABLE.has(state);
}

/** Not sent yet and still open to a plan: what a hold, an unhold and a policy replan look at. */
export function isUnsent(release: Pick<VendorRelease, 'state' | 'reasonCode'>): boolean {
  return allows(release.state, 'repin', release);
}

/** A WAITING release under an exposure cap (contract 6.4): claimed again at its `sendAt` (a risk window closes, or max eligibility). */
export function waitsForExposure(release: Pick<VendorRelease, 'state' | 'reasonCode' | 'sendAt'>): boolean {
  return TRANSITIONS[release.state].claim?.guard === 'exposure_cap' && allows(release.state, 'claim', release) && release.sendAt !== null;
}

/** A write the table does not allow is a defect of the machine: it is never stored. */
export function checkMove(from: ReleaseState | null, event: ReleaseEvent, to: ReleaseState): void {
  if (from === null ? PLANNED_TO.includes(to) : TRANSITIONS[from][event]?.to.includes(to)) return;
  throw new Error(`release transition ${from ?? 'new'} --${event}--> ${to} is not in the TRANSITIONS table`);
}

// Why a release is in its state: a typed reason (the code behaviour is keyed on) and the words made from it.

/** A reason with the details its words need. */
export type Reason =
  | { code: 'planned'; why: string; target: string; clamp: string; timing: string }
  | { code: 'retrying'; why: string; send: number; at: string }
  | { code: 'waiting_delivery'; why: string }
  | { code: 'vendor_hold'; actor: string; at: string; why: string }
  | { code: 'dispute' }
  | { code: 'at_max_rule'; rule: ReleaseRule; max: string }
  | { code: 'window_closed' }
  | { code: 'customer_won' }
  | { code: 'cancelled'; at: string }
  | { code: 'applied'; eligibility: string; send: number }
  | { code: 'applied_from_recon'; eligibility: string; send: number; why: string }
  | { code: 'gateway_refused'; message: string }
  | { code: 'config_drift'; message: string }
  | { code: 'gave_up'; sends: number; why: string; since: string; budget: string }
  | { code: 'window_closes'; max: string; why: string }
  | { code: 'window_closed_retrying'; max: string; sends: number; last: string | null }
  | { code: 'settled'; at: string; state: ReleaseState; before: string | null }
  | { code: 'settled_cancelled'; at: string; before: string | null }
  /** An early release that would pass the policy's maxExposure (contract 6.4): the words carry the figures. */
  | { code: 'exposure_cap'; message: string };

export function ruleText(rule: ReleaseRule): string {
  return 'delay' in rule ? `rule ${rule.kind} ${rule.delay}` : `rule ${rule.kind}`;
}

const CUSTOMER_WON_TEXT = 'dispute closed customer_won: no early release';
const WINDOW_CLOSED_TEXT = 'window closed';

/** The words of a reason, as the outcome shows them. */
export function reasonText(reason: Reason): string {
  switch (reason.code) {
    case 'planned': return `${reason.why}: target ${reason.target}${reason.clamp}; ${reason.timing}`;
    case 'retrying': return `retrying: ${reason.why}; send ${reason.send} at ${reason.at}`;
    case 'waiting_delivery': return `waiting for the delivery (${reason.why})`;
    case 'vendor_hold': return `vendor hold by ${reason.actor} at ${reason.at}: ${reason.why}`;
    case 'dispute': return 'dispute open';
    case 'at_max_rule': return `${ruleText(reason.rule)}: no update, the gateway settles from max eligibility ${reason.max}`;
    case 'window_closed': return WINDOW_CLOSED_TEXT;
    case 'customer_won': return CUSTOMER_WON_TEXT;
    case 'cancelled': return `order cancelled before the release was sent (cancelled at ${reason.at})`;
    case 'applied': return `applied: eligibility ${reason.eligibility} accepted by the gateway at send ${reason.send}`;
    case 'applied_from_recon':
      return `applied: eligibility ${reason.eligibility} found at the gateway's order recon after send ${reason.send} ${reason.why}; not sent again`;
    case 'gateway_refused': case 'config_drift': case 'exposure_cap': return reason.message;
    case 'gave_up': return `gave up after ${reason.sends} sends: ${reason.why} since ${reason.since} (retry budget ${reason.budget})`;
    case 'window_closes': return `window closes at ${reason.max} before another send: ${reason.why}`;
    case 'window_closed_retrying':
      return `window closed at ${reason.max} while retrying (${reason.sends} sends): ${reason.last ?? 'no answer'}`;
    case 'settled': return `settled by the gateway at ${reason.at} (was ${reason.state}${reason.before ? `: ${reason.before}` : ''})`;
    case 'settled_cancelled':
      return `settled by the gateway at ${reason.at} although the order was cancelled (was CANCELLED${reason.before ? `: ${reason.before}` : ''}): `
        + 'the money moved at the gateway\'s default date; recover it from the vendor or refund it';
  }
}

/** The release's reason fields for a reason: the code and its words. */
export function because(reason: Reason): { reasonCode: ReasonCode; reason: string } {
  return { reasonCode: reason.code, reason: reasonText(reason) };
}

/**
 * The code of a release stored before codes were kept, from its state and words. Only the item mapping calls it (old
 * items at the edge); the machine reads `reasonCode`.
 */
export function reasonCodeOf(release: Pick<VendorRelease, 'state' | 'reason' | 'holdReason' | 'waitReason'>): ReasonCode {
  const text = release.reason ?? '';
  switch (release.state) {
    case 'PLANNED': case 'SCHEDULED': case 'APPLYING': return text.startsWith('retrying') ? 'retrying' : 'planned';
    case 'WAITING': return release.waitReason === 'exposure_cap' ? 'exposure_cap' : 'waiting_delivery';
    case 'HELD': return release.holdReason === 'vendor_hold' || text.startsWith('vendor hold by') ? 'vendor_hold' : 'dispute';
    case 'AT_MAX': return text === WINDOW_CLOSED_TEXT ? 'window_closed' : text === CUSTOMER_WON_TEXT ? 'customer_won' : 'at_max_rule';
    case 'CANCELLED': return 'cancelled';
    case 'APPLIED': return text.includes('found at the gateway\'s order recon') ? 'applied_from_recon' : 'applied';
    case 'FAILED':
      if (text.startsWith('gave up after')) return 'gave_up';
      if (text.startsWith('window closes at')) return 'window_closes';
      return text.startsWith('window closed at') ? 'window_closed_retrying' : 'gateway_refused';
    case 'SETTLED': return text.includes('although the order was cancelled') ? 'settled_cancelled' : 'settled';
  }
}

// What a transition returns: the release to write and the effects to run after the write; the audit records, the
// write stamps, and the commit of a planned release.

/** The actor of decisions Holdback takes by itself (events, schedules, answers). */
export const SYSTEM_ACTOR = 'holdback';

/** Deterministic name of one pending send (also the Scheduler schedule name): releaseKeyOf, passed in with the plan's input. */
export type ReleaseKeyOf = (orderId: string, vendorId: string, version: number) => string;

/**
 * The deterministic key of one release send, its Scheduler schedule's name: 1 to 64 of [0-9a-zA-Z-_.] as Scheduler requires.
 * The same order, vendor and send number always give the same name, so a duplicate create is a conflict, not a
 * second schedule.
 */
export function releaseKeyOf(orderId: string, vendorId: string, sendNumber: number): string {
  const digest = createHash('sha256').update(`${orderId}\u0000${vendorId}`).digest('hex').slice(0, 40);
  return `rel-${digest}-${sendNumber}`;
}

/** An audit record about one release (the audit log's entry shape, contract 6.2). */
export interface ReleaseAuditRecord {
  kind: string;
  at: Instant;
  actor: string | null;
  orderId: string;
  vendorId: string;
  detail: Record<string, unknown>;
}

/** What a use case runs after the write, in this order. */
export type Effect =
  | { kind: 'cancel_schedule'; releaseKey: string }
  | { kind: 'schedule'; command: ReleaseCommand; at: Instant }
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

/**
 * The one zone of write stamps (`updatedAt`, audit `at`, claim deadlines, `settledAt`, `requestedAt`...): India time,
 * the zone every stored time is kept in. Answers show them in the settings' timezone (contract 6) at the edge.
 */
export function stamp(now: Instant): Instant {
  return now.in(INDIA_TIME).wholeSecond();
}

export function audit(kind: string, release: VendorRelease, now: Instant, actor: string | null, detail: Record<string, unknown>): Effect {
  return {
    kind: 'audit',
    entry: { kind, at: stamp(now), actor, orderId: release.orderId, vendorId: release.vendorId, detail },
  };
}

/** The release written by `event`, its move checked against the table (a move outside it is a defect, never stored). */
export function moved(from: VendorRelease | null, event: ReleaseEvent, release: VendorRelease, expectedVersion: number | null, effects: Effect[]): Write {
  checkMove(from?.state ?? null, event, release.state);
  return { kind: 'write', release, expectedVersion, effects };
}

// Bookkeeping that is not the release's content.
const BOOKKEEPING = new Set(['version', 'releaseKey', 'updatedAt']);

/** Whether two releases say the same thing, ignoring the bookkeeping (version, key, time of the write). */
export function sameRelease(a: VendorRelease, b: VendorRelease): boolean {
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
export function commit(
  stored: VendorRelease | null, next: VendorRelease, event: ReleaseEvent, now: Instant, keyOf: ReleaseKeyOf, audits: Effect[],
): Transition {
  if (stored && sameRelease(stored, next)) return { kind: 'unchanged', release: stored };
  const version = (stored?.version ?? 0) + 1;
  let releaseKey: string | null = null;
  if (isPending(next.state)) {
    const sameSend = stored !== null && stored.state === next.state && Instant.same(stored.sendAt, next.sendAt) && stored.releaseKey;
    releaseKey = sameSend ? stored.releaseKey : keyOf(next.orderId, next.vendorId, version);
  }
  const release: VendorRelease = {
    ...next,
    version,
    releaseKey,
    sendAt: isPending(next.state) || next.state === 'APPLYING' ? next.sendAt : null,
    updatedAt: stamp(now),
  };
  const effects: Effect[] = [];
  if (stored?.state === 'SCHEDULED' && stored.releaseKey && stored.releaseKey !== releaseKey) {
    effects.push({ kind: 'cancel_schedule', releaseKey: stored.releaseKey });
  }
  if (releaseKey && releaseKey !== stored?.releaseKey && release.sendAt) {
    const command = { orderId: release.orderId, vendorId: release.vendorId, releaseKey };
    effects.push(release.state === 'SCHEDULED' ? { kind: 'schedule', command, at: release.sendAt } : { kind: 'enqueue', command });
  }
  effects.push(...audits);
  return moved(stored, event, release, stored?.version ?? null, effects);
}
