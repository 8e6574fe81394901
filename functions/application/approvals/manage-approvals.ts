/**
 * Use cases of four eyes (contract 6.4): list approvals by state, approve or reject one (another person, with a
 * reason), apply an approved change by replaying its stored request through the same use case, expire the overdue.
 */
import { APPROVAL_LIFETIME_MS, APPROVAL_STATES, type ApprovalState } from '../../domain/approvals';
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { decodeCursor, encodeCursor } from '../cursor';
import { VersionConflictError, type Dependencies } from '../ports';
import { appendAudit, storedInstant } from '../release-store';
import { approvalView, type ApprovalView } from '../approval-views';
import type { ApprovalParty, StoredApproval } from '../ports/approvals';
import { approvalAuditEntry, personKey } from '../four-eyes';

const APPROVAL_ID = /^ap_[0-9a-z]{9}[0-9a-f]{12}$/;
/** Overdue approvals expired per call (the next list or sweep carries on). */
const EXPIRE_BATCH = 100;

function requireApprovalId(value: string): string {
  if (!APPROVAL_ID.test(value)) {
    throw new ValidationError([{ field: 'approvalId', problem: `is ${JSON.stringify(value.slice(0, 60))}, not an approval id`, expected: 'the approvalId a 202 answer or GET /approvals gave, e.g. "ap_0lq2x8k9ab1c2d3e4f5a6"' }]);
  }
  return value;
}

/** GET /approvals/{approvalId}. */
export async function getApproval(deps: Dependencies, approvalId: string): Promise<ApprovalView> {
  const approval = await deps.approvals.get(requireApprovalId(approvalId));
  if (!approval) throw new NotFoundError(`approval ${approvalId} is unknown; GET /approvals?state=pending lists the pending ones`);
  return present(deps, approval);
}

/**
 * GET /approvals?state=&limit=&cursor=: one state's approvals, newest first, from the state index. The overdue pending
 * ones are expired first (written and audited), so `pending` never lists an expired approval.
 */
export async function listApprovals(
  deps: Dependencies,
  query: { state?: string; limit?: string; cursor?: string },
): Promise<{ items: ApprovalView[]; nextCursor: string | null }> {
  const issues: ValidationIssue[] = [];
  const state = (query.state ?? 'pending') as ApprovalState;
  if (!APPROVAL_STATES.includes(state)) issues.push({ field: 'state', problem: `is ${JSON.stringify(query.state)}`, expected: `one of ${APPROVAL_STATES.join(', ')}, or leave it out for pending` });
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) issues.push({ field: 'limit', problem: `is ${JSON.stringify(query.limit)}`, expected: 'a whole number from 1 to 200 (default 50)' });
  const after = decodeCursor(query.cursor, `approvals:${state}`);
  if (issues.length) throw new ValidationError(issues);
  await expireOverdue(deps);
  const page = await deps.approvals.list({ state, limit, after });
  const settings = await deps.settings.get();
  const now = deps.clock.now().ms;
  return { items: page.items.map((a) => approvalView(a, settings.timezone, now)), nextCursor: page.next ? encodeCursor(`approvals:${state}`, page.next) : null };
}

/** Expires the pending approvals past their 24 hours (each written once and audited); the sweep calls it too. */
export async function expireOverdue(deps: Dependencies): Promise<number> {
  const now = deps.clock.now();
  const overdue = await deps.approvals.pendingCreatedBefore(new Date(now.ms - APPROVAL_LIFETIME_MS + 1).toISOString(), EXPIRE_BATCH);
  let expired = 0;
  for (const approval of overdue) {
    if (await expire(deps, approval)) expired += 1;
  }
  return expired;
}

async function expire(deps: Dependencies, approval: StoredApproval): Promise<boolean> {
  const now = deps.clock.now();
  const at = storedInstant(now);
  const decided = await deps.approvals.decide(approval.approvalId, { state: 'expired', decidedBy: null, decidedAt: at, decisionReason: 'nobody decided within 24 hours' }, now);
  if (!decided) return false;
  await appendAudit({ ...deps, caller: undefined }, [approvalAuditEntry(decided, 'approval_expired', null, { expiresAt: decided.expiresAt }, at)]);
  return true;
}

