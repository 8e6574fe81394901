/** The port of four-eyes approvals (contract 6.4): one item per approval, listed by state from an index, never a scan. */
import type { ApprovalChange, ApprovalState, MovedAmount } from '../../domain/approvals';
import type { Instant } from '../../domain/instant';

/** Who asked or decided: the free-text actor and the proven principal (`local:unauthenticated` locally). */
export interface ApprovalParty {
  actor: string;
  principal: string;
}

/** An approval as stored. */
export interface StoredApproval {
  approvalId: string;
  change: ApprovalChange;
  state: ApprovalState;
  /** What was asked, replayed through the same use case when approved: the route, its path ids and its body. */
  request: { method: string; path: string; params: Record<string, string>; body: Record<string, unknown> };
  /** The change's subject, for its audit stream and the views. */
  orderId: string | null;
  vendorId: string | null;
  requestedBy: ApprovalParty;
  /**
   * Who the requester is for "another person": the principal on AWS, `local:<actor>` (lower case) locally, where
   * nothing is signed and the actor stands in.
   */
  requesterKey: string;
  /** The request's own reason. */
  reason: string;
  /** What it would move when asked, per currency (null: a settings change, which moves every open release). */
  moves: MovedAmount[] | null;
  /** What must still hold when it is approved (versions, a release's state, a hold's time): else `preview_stale`. */
  basis: Record<string, string | number | boolean | null>;
  createdAt: Instant;
  expiresAt: Instant;
  decidedBy: ApprovalParty | null;
  decidedAt: Instant | null;
  decisionReason: string | null;
  /** Once approved: whether the change was applied, and why not. */
  applied: { at: Instant; ok: boolean; error: string | null } | null;
}

/** The fields a decision writes. */
export interface ApprovalDecision {
  state: Exclude<ApprovalState, 'pending'>;
  decidedBy: ApprovalParty | null;
  decidedAt: Instant;
  decisionReason: string | null;
}

export interface ApprovalRepository {
  /** Stores a new approval (its id is new). */
  create(approval: StoredApproval): Promise<void>;
  /** Read consistently; null when unknown. */
  get(approvalId: string): Promise<StoredApproval | null>;
  /**
   * Decides a pending approval with one conditional write: only while it is `pending` and, for approve and reject,
   * while `now` (UTC ISO) is before its expiry; an expiry only once it has passed. The approval after the write, or
   * null when the condition failed (another decision came first, or the expiry says otherwise): exactly one decision.
   */
  decide(approvalId: string, decision: ApprovalDecision, now: Instant): Promise<StoredApproval | null>;
  /** Records the outcome of applying an approved change. */
  recordApplied(approvalId: string, applied: NonNullable<StoredApproval['applied']>): Promise<void>;
  /** One state's approvals, newest first (by creation), after the `next` of the previous page. */
  list(query: { state: ApprovalState; limit: number; after?: string | null }): Promise<{ items: StoredApproval[]; next: string | null }>;
  /** Pending approvals created before `beforeUtc` (those past their expiry), oldest first, at most `limit`. */
  pendingCreatedBefore(beforeUtc: string, limit: number): Promise<StoredApproval[]>;
}
