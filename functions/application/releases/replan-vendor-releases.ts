/** Use case: plan a vendor's unsent releases again under a new policy version (PUT policy with applyTo open_orders). */
import { isUnsent, plan } from '../../domain/release-machine';
import type { VendorPolicy, VendorRelease } from '../../domain/types';
import { transitionRelease } from './plan-releases';
import type { Dependencies } from '../ports';

/**
 * The vendor's releases that are not sent yet (PLANNED, SCHEDULED, WAITING, HELD, and AT_MAX by its rule), read from
 * that vendor's open-release index partition alone (applied ones are open there too, until they settle, so they are
 * left out here), never from every paid order. The one place this use case family lists a vendor's releases.
 */
export async function openReleasesOfVendor(deps: Dependencies, vendorId: string): Promise<VendorRelease[]> {
  const unsent: VendorRelease[] = [];
  for await (const { release } of deps.reads.openReleases(vendorId)) if (isUnsent(release)) unsent.push(release);
  return unsent;
}

export interface ReplanResult {
  vendorId: string;
  policyVersion: number;
  /** Releases looked at, and those whose plan changed (schedules moved or deleted, each change audited). */
  open: number;
  replanned: number;
}

/**
 * Plans every unsent release of the vendor again under `policy` (its version is recorded on each). A release being
 * sent (APPLYING) is left to its sender and keeps its version; one sent already is never touched, so nothing is sent
 * twice. Each release is one conditional write: a race with an event or a send is planned again from what won.
 */
export async function replanVendorReleases(
  deps: Dependencies,
  vendorId: string,
  policy: VendorPolicy,
  change: { actor: string; reason: string },
): Promise<ReplanResult> {
  const open = await openReleasesOfVendor(deps, vendorId);
  let replanned = 0;
  for (const release of open) {
    const cause = { kind: 'policy_replan' as const, actor: change.actor, reason: `policy version ${policy.version}: ${change.reason}` };
    const after = await transitionRelease(deps, { orderId: release.orderId, vendorId }, cause, (input) => plan({ ...input, repin: true }),
      (config) => ({ ...config, policies: new Map(config.policies).set(vendorId, policy) }));
    if (after.version !== release.version) replanned += 1;
  }
  return { vendorId, policyVersion: policy.version, open: open.length, replanned };
}