/** The approval as it stands now, with an overdue pending one expired first. */
async function loadCurrent(deps: Dependencies, approvalId: string): Promise<StoredApproval> {
  const approval = await deps.approvals.get(requireApprovalId(approvalId));
  if (!approval) throw new NotFoundError(`approval ${approvalId} is unknown; GET /approvals?state=pending lists the pending ones`);
  if (approval.state === 'pending' && approval.expiresAt.ms <= deps.clock.now().ms) {
    await expire(deps, approval);
    return (await deps.approvals.get(approvalId)) ?? approval;
  }
  return approval;
}

function notPending(approval: StoredApproval, zone: string): ConflictError {
  const when = approval.state === 'expired'
    ? `expired at ${approvalView(approval, zone, 0).expiresAt} (24 hours after it was asked for)`
    : `${approval.state} by ${approval.decidedBy?.actor ?? 'nobody'} at ${approvalView(approval, zone, 0).decidedAt ?? 'an unknown time'}`;
  return new ConflictError('invalid_state', `approval ${approval.approvalId} is ${approval.state}, not pending: it was ${when}; only a pending approval can be approved or rejected (ask for the change again if it is still wanted)`);
}

/** Who decides and why, as the route's body schema read them (handlers/routes/approvals.ts). */
export interface DecisionInput {
  actor: string;
  reason: string;
}

/**
 * POST /approvals/{approvalId}/approve and /reject (body `{reason}`, plus `actor` locally). Only another person than
 * the requester (403), only while pending (409 `invalid_state` naming the state); two deciders at once: one
 * conditional write wins, the other gets the 409. An approval whose basis moved is `409 preview_stale` and stays
 * pending; an approved one is applied by replaying its request, and the outcome is kept on it.
 */
export async function decideApproval(
  deps: Dependencies,
  approvalId: string,
  fields: DecisionInput,
  decision: 'approved' | 'rejected',
  replays: ApprovalReplays,
): Promise<{ approval: ApprovalView; result: unknown }> {
  const settings = await deps.settings.get();
  const approval = await loadCurrent(deps, approvalId);
  if (approval.state !== 'pending') throw notPending(approval, settings.timezone);
  if (personKey(deps, fields.actor) === approval.requesterKey) {
    throw new ForbiddenError('own_approval', `${decision === 'approved' ? 'approve' : 'reject'}: you (${deps.caller?.authenticated ? deps.caller.principal : fields.actor}) asked for this change; four eyes means another person decides it: ask a colleague with the checker policy`);
  }
  if (decision === 'approved') {
    const stale = await staleBasis(deps, approval);
    if (stale) throw new ConflictError('preview_stale', `approval ${approval.approvalId} no longer holds: ${stale}; reject it and ask for the change again`);
  }
  const now = deps.clock.now();
  const at = storedInstant(now);
  const decidedBy: ApprovalParty = { actor: fields.actor, principal: deps.caller?.principal ?? 'local:unauthenticated' };
  const decided = await deps.approvals.decide(approval.approvalId, { state: decision, decidedBy, decidedAt: at, decisionReason: fields.reason }, now);
  if (!decided) throw notPending((await deps.approvals.get(approval.approvalId)) ?? approval, settings.timezone);
  await appendAudit(deps, [approvalAuditEntry(decided, decision === 'approved' ? 'approval_approved' : 'approval_rejected', fields.actor, {
    reason: fields.reason, requestedBy: approval.requestedBy,
  }, at)]);
  if (decision === 'rejected') return { approval: await present(deps, decided), result: null };
  return applyApproved(deps, decided, decidedBy, replays);
}

