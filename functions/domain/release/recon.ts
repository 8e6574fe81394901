/**
 * The gateway's order recon read before a send of unknown outcome is repeated: a date it holds was applied (APPLIED
 * without a second PUT); a recon that cannot be read sends nothing and retries later.
 */
import { INDIA_OFFSET_MINUTES, Instant, gatewayDateText } from '../instant';
import type { Attempt, SendInFlight, Settings, VendorRelease } from '../types';
import { ATTEMPTS_KEPT, NO_ANSWER_STATUS, SENT_STATUS, outcomeUnknown, unresolvedRequests } from './attempts';
import { SYSTEM_ACTOR, audit, moved, stamp, type Effect, type ReleaseKeyOf, type Write } from './states';
import { appliedAt, failing, retry, type Finish } from './send';

/** What the gateway's order recon said of one vendor: the eligibility it holds (null: none), or why it was not read. */
export type ReconRead =
  | { read: true; gatewayEligibility: Instant | null; at: Instant }
  | { read: false; reason: string };

/** The unresolved date the recon holds (see unresolvedRequests), or null. */
export function reconHolds(release: VendorRelease, gatewayEligibility: Instant | null, also: string[] = []): string | null {
  if (gatewayEligibility === null) return null;
  const held = gatewayDateText(gatewayEligibility);
  return [...unresolvedRequests(release), ...also].includes(held) ? held : null;
}

/**
 * The release APPLIED at the date the recon holds: the last attempt that sent it without a clear answer is marked
 * confirmed from the recon (status OK, the transport's words kept in its message); a send that left no attempt (a
 * claim of an older version) gets one. One `gateway_attempt` record (phase "confirmed_from_recon") says so.
 */
export function confirmHeld(
  release: VendorRelease, held: string, recon: { gatewayEligibility: Instant; at: Instant },
  lost: SendInFlight | null, settings: Settings, now: Instant, why: string,
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
  const applied = appliedAt(updated, recon.gatewayEligibility.inOffset(INDIA_OFFSET_MINUTES), settings,
    (eligibility) => ({ code: 'applied_from_recon', eligibility, send: sends, why }));
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
  gatewayEligibility: Instant | null;
  /** When the recon was read. */
  at?: Instant;
  settings: Settings;
  now: Instant;
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
  const recon = { gatewayEligibility, at: input.at ?? stamp(now) };
  const confirmed = confirmHeld(release, held, recon, lost, settings, now, why);
  return moved(release, 'recon_confirmed', { ...confirmed.release, version: release.version + 1, updatedAt: stamp(now) }, release.version, confirmed.effects);
}

export interface ReconUnreadInput {
  /** The claimed release (APPLYING) with a send of unknown outcome. */
  release: VendorRelease;
  /** Why the recon could not be read. */
  reason: string;
  settings: Settings;
  now: Instant;
  keyOf: ReleaseKeyOf;
}

/**
 * A claim that finds a send of unknown outcome and cannot read the gateway's order recon sends nothing (the send may
 * have arrived): the release is retried later with the usual backoff while the window is open, and that claim reads
 * the recon first.
 */
export function reconUnread(input: ReconUnreadInput): Write {
  const { release, now } = input;
  const updated: VendorRelease = { ...release, sending: null, version: release.version + 1, updatedAt: stamp(now) };
  const classified = {
    kind: 'retryable' as const,
    reason: `the gateway's order recon could not be read (${input.reason}); an earlier send without a clear answer may have arrived, so nothing is sent before the recon is read`,
  };
  const finish: Finish = (next, effects) => moved(release, 'recon_unread', next, release.version, [
    ...effects, audit('planned', next, now, SYSTEM_ACTOR, { cause: 'recon_unread', from: 'APPLYING', to: next.state, reason: next.reason, sendAt: next.sendAt }),
  ]);
  return retry(updated, classified, input, finish, failing(updated, finish));
}
