/**
 * Use case of the release function, the one send path: claim a due release, read the order and the vendor's hold
 * after the claim, plan again, and only then send the gateway's eligibility PUT (on the record before it leaves) and
 * record its answer; a send without a clear answer is checked at the gateway's order recon before anything is resent.
 */
import {
  SYSTEM_ACTOR, afterClaim, answer, claim, claimWithFirstSend, confirmFromRecon, reconUnread, recordSend, sameFirstSend,
  unresolvedRequests, type Effect, type ReconRead, type SendNow, type Write,
} from '../../domain/release';
import { GATEWAY_ZONE, type Instant } from '../../domain/instant';
import type { ReleaseCommand, ReleaseState, Settings, VendorRelease } from '../../domain/types';
import { planInputOf, planOrderReleases, releaseKeyOf, runEffects, storedInstant, writeRelease } from '../release-store';
import { VersionConflictError, type AppendOptions, type Dependencies } from '../ports';
import { expectedExposure, releaseExposure, reserveExposure } from './exposure-cap';

export type ReleaseVendorResult =
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'applied' | 'failed' | 'rescheduled' | 'at_max' | 'held' | 'cancelled' | 'waiting' | 'scheduled'; release: VendorRelease }
  /** Another writer took the release over before this invocation's outcome was recorded. */
  | { outcome: 'superseded'; reason: string };

const OUTCOME_OF: Partial<Record<ReleaseState, Exclude<ReleaseVendorResult['outcome'], 'skipped' | 'superseded'>>> = {
  APPLIED: 'applied', FAILED: 'failed', AT_MAX: 'at_max', HELD: 'held', CANCELLED: 'cancelled', WAITING: 'waiting',
  SCHEDULED: 'scheduled', PLANNED: 'scheduled',
};

/**
 * The only caller of the gateway's eligibility PUT. The conditional move to APPLYING (version + 1) makes one release
 * key send at most once however often its command arrives; APPLYING carries a deadline in `sendAt` so that a lost
 * invocation is re-driven by the sweep instead of being lost.
 *
 * Write, then read: the order (its events) and the vendor's hold are read consistently only after the claim is
 * stored, so a dispute, a cancellation or a hold stored before that read is always seen and nothing is sent; one
 * stored after it finds the release APPLYING and leaves it to this invocation, which re-reads once more after writing
 * a release that waits (HELD, WAITING), so that a release never stays held by a fact that is gone.
 */
export async function releaseVendor(deps: Dependencies, command: ReleaseCommand): Promise<ReleaseVendorResult> {
  const current = await deps.orders.getRelease(command.orderId, command.vendorId);
  if (!current) return { outcome: 'skipped', reason: 'no release for this order and vendor' };
  const claimed = claim(current, command, deps.clock.now());
  if (claimed.kind === 'skip') return { outcome: 'skipped', reason: claimed.reason };
  // Taking over a claim whose deadline passed: its send may have reached the gateway before its sender was lost.
  const lost = current.state === 'APPLYING' ? current.sending ?? null : null;
  // A send without a clear answer (a lost sender, a timeout, a reset, a 5xx) may have arrived: the recon is read first.
  const uncertain = unresolvedRequests(current).length > 0;
  // Mostly the claim can carry the send's first attempt (one write, not two); not after a send without a clear answer.
  const firstSend = uncertain ? null : withFirstSend(deps, claimed);
  try {
    await writeRelease(deps, firstSend ?? claimed);
  } catch (error) {
    if (error instanceof VersionConflictError) return { outcome: 'skipped', reason: 'another invocation took this release' };
    throw error;
  }
  // What is decided from here starts from the claim; firstSend's row has the same version, so every write replaces it.
  const applying = claimed.release;

  const [stored, config, recon] = await Promise.all([
    // Everything consistently: the hold closes the stale-claim race, and a settings change or a policy applied to open
    // orders is in force from its answer on (contract 6.3), whether or not its job has reached this release yet.
    deps.orders.loadOrder(command.orderId), deps.config.forPlanning([command.vendorId]), uncertain ? readRecon(deps, applying) : undefined,
  ]);
  settingsSeen.set(deps.config, config.settings);
  if (recon?.read) {
    const confirmed = confirmFromRecon({ release: applying, lost, gatewayEligibility: recon.gatewayEligibility, at: recon.at, settings: config.settings, now: deps.clock.now() });
    if (confirmed) return record(deps, confirmed);
    deps.logger.info('send without a clear answer not found at the gateway: sending again', {
      orderId: command.orderId, vendorId: command.vendorId, unresolved: unresolvedRequests(current), gatewayEligibility: recon.gatewayEligibility,
    });
  } else if (recon && !recon.read && deps.gatewayOrders.fetchEligibility) {
    return record(deps, reconUnread({ release: applying, reason: recon.reason, settings: config.settings, now: deps.clock.now(), keyOf: releaseKeyOf }));
  }
  if (!stored.order) throw new Error(`order ${command.orderId} has a release but no order record`);
  const input = planInputOf({ ...stored, order: stored.order }, command.vendorId, config, { kind: 'claim', actor: SYSTEM_ACTOR }, deps.clock.now());
  const decided = afterClaim({ ...input, current: applying });
  if (decided.kind === 'unchanged') {
    // The attempt the claim carried never left: the claim is stored as it would have been without it.
    if (firstSend) await writeRelease(deps, { kind: 'write', release: { ...applying, version: applying.version + 1 }, expectedVersion: applying.version, effects: [] }).catch(ignoreConflict);
    return { outcome: 'superseded', reason: 'nothing to do after the claim' };
  }
  if (decided.kind === 'write') {
    const recorded = await record(deps, decided);
    if (recorded.outcome !== 'superseded' && (decided.release.state === 'HELD' || decided.release.state === 'WAITING')) {
      await planOrderReleases(deps, command.orderId, { cause: { kind: 'claim', actor: SYSTEM_ACTOR }, vendorIds: [command.vendorId] });
    }
    return recorded;
  }
  // An early release enters the vendor's exposure here, or waits under the policy's maxExposure (contract 6.4).
  const reserved = await reserveExposure(deps, decided, { ...input, current: applying });
  if (reserved.kind === 'wait') return record(deps, reserved.write);
  return send(deps, reserved.send, config.settings, firstSend?.release ?? null);
}