/** Replays the approved request as its requester asked it; a change that no longer applies is `409 preview_stale`. */
async function applyApproved(
  deps: Dependencies, approval: StoredApproval, approver: ApprovalParty, replays: ApprovalReplays,
): Promise<{ approval: ApprovalView; result: unknown }> {
  const replayDeps: Dependencies = {
    ...deps,
    caller: {
      principal: approval.requestedBy.principal,
      authenticated: !approval.requestedBy.principal.startsWith('local:'),
      name: approval.requestedBy.actor,
      orgId: null,
      approval: { approvalId: approval.approvalId },
    },
  };
  let result: unknown;
  try {
    result = await replay(replayDeps, approval, replays);
  } catch (error) {
    if (!(error instanceof ConflictError || error instanceof VersionConflictError || error instanceof NotFoundError || error instanceof ValidationError)) throw error;
    const at = storedInstant(deps.clock.now());
    await deps.approvals.recordApplied(approval.approvalId, { at, ok: false, error: error.message });
    await appendAudit(deps, [approvalAuditEntry(approval, 'approval_not_applied', approver.actor, { error: error.message }, at)]);
    throw new ConflictError('preview_stale', `approval ${approval.approvalId} is approved, but the change no longer applies as asked: ${error.message}; ask for it again`);
  }
  const at = storedInstant(deps.clock.now());
  await deps.approvals.recordApplied(approval.approvalId, { at, ok: true, error: null });
  await appendAudit(deps, [approvalAuditEntry(approval, 'approval_applied', approver.actor, { requestedBy: approval.requestedBy, approvedBy: approver }, at)]);
  const stored = (await deps.approvals.get(approval.approvalId)) ?? approval;
  return { approval: await present(deps, stored), result };
}

/**
 * The use cases an approved change is replayed through, handed over by the routes (handlers/routes/approvals.ts), so
 * that approvals/ imports no other area's use case.
 */
export interface ApprovalReplays {
  releaseManually(deps: Dependencies, orderId: string, vendorId: string, body: unknown): Promise<unknown>;
  setVendorHold(deps: Dependencies, vendorId: string, body: unknown, held: boolean): Promise<unknown>;
  putPolicy(deps: Dependencies, vendorId: string, body: unknown): Promise<unknown>;
  updateSettings(deps: Dependencies, body: unknown): Promise<unknown>;
}

/** The same use case the request would have run, with what it was based on pinned (a moved version is a conflict). */
async function replay(deps: Dependencies, approval: StoredApproval, replays: ApprovalReplays): Promise<unknown> {
  const { params, body } = approval.request;
  switch (approval.change) {
    case 'manualRelease':
    case 'overrideRelease':
      return replays.releaseManually(deps, params.orderId, params.vendorId, body);
    case 'unhold':
      return replays.setVendorHold(deps, params.vendorId, body, false);
    case 'policyChange':
      return replays.putPolicy(deps, params.vendorId, { ...body, expectedVersion: approval.basis.policyVersion });
    case 'settingsChange':
      return replays.updateSettings(deps, { ...body, version: approval.basis.settingsVersion });
  }
}

/** What moved since the approval was asked for, in words; null when its basis still holds. */
async function staleBasis(deps: Dependencies, approval: StoredApproval): Promise<string | null> {
  const { basis, request } = approval;
  switch (approval.change) {
    case 'manualRelease':
    case 'overrideRelease': {
      const release = await deps.orders.getRelease(request.params.orderId, request.params.vendorId);
      const state = release?.state ?? 'gone';
      return state === basis.state ? null : `the release of ${request.params.vendorId} in order ${request.params.orderId} was ${String(basis.state)} and is ${state} now`;
    }
    case 'unhold': {
      const hold = await deps.holds.get(request.params.vendorId);
      return hold?.held && hold.at.toText() === basis.holdAt ? null : `the hold of ${request.params.vendorId} changed since (${hold?.held ? `held again at ${hold.at}` : 'it is lifted already'})`;
    }
    case 'policyChange': {
      const version = (await deps.policies.current(request.params.vendorId))?.version ?? 0;
      return version === basis.policyVersion ? null : `the policy of ${request.params.vendorId} moved from version ${String(basis.policyVersion)} to ${version}`;
    }
    case 'settingsChange': {
      const version = (await deps.settings.get()).version;
      return version === basis.settingsVersion ? null : `the settings moved from version ${String(basis.settingsVersion)} to ${version}`;
    }
  }
}

async function present(deps: Dependencies, approval: StoredApproval): Promise<ApprovalView> {
  return approvalView(approval, (await deps.settings.get()).timezone, deps.clock.now().ms);
}

