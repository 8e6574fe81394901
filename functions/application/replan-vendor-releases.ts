/** Use case family: a vendor's unsent releases, listed, and planned again as a job (hold, unhold, a policy applied to open orders). */
import { isUnsent } from '../domain/release';
import type { VendorRelease } from '../domain/types';
import { jobView, type JobView } from './job-views';
import { walkStep } from './release-walk';
import { startJob } from './start-job';
import type { Dependencies, JobKind } from './ports';

/**
 * The vendor's releases that are not sent yet (PLANNED, SCHEDULED, WAITING, HELD, and AT_MAX by its rule), read from
 * that vendor's open-release index partition alone (applied ones are open there too, until they settle, so they are
 * left out here), never from every paid order. The one place this use case family lists a vendor's releases.
 */
export async function openReleasesOfVendor(deps: Dependencies, vendorId: string): Promise<VendorRelease[]> {
  // A narrow read over the index's partitions at once; what is already sent is no preview's concern.
  return (await deps.reads.openReleasesToPlan(vendorId)).filter(isUnsent);
}

/**
 * Starts the job that plans every open release of the vendor again from what is stored now (its hold, the policy its
 * open orders follow), a page of the vendor's open-release index a step; null when the vendor has no open release
 * (one index read of one entry). Already-sent releases are left as they are by the planner, so nothing is sent twice;
 * each release is one conditional write, so a race with an event or a send is planned again from what won.
 */
export async function startVendorWalk(
  deps: Dependencies,
  change: { kind: Extract<JobKind, 'vendor_hold' | 'vendor_unhold' | 'policy_apply'>; vendorId: string; actor: string; reason: string; version?: number },
  /** The settings' timezone, when the caller has read them (else read here), for the job's times. */
  zone?: string,
): Promise<JobView | null> {
  const first = await deps.reads.openOrderIds(change.vendorId, null, 1);
  if (first.orderIds.length === 0) return null;
  const job = await startJob(deps, {
    kind: change.kind,
    actor: change.actor,
    params: { vendorId: change.vendorId, reason: change.reason, ...(change.version !== undefined ? { version: change.version } : {}) },
    first: walkStep(change.vendorId, 0, null),
  });
  return jobView(job, zone ?? (await deps.settings.get()).timezone);
}
