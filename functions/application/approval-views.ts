/** What the API shows of an approval: its state as of now (a pending one past its expiry reads `expired`), times in the settings' zone. */
import { approvalStateAt, type ApprovalState } from '../domain/approvals';
import { inZone, type Shown } from './response-times';
import type { StoredApproval } from './ports/approvals';

export type ApprovalView = Omit<Shown<StoredApproval, 'createdAt' | 'expiresAt' | 'decidedAt'>, 'requesterKey' | 'applied'> & {
  state: ApprovalState;
  applied: Shown<NonNullable<StoredApproval['applied']>, 'at'> | null;
};

export function approvalView(approval: StoredApproval, zone: string, nowMs: number): ApprovalView {
  const { requesterKey: _key, ...shown } = approval;
  return {
    ...shown,
    state: approvalStateAt(approval, nowMs),
    createdAt: inZone(approval.createdAt, zone),
    expiresAt: inZone(approval.expiresAt, zone),
    decidedAt: inZone(approval.decidedAt, zone),
    applied: approval.applied ? { ...approval.applied, at: inZone(approval.applied.at, zone) } : null,
  };
}
