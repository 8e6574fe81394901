/**
 * Four-eyes approvals in the config table (`APPROVAL#id`/`APPROVAL`), indexed by state (APPROVAL_INDEX): each
 * decision is one conditional update that moves the item's state and its index key together, so exactly one of two
 * deciders wins and the lists never scan.
 */
import type { DocumentClient, Plain } from './document-client';
import type { ApprovalDecision, ApprovalRepository, StoredApproval } from '../../application/ports/approvals';
import type { ApprovalState } from '../../domain/approvals';
import type { Instant } from '../../domain/instant';
import { APPROVAL_INDEX } from '../../definitions/tables';
import { isConditionalCheckFailed, withTimes, withoutKeys } from './item-keys';

const approvalPk = (approvalId: string): string => `APPROVAL#${approvalId}`;
const APPROVAL_SK = 'APPROVAL';
/** The times of an approval item, read as Instants. */
const APPROVAL_TIMES = ['createdAt', 'expiresAt', 'decidedAt'] as const;
/** The expiry as UTC text, so that a condition compares it with the decider's clock as text. */
const EXPIRES_UTC = 'expiresAtUtc';

/** Index sort key: creation time (UTC) then id, so a state's list is newest first and the overdue come first ascending. */
export function approvalSortKey(approval: Pick<StoredApproval, 'createdAt' | 'approvalId'>): string {
  return `${new Date(approval.createdAt.ms).toISOString()}#${approval.approvalId}`;
}

export class DynamoApprovalRepository implements ApprovalRepository {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async create(approval: StoredApproval): Promise<void> {
    await this.doc.put({
      TableName: this.tableName,
      Item: {
        pk: approvalPk(approval.approvalId), sk: APPROVAL_SK, ...approval,
        [APPROVAL_INDEX.pk]: approval.state, [APPROVAL_INDEX.sk]: approvalSortKey(approval),
        [EXPIRES_UTC]: new Date(approval.expiresAt.ms).toISOString(),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  }

  async get(approvalId: string): Promise<StoredApproval | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk: approvalPk(approvalId), sk: APPROVAL_SK }, ConsistentRead: true });
    return item ? approvalOf(item) : null;
  }

  async decide(approvalId: string, decision: ApprovalDecision, now: Instant): Promise<StoredApproval | null> {
    try {
      const item = await this.doc.update({
        TableName: this.tableName,
        Key: { pk: approvalPk(approvalId), sk: APPROVAL_SK },
        UpdateExpression: 'SET #state = :to, #index = :to, #decidedBy = :by, #decidedAt = :at, #decisionReason = :why',
        // Approve and reject only before the expiry; expire only after it: a decision and an expiry never both land.
        ConditionExpression: `attribute_exists(pk) AND #state = :pending AND #expires ${decision.state === 'expired' ? '<=' : '>'} :now`,
        ExpressionAttributeNames: {
          '#state': 'state', '#index': APPROVAL_INDEX.pk, '#decidedBy': 'decidedBy', '#decidedAt': 'decidedAt',
          '#decisionReason': 'decisionReason', '#expires': EXPIRES_UTC,
        },
        ExpressionAttributeValues: {
          ':to': decision.state, ':by': decision.decidedBy, ':at': decision.decidedAt, ':why': decision.decisionReason,
          ':pending': 'pending', ':now': new Date(now.ms).toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      });
      return item ? approvalOf(item) : null;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return null;
      throw error;
    }
  }

  async recordApplied(approvalId: string, applied: NonNullable<StoredApproval['applied']>): Promise<void> {
    await this.doc.update({
      TableName: this.tableName,
      Key: { pk: approvalPk(approvalId), sk: APPROVAL_SK },
      UpdateExpression: 'SET #applied = :applied',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#applied': 'applied' },
      ExpressionAttributeValues: { ':applied': applied },
    });
  }

  async list(query: { state: ApprovalState; limit: number; after?: string | null }): Promise<{ items: StoredApproval[]; next: string | null }> {
    const items: StoredApproval[] = [];
    let start: Plain | undefined = query.after ? this.startKey(query.state, query.after) : undefined;
    do {
      const page = await this.doc.query({
        TableName: this.tableName,
        IndexName: APPROVAL_INDEX.name,
        KeyConditionExpression: '#state = :state',
        ExpressionAttributeNames: { '#state': APPROVAL_INDEX.pk },
        ExpressionAttributeValues: { ':state': query.state },
        ScanIndexForward: false,
        ExclusiveStartKey: start,
        Limit: query.limit + 1 - items.length,
      });
      for (const item of page.items) items.push(approvalOf(item));
      start = page.lastEvaluatedKey;
    } while (start && items.length <= query.limit);
    const more = items.length > query.limit;
    const kept = items.slice(0, query.limit);
    return { items: kept, next: more ? approvalSortKey(kept[kept.length - 1]) : null };
  }

  async pendingCreatedBefore(beforeUtc: string, limit: number): Promise<StoredApproval[]> {
    const page = await this.doc.query({
      TableName: this.tableName,
      IndexName: APPROVAL_INDEX.name,
      KeyConditionExpression: '#state = :pending AND #sk < :before',
      ExpressionAttributeNames: { '#state': APPROVAL_INDEX.pk, '#sk': APPROVAL_INDEX.sk },
      ExpressionAttributeValues: { ':pending': 'pending', ':before': beforeUtc },
      ScanIndexForward: true,
      Limit: limit,
    });
    return page.items.map(approvalOf);
  }

  /** The index position a page resumes after: the index keys and the table keys of that item. */
  private startKey(state: ApprovalState, after: string): Plain {
    const approvalId = after.slice(after.lastIndexOf('#') + 1);
    return { [APPROVAL_INDEX.pk]: state, [APPROVAL_INDEX.sk]: after, pk: approvalPk(approvalId), sk: APPROVAL_SK };
  }
}

function approvalOf(item: Plain): StoredApproval {
  const approval = withoutKeys<StoredApproval>(item, [APPROVAL_INDEX.pk, APPROVAL_INDEX.sk, EXPIRES_UTC], APPROVAL_TIMES);
  return approval.applied ? { ...approval, applied: withTimes(approval.applied as unknown as Plain, ['at']) } : approval;
}
