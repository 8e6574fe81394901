/** In-memory four-eyes approvals: the same rules as the DynamoDB adapter (one decision wins, lists by state, newest first). */
import { copy } from './copy';
import type { ApprovalDecision, ApprovalRepository, StoredApproval } from '../../functions/application/ports/approvals';
import type { ApprovalState } from '../../functions/domain/approvals';
import type { Instant } from '../../functions/domain/instant';

const sortKey = (a: StoredApproval): string => `${new Date(a.createdAt.ms).toISOString()}#${a.approvalId}`;

export class InMemoryApprovalRepository implements ApprovalRepository {
  readonly items = new Map<string, StoredApproval>();

  async create(approval: StoredApproval): Promise<void> {
    if (this.items.has(approval.approvalId)) throw Object.assign(new Error('exists'), { name: 'ConditionalCheckFailedException' });
    this.items.set(approval.approvalId, copy(approval));
  }

  async get(approvalId: string): Promise<StoredApproval | null> {
    const found = this.items.get(approvalId);
    return found ? copy(found) : null;
  }

  async decide(approvalId: string, decision: ApprovalDecision, now: Instant): Promise<StoredApproval | null> {
    const found = this.items.get(approvalId);
    if (!found || found.state !== 'pending') return null;
    const expired = found.expiresAt.ms <= now.ms;
    if (expired !== (decision.state === 'expired')) return null;
    const decided = { ...found, ...copy(decision) };
    this.items.set(approvalId, decided);
    return copy(decided);
  }

  async recordApplied(approvalId: string, applied: NonNullable<StoredApproval['applied']>): Promise<void> {
    const found = this.items.get(approvalId);
    if (!found) throw new Error(`approval ${approvalId} is unknown`);
    this.items.set(approvalId, { ...found, applied: copy(applied) });
  }

  async list(query: { state: ApprovalState; limit: number; after?: string | null }): Promise<{ items: StoredApproval[]; next: string | null }> {
    const all = [...this.items.values()].filter((a) => a.state === query.state)
      .sort((a, b) => sortKey(b).localeCompare(sortKey(a)))
      .filter((a) => !query.after || sortKey(a) < query.after);
    const kept = all.slice(0, query.limit);
    return { items: kept.map(copy), next: all.length > query.limit ? sortKey(kept[kept.length - 1]) : null };
  }

  async pendingCreatedBefore(beforeUtc: string, limit: number): Promise<StoredApproval[]> {
    return [...this.items.values()].filter((a) => a.state === 'pending' && sortKey(a) < beforeUtc)
      .sort((a, b) => sortKey(a).localeCompare(sortKey(b))).slice(0, limit).map(copy);
  }
}
