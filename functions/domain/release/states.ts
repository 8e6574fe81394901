/**
 * The release states' one table (contract section 5): which event moves a release in which state to which states.
 * The predicates the use cases ask (pending, unsent, final, manual release from) are read off the table, and every
 * write the machine makes is checked against it.
 */
import { RELEASE_STATES, type ReleaseState, type VendorRelease } from '../types';

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
