/** Use cases of contract 6 and issue 10.2: hold and unhold a vendor, release one vendor of one order now, retry a FAILED release. */
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { parseEligibilityInput } from '../../domain/dates';
import { Instant } from '../../domain/instant';
import { manualRelease, retryFailed } from '../../domain/release';
import { HOLD_SOURCES, type HoldSource, type VendorHold, type VendorRelease } from '../../domain/types';
import { DEFAULT_HOLD_SOURCE, liftersOf, mayLift, sourceOf, strongerSource } from '../../domain/hold-sources';
import { ConflictError, NotFoundError } from '../errors';
import { requireId } from '../ids';
import { appendAudit, storedInstant, transitionRelease } from '../release-store';
import type { Dependencies } from '../ports';
import { startVendorWalk } from '../replan-vendor-releases';
import type { JobView } from '../job-views';
import { projectionContext, releaseViewOf, type ReleaseView } from '../release-views';
import { requireFourEyes, vendorOpenMoney } from '../four-eyes';
import { isControlled, type ApprovalRules } from '../../domain/approvals';

/** Who asks and why, as the route's body schema read them (handlers/schema/release-bodies.ts). */
export interface ActorAndReason {
  actor: string;
  reason: string;
}

/** A hold or unhold as its route's schema read it: who, why, and the source (absent: finance). */
export interface HoldInput extends ActorAndReason {
  source?: HoldSource;
}

/** A manual release as its route's schema read it: `at` as sent (checked to be an instant within the bounds). */
export interface ManualReleaseInput extends ActorAndReason {
  at?: string | null;
  override?: boolean;
  confirmPast?: boolean;
}

export interface HoldView extends VendorHold {
  /** The rest of the work (each open release shown HELD or planned again, schedules moved): null when none remains. */
  job: JobView | null;
}

/**
 * A vendor Holdback knows: one with a policy, a hold, or a release. Answers its hold and the settings, read in the same
 * round trip (a hold's answer waits for few of them in turn, so that it stays quick while jobs keep the table busy).
 */
async function requireKnownVendor(deps: Dependencies, vendorId: string) {
  requireId(vendorId, 'vendorId');
  const [policy, hold, releases, settings] = await Promise.all([
    deps.policies.current(vendorId), deps.holds.get(vendorId), deps.reads.knowsVendor(vendorId), deps.settings.get(),
  ]);
  if (!policy && !hold && !releases) {
    throw new NotFoundError(`vendor ${vendorId} is unknown: no order, policy or hold names it`);
  }
  return { existing: hold, settings };
}

/**
 * POST /vendors/{vendorId}/hold and /unhold, in O(1) work whatever the vendor's size (contract 6.3): the hold is stored
 * and audited, and is in force from this answer on, since every release function reads it after its claim and plans a
 * held release HELD instead of sending it. The rest (each unsent release shown HELD with `holdReason: "vendor_hold"`,
 * its schedule deleted; on unhold planned again from its rule, a passed target going with the next gateway minute)
 * runs as a job. New orders of a held vendor are planned HELD from the hold read with their policy.
 */
