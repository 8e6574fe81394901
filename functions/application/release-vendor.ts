/** Use case: send one due release to the gateway, exactly once per release key, and record what the gateway said. */
import type { DateTime } from 'luxon';
import { parseInstant } from '../domain/dates';
import { WINDOW_CLOSED_REASON, applyAnswer, prepareSend } from '../domain/release';
import type { HoldbackEvent, ReleaseCommand, Settings, VendorRelease } from '../domain/types';
import { describeError } from './errors';
import { VersionConflictError, type Dependencies } from './ports';
import { releaseScheduleName } from '../routing';
import { isPending, storedInstant } from './release-writes';

/** Scheduler fires with one-minute precision; a schedule that fires a little early is still this release's send. */
const EARLY_FIRE_MS = 60_000;
/** How long an APPLYING release may stay so before the sweep assumes the invocation was lost and sends again. */
export const APPLYING_DEADLINE_MS = 2 * 60_000;

export type ReleaseVendorResult =
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'applied' | 'failed' | 'rescheduled' | 'at_max'; release: VendorRelease }
  /** The gateway was called, but another invocation took the release over before the answer was recorded. */
  | { outcome: 'superseded'; reason: string };

/**
 * The only caller of the gateway's eligibility PUT. The conditional move to APPLYING (version + 1) is what makes one
 * release key send at most once however often its schedule or the sweep fires; APPLYING carries a deadline in
 * `sendAt` so that a lost invocation is re-driven by the sweep instead of being lost.
 * (The planner, finding a release due at once, claims it in the write that plans it and calls `sendClaimed` itself.)
 */
export async function releaseVendor(deps: Dependencies, command: ReleaseCommand): Promise<ReleaseVendorResult> {
  const release = await deps.orders.getRelease(command.orderId, command.vendorId);
  if (!release) return { outcome: 'skipped', reason: 'no release for this order and vendor' };
  const now = deps.clock.now();
  const notDue = whyNotDue(release, command, now);
  if (notDue) return { outcome: 'skipped', reason: notDue };

  const applying = claimFor(release, release.version + 1, now);
  try {
    await deps.orders.putRelease(applying, release.version);
  } catch (error) {
    if (error instanceof VersionConflictError) return { outcome: 'skipped', reason: 'another invocation took this release' };
    throw error;
  }
  return sendClaimed(deps, applying);
}

/**
 * `release` as claimed for sending (APPLYING, stored as `version`), with the deadline after which the sweep assumes the
 * sender was lost and sends again. The planner claims a release it finds due at once, in the same write that plans it.
 */
export function claimFor(release: VendorRelease, version: number, now: DateTime): VendorRelease {
  return {
    ...release,
    state: 'APPLYING',
    sendAt: storedInstant(now.plus({ milliseconds: APPLYING_DEADLINE_MS })),
    version,
    updatedAt: storedInstant(now),
  };
}

/**
 * Sends a release this invocation has claimed (its APPLYING version is stored) and records the answer, conditional on
 * that version. `settings`, when the caller has just read them, are not read again.
 */
export async function sendClaimed(deps: Dependencies, applying: VendorRelease, known?: Settings): Promise<ReleaseVendorResult> {
  const now = deps.clock.now();
  const send = prepareSend(applying, now);
  if ('skip' in send) {
    const atMax: VendorRelease = {
      ...applying,
      state: 'AT_MAX',
      sendAt: null,
      releaseKey: null,
      // The next minute the gateway accepts is past the maximum eligibility: the gateway's default applies.
      reason: WINDOW_CLOSED_REASON,
      version: applying.version + 1,
      updatedAt: storedInstant(deps.clock.now()),
    };
    return (await finish(deps, applying, atMax, [], null)) ?? { outcome: 'at_max', release: atMax };
  }

  const settings = known ?? await deps.settings.get();
  const result = await deps.gateway.updateEligibility(applying.orderId, applying.vendorId, send.request);
  const answeredAt = deps.clock.now();
  const answered = applyAnswer({
    release: { ...applying, clamp: send.clamp ?? applying.clamp },
    sent: send.eligibility,
    result,
    settings,
    now: answeredAt,
  });
  const version = applying.version + 1;
  const next: VendorRelease = answered.retryAt
    ? {
      ...answered.release,
      state: 'SCHEDULED',
      sendAt: storedInstant(answered.retryAt),
      releaseKey: releaseScheduleName(applying.orderId, applying.vendorId, version),
      version,
      updatedAt: storedInstant(answeredAt),
    }
    : { ...answered.release, sendAt: null, releaseKey: null, version, updatedAt: storedInstant(answeredAt) };
  const superseded = await finish(deps, applying, next, answered.events, answered.retryAt);
  if (superseded) return superseded;
  if (answered.retryAt) return { outcome: 'rescheduled', release: next };
  return { outcome: next.state === 'APPLIED' ? 'applied' : next.state === 'AT_MAX' ? 'at_max' : 'failed', release: next };
}

/** Why this command must not send now, or null when it must. */
function whyNotDue(release: VendorRelease, command: ReleaseCommand, now: DateTime): string | null {
  if (release.releaseKey !== command.releaseKey) return `release key ${command.releaseKey} is not the pending one (state ${release.state})`;
  if (!release.sendAt) return `nothing to send in state ${release.state}`;
  const sendAt = parseInstant(release.sendAt, 'sendAt').toMillis();
  if (isPending(release.state)) {
    return sendAt <= now.toMillis() + EARLY_FIRE_MS ? null : `not due before ${release.sendAt}`;
  }
  if (release.state === 'APPLYING') {
    return sendAt < now.toMillis() ? null : `being applied by another invocation until ${release.sendAt}`;
  }
  return `nothing to send in state ${release.state}`;
}

/**
 * Records the outcome conditionally on our APPLYING version, then publishes and schedules. Returns a result only when
 * the write lost (the sweep re-drove the release meanwhile and records its own answer).
 */
async function finish(
  deps: Dependencies,
  applying: VendorRelease,
  next: VendorRelease,
  events: HoldbackEvent[],
  retryAt: DateTime | null,
): Promise<ReleaseVendorResult | null> {
  const ids = { orderId: next.orderId, vendorId: next.vendorId };
  try {
    await deps.orders.putRelease(next, applying.version);
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
    deps.logger.warn('release outcome not recorded: another invocation took the release over', ids);
    return { outcome: 'superseded', reason: 'another invocation took this release over while the gateway answered' };
  }
  if (events.length > 0) {
    try {
      await deps.publisher.publish(events);
    } catch (error) {
      deps.logger.error('publishing release events failed', { ...ids, events: events.map((e) => e.type), error: describeError(error) });
    }
  }
  if (retryAt && next.releaseKey) {
    try {
      await deps.scheduler.schedule({ ...ids, releaseKey: next.releaseKey }, retryAt);
    } catch (error) {
      deps.logger.error('retry schedule not created; the sweep will re-drive it', { ...ids, error: describeError(error) });
    }
  }
  return null;
}
