/**
 * Use case of the release function, the one send path: claim a due release, read the order and the vendor's hold
 * after the claim, plan again, and only then send the gateway's eligibility PUT and record its answer.
 */
import { SYSTEM_ACTOR, afterClaim, answer, claim, type Effect, type Write } from '../domain/release-machine';
import type { ReleaseCommand, ReleaseState, VendorRelease } from '../domain/types';
import { planInputOf, planOrderReleases } from './plan-releases';
import { VersionConflictError, type Dependencies } from './ports';
import { releaseKeyOf, runEffects, writeRelease } from './release-writes';

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
  try {
    await writeRelease(deps, claimed);
  } catch (error) {
    if (error instanceof VersionConflictError) return { outcome: 'skipped', reason: 'another invocation took this release' };
    throw error;
  }
  const applying = claimed.release;

  const [stored, config] = await Promise.all([deps.orders.loadOrder(command.orderId), deps.config.forPlanning([command.vendorId])]);
  if (!stored.order) throw new Error(`order ${command.orderId} has a release but no order record`);
  const input = planInputOf({ ...stored, order: stored.order }, command.vendorId, config, { kind: 'claim', actor: SYSTEM_ACTOR }, deps.clock.now());
  const decided = afterClaim({ ...input, current: applying });
  if (decided.kind === 'unchanged') return { outcome: 'superseded', reason: 'nothing to do after the claim' };
  if (decided.kind === 'write') {
    const recorded = await record(deps, decided);
    if (recorded.outcome !== 'superseded' && (decided.release.state === 'HELD' || decided.release.state === 'WAITING')) {
      await planOrderReleases(deps, command.orderId, { cause: { kind: 'claim', actor: SYSTEM_ACTOR }, vendorIds: [command.vendorId] });
    }
    return recorded;
  }

  const result = await deps.gateway.updateEligibility(command.orderId, command.vendorId, decided.request);
  const answered = answer({
    release: decided.release, sent: decided.eligibility, request: decided.request, result, settings: config.settings,
    now: deps.clock.now(), keyOf: releaseKeyOf,
  });
  const recorded = await record(deps, answered);
  return recorded.outcome === 'scheduled' && answered.release.sends ? { ...recorded, outcome: 'rescheduled' } : recorded;
}

/**
 * Records the outcome conditionally on our APPLYING version, then runs its effects. When another writer took the
 * release over meanwhile (a settlement webhook, the sweep's re-drive after the deadline), only the audit of what
 * this invocation did is kept: the gateway attempts happened, whoever records the release.
 */
async function record(deps: Dependencies, write: Write): Promise<ReleaseVendorResult> {
  try {
    await writeRelease(deps, write);
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
    deps.logger.warn('release outcome not recorded: another writer took the release over', { orderId: write.release.orderId, vendorId: write.release.vendorId });
    await runEffects(deps, write.effects.filter((e: Effect) => e.kind === 'audit'));
    return { outcome: 'superseded', reason: 'another writer took this release over while it was being sent' };
  }
  await runEffects(deps, write.effects);
  return { outcome: OUTCOME_OF[write.release.state] ?? 'scheduled', release: write.release };
}