export async function setVendorHold(deps: Dependencies, vendorId: string, input: HoldInput, held: boolean): Promise<HoldView> {
  const fields: ActorAndReason = { actor: input.actor, reason: input.reason };
  const asked = input.source ?? DEFAULT_HOLD_SOURCE;
  const { existing, settings } = await requireKnownVendor(deps, vendorId);
  const placedBy = existing?.held ? sourceOf(existing) : null;
  if (!held && placedBy !== null && !mayLift(placedBy, asked)) {
    throw new ConflictError('hold_source', `vendor ${vendorId} is held by source "${placedBy}" (${existing!.actor} at ${existing!.at}: ${existing!.reason}); an unhold with source "${asked}" cannot lift it: send "source": ${liftersOf(placedBy).map((s) => `"${s}"`).join(' or ')} (the same source or a stronger one; strongest first: ${HOLD_SOURCES.join(', ')})`);
  }
  if (!held && existing?.held) {
    await requireFourEyes(deps, {
      change: 'unhold',
      request: { method: 'POST', path: `/vendors/${vendorId}/unhold`, params: { vendorId }, body: { actor: fields.actor, reason: fields.reason, ...(input.source !== undefined ? { source: input.source } : {}) } },
      vendorId,
      actor: fields.actor,
      reason: fields.reason,
      moves: () => vendorOpenMoney(deps, vendorId),
      basis: { holdAt: existing.at.toText() },
    }, settings);
  }
  // A hold placed again by a weaker source keeps the stronger one, so that it cannot be lifted by the weaker one.
  const source = held && placedBy !== null ? strongerSource(placedBy, asked) : asked;
  const hold: VendorHold = { vendorId, held, source, actor: fields.actor, reason: fields.reason, at: storedInstant(deps.clock.now()) };
  await deps.holds.put(hold);
  // In force from here; its audit record and the job of the rest are independent of each other.
  const [, job] = await Promise.all([
    appendAudit(deps, [{ kind: held ? 'hold' : 'unhold', at: hold.at, actor: hold.actor, vendorId, detail: { reason: hold.reason, source, ...(placedBy ? { heldBy: placedBy } : {}) } }]),
    startVendorWalk(deps, { kind: held ? 'vendor_hold' : 'vendor_unhold', vendorId, actor: hold.actor, reason: hold.reason }, settings.timezone),
  ]);
  return { ...hold, job };
}

/**
 * The issue of a manual `at` outside the release's window: after max eligibility (the gateway settles there whatever
 * Holdback sends, and refuses a later date) or before the transaction time. A past `at` the caller confirmed is not
 * checked against the transaction time: it means "now", and goes with the next gateway minute.
 */
function manualWindowIssue(at: Instant, release: VendorRelease, zone: string, confirmedPast: boolean): ValidationIssue | null {
  const max = release.maxEligibility;
  const transaction = release.transactionTime;
  const range = `a time from ${transaction.in(zone).toISO()} (the transaction time) to ${max.in(zone).toISO()} (max eligibility), or leave "at" out for the next minute the gateway accepts`;
  if (at.ms > max.ms) {
    return { field: 'at', problem: `is ${at.in(zone).toISO()}, after this release's max eligibility ${max.in(zone).toISO()}: the gateway settles at max eligibility anyway and refuses a later date`, expected: range };
  }
  if (!confirmedPast && at.ms < transaction.ms) {
    return { field: 'at', problem: `is ${at.in(zone).toISO()}, before the order's transaction time ${transaction.in(zone).toISO()}`, expected: range };
  }
  return null;
}

/**
 * POST /orders/{orderId}/vendors/{vendorId}/release: a manual early release (contract 6), with the eligibility `at`
 * or as soon as the gateway accepts; `override: true` releases a HELD one. Refused (409 `invalid_state`) from any
 * other state. An `at` in the past (a wrong year, a wrong day) would be sent at once, so it is refused (400 naming
 * `at`) unless the body says `"confirmPast": true`; an `at` outside the release's window is refused whatever the flag.
 */
