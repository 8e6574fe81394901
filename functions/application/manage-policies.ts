/** Use cases: read a vendor's release policy, change it (a new version with actor and reason), list its history. */
import { defaultPolicy, validatePolicyInput } from '../domain/settings';
import type { VendorPolicy } from '../domain/types';
import { requireId } from './ids';
import { VersionConflictError, type Dependencies } from './ports';
import { storedInstant } from './release-writes';
import { inZone } from './response-times';

/** What the policy routes answer. */
export type PolicyView = Pick<VendorPolicy, 'vendorId' | 'version' | 'scheduleOption' | 'release' | 'actor' | 'reason' | 'at'>;

/** The current policy; a vendor nobody configured answers version 0 with the default. */
export async function getPolicy(deps: Dependencies, vendorId: string): Promise<PolicyView> {
  requireId(vendorId, 'vendorId');
  const [stored, settings] = await Promise.all([deps.policies.current(vendorId), deps.settings.get()]);
  return presented(stored ?? defaultPolicy(vendorId, settings), settings.timezone);
}

/**
 * Stores the body as the next version. Orders already planned keep the version they were planned with (it is recorded
 * on each release); the new version applies to orders paid from now on.
 */
export async function putPolicy(deps: Dependencies, vendorId: string, body: unknown): Promise<PolicyView> {
  requireId(vendorId, 'vendorId');
  const input = validatePolicyInput(body);
  const [current, settings] = await Promise.all([deps.policies.current(vendorId), deps.settings.get()]);
  const version = (current?.version ?? 0) + 1;
  try {
    const saved = await deps.policies.save({ vendorId, version, ...input, at: storedInstant(deps.clock.now()) });
    return presented(saved, settings.timezone);
  } catch (error) {
    if (error instanceof VersionConflictError) {
      throw new VersionConflictError(`policy of ${vendorId} changed meanwhile (version ${version} exists); GET it and send your change again`);
    }
    throw error;
  }
}

/** Every stored version, newest first (empty for a vendor that only ever had the default). */
export async function policyHistory(deps: Dependencies, vendorId: string): Promise<PolicyView[]> {
  requireId(vendorId, 'vendorId');
  const [versions, settings] = await Promise.all([deps.policies.history(vendorId), deps.settings.get()]);
  return versions.map((p) => presented(p, settings.timezone));
}

function presented(policy: VendorPolicy, zone: string): PolicyView {
  return {
    vendorId: policy.vendorId,
    version: policy.version,
    scheduleOption: policy.scheduleOption,
    release: policy.release,
    actor: policy.actor,
    reason: policy.reason,
    at: inZone(policy.at, zone),
  };
}
