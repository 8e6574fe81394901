/**
 * The four-eyes gate (contract 6.4): a use case calls it once the request is valid and before it changes anything.
 * When the settings' `approvals` name the change (above its amount), the request is kept as a pending approval and
 * ApprovalRequired answers `202 {approval}`; the approval, once another person approves it, replays the same request
 * through the same use case, with `caller.approval` set so that the gate lets it through.
 */
import { randomBytes } from 'node:crypto';
import { APPROVAL_LIFETIME_MS, isControlled, needsApproval, type ApprovalChange, type MovedAmount } from '../domain/approvals';
import { ApprovalRequired } from './errors';
import type { Dependencies } from './ports';
import { appendAudit, storedInstant } from './release-store';
import { approvalView } from './approval-views';
import type { Instant } from '../domain/instant';
import type { StoredApproval } from './ports/approvals';
import type { Settings } from '../domain/types';

/** What a use case tells the gate about its change. */
export interface GatedChange {
  change: ApprovalChange;
  request: StoredApproval['request'];
  orderId?: string;
  vendorId?: string;
  actor: string;
  reason: string;
  /** What the change moves, read only when a rule names the change (null: no amount). */
  moves: () => Promise<MovedAmount[] | null>;
  /** What must still hold when it is approved. */
  basis: StoredApproval['basis'];
}

/**
 * Open releases a request reads at most when it needs a vendor's open money (four eyes' amount, a cap's currencies):
 * one page of each of the vendor's open-index partitions, a fixed number of requests however many releases the vendor
 * has (contract 6.3: the request's work does not grow with the vendor). Past it the totals are lower bounds.
 */
export const OPEN_MONEY_READ_BOUND = 900;

/** The vendor's open money per currency as the request reads it (bounded): `atLeast` on each when there is more. */
export async function vendorOpenMoney(deps: Pick<Dependencies, 'reads'>, vendorId: string, bound = OPEN_MONEY_READ_BOUND): Promise<MovedAmount[]> {
  const { totals, complete } = await deps.reads.openTotalsUpTo(vendorId, bound);
  return totals.map((t) => ({ currency: t.currency, amount: t.amount, count: t.count, ...(complete ? {} : { atLeast: true }) }));
}

/** Ids that sort by creation time (base-36 milliseconds), then random: `ap_` + 9 + 12 characters. */
export function newApprovalId(nowMs: number): string {
  return `ap_${nowMs.toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`;
}

/**
 * Who the requester is for "another person". Signed: the person, not the role they wear: the account and the
 * principal's name (an assumed role's session name, an IAM user's name), so that one person asking as a maker role
 * and approving as a checker role is still the same person. Unsigned (locally): the actor.
 */
export function personKey(deps: Pick<Dependencies, 'caller'>, actor: string): string {
  const caller = deps.caller;
  if (!caller?.authenticated) return `local:${actor.trim().toLowerCase()}`;
  const account = caller.principal.split(':')[4] ?? '';
  return `aws:${account}:${(caller.name ?? caller.principal).trim().toLowerCase()}`;
}

/**
 * Returns when the change may go ahead (no rule names it, it is under the rule's amounts, or it is an approved
 * replay); otherwise stores a pending approval, audits `approval_requested` and throws ApprovalRequired.
 */
export async function requireFourEyes(deps: Dependencies, gated: GatedChange, settings?: Pick<Settings, 'approvals'>): Promise<void> {
  if (deps.caller?.approval) return;
  // The settings the caller read with its own first reads (one round trip less), else read here.
  const rules = (settings ?? await deps.settings.get()).approvals;
  if (!isControlled(rules, gated.change)) return;
  const moves = await gated.moves();
  if (!needsApproval(rules, gated.change, moves)) return;
  const now = deps.clock.now();
  const approval: StoredApproval = {
    approvalId: newApprovalId(now.ms),
    change: gated.change,
    state: 'pending',
    request: gated.request,
    orderId: gated.orderId ?? null,
    vendorId: gated.vendorId ?? null,
    requestedBy: { actor: gated.actor, principal: deps.caller?.principal ?? 'local:unauthenticated' },
    requesterKey: personKey(deps, gated.actor),
    reason: gated.reason,
    moves,
    basis: gated.basis,
    createdAt: storedInstant(now),
    expiresAt: storedInstant(now.plusMs(APPROVAL_LIFETIME_MS)),
    decidedBy: null,
    decidedAt: null,
    decisionReason: null,
    applied: null,
  };
  await deps.approvals.create(approval);
  await keepPreviewFor(deps, approval);
  await appendAudit(deps, [approvalAuditEntry(approval, 'approval_requested', gated.actor, {
    request: approval.request, moves: approval.moves, expiresAt: approval.expiresAt, reason: approval.reason,
  }, storedInstant(now))]);
  throw new ApprovalRequired(approvalView(approval, (await deps.settings.get()).timezone, now.ms));
}

/**
 * A request made from a preview (`previewId`) applies only if what the preview showed still holds: the preview is kept
 * as long as the approval, so that its approval checks exactly that, not the preview's own hour.
 */
async function keepPreviewFor(deps: Dependencies, approval: StoredApproval): Promise<void> {
  const previewId = approval.request.body.previewId;
  if (typeof previewId !== 'string') return;
  const preview = await deps.previews.get(previewId);
  if (preview && preview.expiresAt.ms < approval.expiresAt.ms) {
    await deps.previews.save({ ...preview, expiresAt: approval.expiresAt });
  }
}

/** An audit entry of an approval's step, on its subject's stream (the order's, the vendor's, or the configuration's). */
export function approvalAuditEntry(approval: StoredApproval, kind: string, actor: string | null, detail: Record<string, unknown>, at: Instant) {
  return {
    kind,
    at,
    actor,
    ...(approval.orderId ? { orderId: approval.orderId } : {}),
    ...(approval.vendorId ? { vendorId: approval.vendorId } : {}),
    detail: { approvalId: approval.approvalId, change: approval.change, ...detail },
  };
}