export async function releaseManually(deps: Dependencies, orderId: string, vendorId: string, input: ManualReleaseInput): Promise<ReleaseView> {
  requireId(orderId, 'orderId');
  requireId(vendorId, 'vendorId');
  const fields: ActorAndReason = { actor: input.actor, reason: input.reason };
  const issues: ValidationIssue[] = [];
  const at = input.at === undefined || input.at === null ? null : parseEligibilityInput(input.at, 'at');
  const override = input.override === true;
  const confirmPast = input.confirmPast === true;
  const now = deps.clock.now();
  const zone = (await deps.settings.get()).timezone;
  // Its shape and bounds were read by the route's schema; whether it has passed is a question for Holdback's clock.
  if (at && at.ms < now.ms && !confirmPast) {
    issues.push({
      field: 'at',
      problem: `is ${at.in(zone).toISO()}, in the past (Holdback's clock is ${now.in(zone).toISO()}): it would be sent at once with the next minute the gateway accepts`,
      expected: 'a future time, or leave "at" out for the next minute the gateway accepts, or add "confirmPast": true to send it so',
    });
  }
  if (issues.length) throw new ValidationError(issues);
  await gateManualRelease(deps, { orderId, vendorId, input, fields, override });
  const request = { ...fields, at, override };
  const release = await transitionRelease(deps, { orderId, vendorId }, { kind: 'manual_release', ...fields }, (plan) => {
    const transition = manualRelease(plan, request);
    const outside = at && transition.kind !== 'refused' ? manualWindowIssue(at, plan.current, zone, confirmPast) : null;
    if (outside) throw new ValidationError([outside]);
    return transition;
  });
  return presented(deps, release);
}

/**
 * Four eyes on a manual release (contract 6.4): `overrideRelease` for a HELD release released with `override`
 * (else `manualRelease` covers it too), `manualRelease` for any other; a release the request could not move anyway
 * (its state refuses it) is left to the use case's own 409.
 */
async function gateManualRelease(
  deps: Dependencies,
  ask: { orderId: string; vendorId: string; input: ManualReleaseInput; fields: ActorAndReason; override: boolean },
): Promise<void> {
  const rules: ApprovalRules | undefined = (await deps.settings.get()).approvals;
  if (deps.caller?.approval || !(isControlled(rules, 'manualRelease') || isControlled(rules, 'overrideRelease'))) return;
  const current = await deps.orders.getRelease(ask.orderId, ask.vendorId);
  if (!current) return;
  const held = current.state === 'HELD';
  if (held && !ask.override) return;
  if (!held && !MANUAL_RELEASE_FROM.includes(current.state)) return;
  const change = held && isControlled(rules, 'overrideRelease') ? 'overrideRelease' : 'manualRelease';
  const currency = current.currency ?? (await deps.orders.getOrder(ask.orderId))?.currency ?? 'INR';
  await requireFourEyes(deps, {
    change,
    request: { method: 'POST', path: `/orders/${ask.orderId}/vendors/${ask.vendorId}/release`, params: { orderId: ask.orderId, vendorId: ask.vendorId }, body: { ...ask.input, actor: ask.fields.actor, reason: ask.fields.reason } },
    orderId: ask.orderId,
    vendorId: ask.vendorId,
    actor: ask.fields.actor,
    reason: ask.fields.reason,
    moves: async () => [{ currency, amount: current.amount }],
    basis: { state: current.state },
  });
}

/** States a manual release may start from without `override` (contract 6). */
const MANUAL_RELEASE_FROM: readonly string[] = ['PLANNED', 'SCHEDULED', 'WAITING', 'AT_MAX', 'FAILED'];

/**
 * POST /orders/{orderId}/vendors/{vendorId}/retry: an operator's retry of a FAILED release (issue 10.2), planned
 * again under its rule with a fresh retry budget. Refused (409 `invalid_state`) from any other state.
 */
export async function retryRelease(deps: Dependencies, orderId: string, vendorId: string, input: ActorAndReason): Promise<ReleaseView> {
  requireId(orderId, 'orderId');
  requireId(vendorId, 'vendorId');
  const fields: ActorAndReason = { actor: input.actor, reason: input.reason };
  const release = await transitionRelease(deps, { orderId, vendorId }, { kind: 'retry', ...fields }, (plan) => retryFailed(plan, fields));
  return presented(deps, release);
}

async function presented(deps: Dependencies, release: VendorRelease): Promise<ReleaseView> {
  const settings = await deps.settings.get();
  return { orderId: release.orderId, ...releaseViewOf(release, settings.timezone, projectionContext(settings, deps.clock.now().ms)) };
}
