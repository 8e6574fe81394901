/**
 * Use case of the release function, the one send path: claim a due release, read the order and the vendor's hold
 * after the claim, plan again, and only then send the gateway's eligibility PUT and record its answer.
 */
import { SYSTEM_ACTOR, afterClaim, answer, claim, confirmFromRecon, type Effect, type Write } from '../../domain/release-machine';
import type { ReleaseCommand, ReleaseState, SendInFlight, VendorRelease } from '../../domain/types';
import { planInputOf, planOrderReleases } from './plan-releases';
import { VersionConflictError, type Dependencies } from '../ports';
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
  // Taking over a claim whose deadline passed: its send may have reached the gateway before its sender was lost.
  const lost = current.state === 'APPLYING' ? current.sending ?? null : null;
  try {
    await writeRelease(deps, claimed);
  } catch (error) {
    if (error instanceof VersionConflictError) return { outcome: 'skipped', reason: 'another invocation took this release' };
    throw error;
  }
  const applying = claimed.release;

  const [stored, config, gatewayEligibility] = await Promise.all([
    // The hold consistently (it closes the stale-claim race), the settings and policy eventually (see DynamoConfigReader).
    deps.orders.loadOrder(command.orderId), deps.config.forPlanning([command.vendorId], { eventual: true }), lost ? reconEligibility(deps, applying, lost) : undefined,
  ]);
  if (lost && gatewayEligibility !== undefined) {
    const confirmed = confirmFromRecon({ release: applying, lost, gatewayEligibility, settings: config.settings, now: deps.clock.now() });
    if (confirmed) return record(deps, confirmed);
    deps.logger.info('lost send not found at the gateway: sending again', {
      orderId: command.orderId, vendorId: command.vendorId, lostRequest: lost.request, gatewayEligibility,
    });
  }
  if (!stored.order) throw new Error(`order ${command.orderId} has a release but no order record`);
  const input = planInputOf({ ...stored, order: stored.order }, command.vendorId, config, { kind: 'claim', actor: SYSTEM_ACTOR }, deps.clock.now());
  const decided = afterClaim({ ...input, current: applying });
  if (decided.kind === 'unchanged') return { outcome: 'superseded', reason: 'nothing to do after the claim' };
  if (decided.kind === 'write') {
    const recorded = await record(deps, decided);
    if (recorded.outcome !== 'superseded' && (decided.release.state === 'HELD' || decided.release.state === 'WAITING')) {
      await planOrderReleases(deps, command.orderId, { cause: { kind: 'claim', actor: SYSTEM_ACTOR }, vendorIds: [command.vendorId], eventualConfig: true });
    }
    return recorded;
  }

  if (decided.record) {
    // The date differs from the one the claim recorded: the release says what is in flight before it is sent.
    try {
      await writeRelease(deps, decided.record);
    } catch (error) {
      if (error instanceof VersionConflictError) return { outcome: 'superseded', reason: 'another writer took this release over before it was sent' };
      throw error;
    }
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
 * The vendor's eligibility at the gateway's order recon, or undefined when it cannot be read (logged with why): the
 * caller then sends again, as a PUT of the same date is harmless at the gateway.
 */
async function reconEligibility(deps: Dependencies, release: VendorRelease, lost: SendInFlight): Promise<string | null | undefined> {
  const ids = { orderId: release.orderId, vendorId: release.vendorId, lostRequest: lost.request };
  if (!deps.gatewayOrders.fetchEligibility) {
    deps.logger.warn('lost send not checked: this gateway has no order recon; sending again', ids);
    return undefined;
  }
  try {
    return await deps.gatewayOrders.fetchEligibility(release.orderId, release.vendorId);
  } catch (error) {
    deps.logger.warn('lost send not checked: the order recon could not be read; sending again', { ...ids, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
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
