/** Use cases of contract 6 and issue 10.2: hold and unhold a vendor, release one vendor of one order now, retry a FAILED release. */
import { parseEligibilityInput } from '../../domain/dates';
import { ValidationError, collectIssues, isRecord, type ValidationIssue } from '../../domain/errors';
import { manualRelease, retryFailed, type Cause } from '../../domain/release-machine';
import type { VendorHold, VendorRelease } from '../../domain/types';
import { NotFoundError } from '../errors';
import { requireId } from '../ids';
import { planOrderReleases, transitionRelease } from './plan-releases';
import type { Dependencies } from '../ports';
import { openReleasesOfVendor } from './replan-vendor-releases';
import { appendAudit, storedInstant } from './release-writes';
import { releaseViewOf, type ReleaseView } from '../reads/view-order';

const TEXT_LIMIT = 500;

interface ActorAndReason {
  actor: string;
  reason: string;
}

/** `{actor, reason}` plus the extra fields a route allows; every bad field named. */
function readBody(body: unknown, extra: readonly string[], example: string): { fields: ActorAndReason; input: Record<string, unknown> } {
  if (!isRecord(body)) throw new ValidationError([{ field: 'body', problem: 'is not a JSON object', expected: `a JSON object, e.g. ${example}` }]);
  const known = ['actor', 'reason', ...extra];
  const issues: ValidationIssue[] = Object.keys(body).filter((k) => !known.includes(k))
    .map((k) => ({ field: k, problem: 'is not a known field', expected: `only ${known.join(', ')}` }));
  for (const field of ['actor', 'reason'] as const) {
    const value = body[field];
    if (typeof value !== 'string' || value.trim() === '' || value.length > TEXT_LIMIT) {
      issues.push({
        field,
        problem: value === undefined ? 'is missing' : `is ${JSON.stringify(value)?.slice(0, 60)}, not a text of 1 to ${TEXT_LIMIT} characters`,
        expected: `who asks and why, e.g. ${example}`,
      });
    }
  }
  if (issues.length) throw new ValidationError(issues);
  return { fields: { actor: (body.actor as string).trim(), reason: (body.reason as string).trim() }, input: body };
}

const HOLD_EXAMPLE = '{"actor": "risk@example.com", "reason": "fraud review"}';

export interface HoldView extends VendorHold {
  /** Unsent releases of the vendor that were planned again by this change. */
  releases: number;
}

/** A vendor Holdback knows: one with a policy, a hold, or a release. */
async function requireKnownVendor(deps: Dependencies, vendorId: string): Promise<void> {
  requireId(vendorId, 'vendorId');
  const [policy, hold, releases] = await Promise.all([
    deps.policies.current(vendorId), deps.holds.get(vendorId), deps.reads.knowsVendor(vendorId),
  ]);
  if (!policy && !hold && !releases) {
    throw new NotFoundError(`vendor ${vendorId} is unknown: no order, policy or hold names it`);
  }
}

/**
 * POST /vendors/{vendorId}/hold and /unhold: the hold is stored first (every release function reads it after its
 * claim, so from now on nothing of the vendor is sent), then every unsent release of the vendor is planned again:
 * HELD with `holdReason: "vendor_hold"`, or, on unhold, planned from its rule (a passed target goes with the next
 * gateway minute). New orders of a held vendor are planned HELD from the hold read with their policy.
 */
export async function setVendorHold(deps: Dependencies, vendorId: string, body: unknown, held: boolean): Promise<HoldView> {
  const { fields } = readBody(body, [], HOLD_EXAMPLE);
  await requireKnownVendor(deps, vendorId);
  const hold: VendorHold = { vendorId, held, actor: fields.actor, reason: fields.reason, at: storedInstant(deps.clock.now()) };
  await deps.holds.put(hold);
  const open = await openReleasesOfVendor(deps, vendorId);
  await appendAudit(deps, [{ kind: held ? 'hold' : 'unhold', at: hold.at, actor: hold.actor, vendorId, detail: { reason: hold.reason, openReleases: open.length } }]);
  const cause: Cause = { kind: held ? 'hold' : 'unhold', actor: hold.actor, reason: hold.reason };
  let replanned = 0;
  for (const release of open) {
    if (!held && !(release.state === 'HELD' && release.holdReason === 'vendor_hold')) continue;
    const after = await planOrderReleases(deps, release.orderId, { cause, vendorIds: [vendorId] });
    if (after?.some((r) => r.version !== release.version)) replanned += 1;
  }
  return { ...hold, releases: replanned };
}

const RELEASE_EXAMPLE = '{"actor": "finance@example.com", "reason": "goods received", "at": "2022-12-06T09:00:00+05:30"}';

/**
 * POST /orders/{orderId}/vendors/{vendorId}/release: a manual early release (contract 6), with the eligibility `at`
 * or as soon as the gateway accepts; `override: true` releases a HELD one. Refused (409 `invalid_state`) from any
 * other state.
 */
export async function releaseManually(deps: Dependencies, orderId: string, vendorId: string, body: unknown): Promise<ReleaseView> {
  requireId(orderId, 'orderId');
  requireId(vendorId, 'vendorId');
  const { fields, input } = readBody(body, ['at', 'override'], RELEASE_EXAMPLE);
  const issues: ValidationIssue[] = [];
  const at = input.at === undefined || input.at === null ? null : collectIssues(issues, () => parseEligibilityInput(input.at, 'at')) ?? null;
  if (input.override !== undefined && typeof input.override !== 'boolean') {
    issues.push({ field: 'override', problem: `is ${JSON.stringify(input.override)}, not true or false`, expected: 'true to release a HELD release despite its hold, or leave it out' });
  }
  if (issues.length) throw new ValidationError(issues);
  const request = { ...fields, at, override: input.override === true };
  const release = await transitionRelease(deps, { orderId, vendorId }, { kind: 'manual_release', ...fields }, (plan) => manualRelease(plan, request));
  return presented(deps, release);
}

/**
 * POST /orders/{orderId}/vendors/{vendorId}/retry: an operator's retry of a FAILED release (issue 10.2), planned
 * again under its rule with a fresh retry budget. Refused (409 `invalid_state`) from any other state.
 */
export async function retryRelease(deps: Dependencies, orderId: string, vendorId: string, body: unknown): Promise<ReleaseView> {
  requireId(orderId, 'orderId');
  requireId(vendorId, 'vendorId');
  const { fields } = readBody(body, [], '{"actor": "ops@example.com", "reason": "gateway recovered"}');
  const release = await transitionRelease(deps, { orderId, vendorId }, { kind: 'retry', ...fields }, (plan) => retryFailed(plan, fields));
  return presented(deps, release);
}

async function presented(deps: Dependencies, release: VendorRelease): Promise<ReleaseView> {
  const settings = await deps.settings.get();
  return { orderId: release.orderId, ...releaseViewOf(release, settings.timezone) };
}
