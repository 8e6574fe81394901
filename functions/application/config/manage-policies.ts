/** Use cases: read a vendor's release policy, change it (a new version with actor and reason), list its history. */
import { defaultPolicy } from '../../domain/settings';
import type { VendorPolicy } from '../../domain/types';
import { requireId } from '../ids';
import { policyChangeOf, type PolicyChange } from './policy-change';
import { requirePolicyPreview } from './preview-changes';
import { startVendorWalk } from '../replan-vendor-releases';
import type { JobView } from '../job-views';
import { VersionConflictError, type Dependencies } from '../ports';
import { appendAudit, storedInstant } from '../release-store';
import { inZone, type Shown } from '../response-times';
import { requireFourEyes, vendorOpenMoney } from '../four-eyes';

/** What the policy routes answer. */
export type PolicyView = Shown<Pick<VendorPolicy, 'vendorId' | 'version' | 'scheduleOption' | 'release' | 'actor' | 'reason' | 'at' | 'maxExposure'>, 'at'>;

/** Something a PUT accepted that looks wrong, named by field. */
export interface PolicyWarning {
  field: string;
  message: string;
}

/** The current policy; a vendor nobody configured answers version 0 with the default. */
export async function getPolicy(deps: Dependencies, vendorId: string): Promise<PolicyView> {
  requireId(vendorId, 'vendorId');
  const [stored, settings] = await Promise.all([deps.policies.current(vendorId), deps.settings.get()]);
  return presented(stored ?? defaultPolicy(vendorId, settings), settings.timezone);
}

/**
 * Stores the body as the next version. With `applyTo: "new_orders"` (the default) orders already planned keep the
 * version they were planned with (it is recorded on each release) and the new version applies to orders paid from now
 * on; with `"open_orders"` every unsent release of the vendor is planned again under it. `expectedVersion` (stale:
 * 409) and `previewId` (what the preview showed no longer holds: 409 `preview_stale`) are checked first.
 */
export async function putPolicy(deps: Dependencies, vendorId: string, body: unknown): Promise<PolicyView & { job: JobView | null; warnings?: PolicyWarning[] }> {
  requireId(vendorId, 'vendorId');
  const change = policyChangeOf(body);
  const [current, settings] = await Promise.all([deps.policies.current(vendorId), deps.settings.get()]);
  const fromVersion = current?.version ?? 0;
  if (change.expectedVersion !== null && change.expectedVersion !== fromVersion) {
    throw new VersionConflictError(`expectedVersion: the policy of ${vendorId} is at version ${fromVersion}, not ${change.expectedVersion}; GET it and send your change based on version ${fromVersion}`);
  }
  await requirePolicyPreview(deps, vendorId, change);
  if (change.applyTo === 'open_orders') {
    await requireFourEyes(deps, {
      change: 'policyChange',
      request: { method: 'PUT', path: `/vendors/${vendorId}/policy`, params: { vendorId }, body: body as Record<string, unknown> },
      vendorId,
      actor: change.policy.actor,
      reason: change.policy.reason,
      moves: () => vendorOpenMoney(deps, vendorId),
      basis: { policyVersion: fromVersion },
    }, settings);
  }
  const { saved, audited } = await storeNextPolicy(deps, vendorId, fromVersion, change.policy);
  if (change.applyTo === 'new_orders') {
    const [warnings] = await Promise.all([capWarnings(deps, vendorId, saved), audited]);
    return { ...presented(saved, settings.timezone), job: null, ...warnings };
  }
  // In force from this answer: the planner (and every release function, after its claim) reads the open orders'
  // policy consistently and plans a release pinned to an older version under it. The job moves the schedules. The
  // version's audit record and the warnings go alongside (a few round trips in turn, however many releases).
  const applied = deps.openOrderPolicies.put(saved)
    .then(() => startVendorWalk(deps, { kind: 'policy_apply', vendorId, actor: saved.actor, reason: saved.reason, version: saved.version }, settings.timezone));
  const [warnings, job] = await Promise.all([capWarnings(deps, vendorId, saved), applied, audited]);
  return { ...presented(saved, settings.timezone), job, ...warnings };
}

/**
 * A maxExposure in a currency the vendor has no money in (no open release, no exposure) is accepted, but flagged: it
 * is likely a typing error (USD for INR), and it caps nothing until such money comes. The open releases are read up to
 * a bound (a fixed number of requests whatever the vendor's size); past it the warning says how far it looked.
 */
async function capWarnings(deps: Dependencies, vendorId: string, policy: VendorPolicy): Promise<{ warnings?: PolicyWarning[] }> {
  const capped = Object.keys(policy.maxExposure ?? {});
  if (capped.length === 0) return {};
  const [open, entries] = await Promise.all([vendorOpenMoney(deps, vendorId), deps.exposure.open(vendorId, storedInstant(deps.clock.now()))]);
  const used = new Set([...open.map((t) => t.currency), ...entries.map((e) => e.currency)]);
  const read = open.some((t) => t.atLeast) ? ` among the ${open.reduce((n, t) => n + (t.count ?? 0), 0)} open releases read (it has more)` : '';
  const warnings = capped.filter((c) => !used.has(c)).map((currency) => ({
    field: `maxExposure.${currency}`,
    message: `accepted, but vendor ${vendorId} has no open money in ${currency}${read}${used.size > 0 ? ` (it has ${[...used].sort().join(', ')})` : ''}: this cap stops nothing until it does; check the currency`,
  }));
  return warnings.length > 0 ? { warnings } : {};
}

/**
 * Stores `policy` as version `fromVersion + 1`, conditional on `fromVersion` still being the one in force (409
 * otherwise). The one write path of a policy change: a single PUT and every row of a bulk import (`importId`).
 */
export async function saveNextPolicy(
  deps: Dependencies,
  vendorId: string,
  fromVersion: number,
  policy: PolicyChange['policy'],
  importId?: string,
): Promise<VendorPolicy> {
  const { saved, audited } = await storeNextPolicy(deps, vendorId, fromVersion, policy, importId);
  await audited;
  return saved;
}

/** saveNextPolicy, answering once the version is stored, with its audit append (never rejects) still going. */
async function storeNextPolicy(
  deps: Dependencies,
  vendorId: string,
  fromVersion: number,
  policy: PolicyChange['policy'],
  importId?: string,
): Promise<{ saved: VendorPolicy; audited: Promise<void> }> {
  const version = fromVersion + 1;
  try {
    const saved = await deps.policies.save({ vendorId, version, ...policy, at: storedInstant(deps.clock.now()), ...(importId ? { importId } : {}) });
    const audited = appendAudit(deps, [{
      kind: 'policy_changed',
      at: saved.at ?? storedInstant(deps.clock.now()),
      actor: saved.actor,
      vendorId,
      detail: { version: saved.version, fromVersion, scheduleOption: saved.scheduleOption, release: saved.release, ...(saved.maxExposure ? { maxExposure: saved.maxExposure } : {}), reason: saved.reason, ...(importId ? { importId } : {}) },
    }]);
    return { saved, audited };
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
    ...(policy.maxExposure ? { maxExposure: policy.maxExposure } : {}),
  };
}