/** The settings each container's config reader last read (the claim's guess of an early send's exposure). */
const settingsSeen = new WeakMap<object, Settings>();

/** The claim with the send's first attempt on it (claimWithFirstSend), once this container has read the settings. */
function withFirstSend(deps: Dependencies, claimed: Write): Write | null {
  const settings = settingsSeen.get(deps.config);
  if (!settings) return null;
  const now = deps.clock.now();
  return claimWithFirstSend(claimed, {
    now, at: now.in(GATEWAY_ZONE).wholeSecond(), exposureOf: (release, eligibility) => expectedExposure(release, eligibility, settings, now),
  });
}

function ignoreConflict(error: unknown): void {
  if (!(error instanceof VersionConflictError)) throw error;
}

/**
 * Sends and records the answer. The PUT is on the record (the release's attempts and the audit log) before it leaves,
 * through the client's `beforePut`. An answer that leaves open whether it applied is retried through a new claim,
 * which reads the gateway's order recon before it sends anything again. `firstSend`: the release as the claim stored
 * it with a first attempt on it (claimWithFirstSend), taken as that attempt's record when it says what it would write.
 */
async function send(deps: Dependencies, decided: SendNow, settings: Settings, firstSend: VendorRelease | null): Promise<ReleaseVendorResult> {
  const { orderId, vendorId } = decided.release;
  let release = decided.release;
  // After the first attempt's record, this invocation continues the order's audit stream it has just appended to.
  const continuing: AppendOptions = { continuingOrders: [orderId] };
  const beforePut = async (attempt: number, at: Instant): Promise<void> => {
    const recorded = recordSend({ release, request: decided.request, attempt, at, now: deps.clock.now() });
    if (attempt === 1 && firstSend !== null && sameFirstSend(firstSend, recorded.release)) {
      // Already on the record with the claim; the answer's write replaces that version.
      release = { ...recorded.release, version: firstSend.version };
    } else {
      await writeRelease(deps, recorded);
      release = recorded.release;
    }
    await runEffects(deps, recorded.effects, attempt > 1 ? continuing : undefined);
  };
  let result;
  try {
    result = await deps.gateway.updateEligibility(orderId, vendorId, decided.request, beforePut);
  } catch (error) {
    if (error instanceof VersionConflictError) return { outcome: 'superseded', reason: 'another writer took this release over before it was sent' };
    throw error;
  }
  const answered = answer({ release, sent: decided.eligibility, request: decided.request, result, settings, now: deps.clock.now(), keyOf: releaseKeyOf });
  const recorded = await record(deps, answered, continuing);
  return recorded.outcome === 'scheduled' && answered.release.sends ? { ...recorded, outcome: 'rescheduled' } : recorded;
}

/** The vendor's eligibility at the gateway's order recon, or why it could not be read (logged). */
async function readRecon(deps: Dependencies, release: VendorRelease): Promise<ReconRead> {
  const ids = { orderId: release.orderId, vendorId: release.vendorId, unresolved: unresolvedRequests(release) };
  if (!deps.gatewayOrders.fetchEligibility) {
    deps.logger.warn('send without a clear answer not checked: this gateway has no order recon; sending again', ids);
    return { read: false, reason: 'this gateway has no order recon' };
  }
  try {
    const gatewayEligibility = await deps.gatewayOrders.fetchEligibility(release.orderId, release.vendorId);
    return { read: true, gatewayEligibility, at: storedInstant(deps.clock.now()) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    deps.logger.warn('send without a clear answer not checked: the order recon could not be read; retried later', { ...ids, error: reason });
    return { read: false, reason };
  }
}

/**
 * Records the outcome conditionally on our APPLYING version, then runs its effects. When another writer took the
 * release over meanwhile (a settlement webhook, the sweep's re-drive after the deadline), only the audit of what
 * this invocation did is kept: the gateway attempts happened, whoever records the release. `audit`: the append's options.
 */
async function record(deps: Dependencies, write: Write, audit?: AppendOptions): Promise<ReleaseVendorResult> {
  try {
    await writeRelease(deps, write);
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
    deps.logger.warn('release outcome not recorded: another writer took the release over', { orderId: write.release.orderId, vendorId: write.release.vendorId });
    await runEffects(deps, write.effects.filter((e: Effect) => e.kind === 'audit'), audit);
    return { outcome: 'superseded', reason: 'another writer took this release over while it was being sent' };
  }
  await runEffects(deps, write.effects, audit);
  await releaseExposure(deps, write.release);
  return { outcome: OUTCOME_OF[write.release.state] ?? 'scheduled', release: write.release };
}
