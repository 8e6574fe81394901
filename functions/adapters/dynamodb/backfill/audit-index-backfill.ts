/**
 * The upgrade's backfill of the audit table's time index (`byTime`; tables.ts): an audit log written before the index
 * has records without `timePk`/`timeSk`, so the checkpoint writer, which asks the index which streams moved, would not
 * see a stream until it moves again. As the writer does for the last record of an append, each stream's newest record
 * (its head) is given its time index keys, computed by the function the writer uses (timeIndexKeys). The record itself
 * is untouched: the keys are outside every hash and outside the write-once copy's lines (the copier drops them, and
 * does not count a change of them alone as tampering). Each update is conditional on the record being the one scanned
 * (its hash) and not yet indexed, so it is safe beside live appends, idempotent, and resumable by running it again.
 * Run by bin/backfill-indexes.ts --audit-table (README, runbook "Upgrade").
 */
import { AUDIT_TIME_INDEX, CHECKPOINT_PK, KEY, PENDING_PK, SIGNED_PK } from '../../../definitions/tables';
import type { DocumentClient } from '../document-client';
import { isConditionalCheckFailed } from '../item-keys';
import { timeIndexKeys } from '../audit-store';
import type { BackfillResult } from './index-backfill';

export interface AuditBackfillOptions {
  /** Items per scan page. */
  pageSize?: number;
  /** Counts what would change without writing. */
  dryRun?: boolean;
  onPage?: (progress: AuditBackfillResult) => void;
}

/**
 * The counts of the orders table's backfill, read for the audit log: `updated`/`current` count streams (their heads
 * given the keys, or carrying them already), `changedMeanwhile` heads a writer changed or indexed between the scan and
 * the update, `other` items that are not records (checkpoints, the writer's pointers, pending entries), `unreadable`
 * items that cannot be read as a record (left as they are: verification reports them).
 */
export type AuditBackfillResult = BackfillResult;

interface Head {
  sk: string;
  sequence: number;
  hash: string;
  recordedAt: string;
  indexed: { pk: unknown; sk: unknown };
}

const NOT_RECORDS = new Set<unknown>([CHECKPOINT_PK, PENDING_PK, SIGNED_PK]);

export async function backfillAuditTimeIndex(doc: DocumentClient, tableName: string, options: AuditBackfillOptions = {}): Promise<AuditBackfillResult> {
  const result: AuditBackfillResult = { scanned: 0, updated: 0, current: 0, changedMeanwhile: 0, other: 0, unreadable: [] };
  // One entry per stream (its highest sequence so far), never one per record.
  const heads = new Map<string, Head>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.scan({ TableName: tableName, Limit: options.pageSize ?? 500, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) });
    for (const item of page.items) {
      result.scanned += 1;
      const stream = item[KEY.pk];
      if (NOT_RECORDS.has(stream)) {
        result.other += 1;
        continue;
      }
      const { sequence, hash, recordedAt } = item;
      if (typeof stream !== 'string' || typeof sequence !== 'number' || typeof hash !== 'string' || typeof recordedAt !== 'string' || Number.isNaN(Date.parse(recordedAt))) {
        result.unreadable.push({ pk: String(stream), sk: String(item[KEY.sk]), reason: 'not a record: stream, sequence, hash and recordedAt are needed' });
        continue;
      }
      const known = heads.get(stream);
      if (!known || sequence > known.sequence) {
        heads.set(stream, { sk: String(item[KEY.sk]), sequence, hash, recordedAt, indexed: { pk: item[AUDIT_TIME_INDEX.pk], sk: item[AUDIT_TIME_INDEX.sk] } });
      }
    }
    start = page.lastEvaluatedKey;
    options.onPage?.(result);
  } while (start);

  for (const [stream, head] of heads) {
    const keys = timeIndexKeys({ stream, sequence: head.sequence, recordedAt: head.recordedAt });
    if (head.indexed.pk === keys.timePk && head.indexed.sk === keys.timeSk) {
      result.current += 1;
    } else if (head.indexed.pk !== undefined || head.indexed.sk !== undefined) {
      // Keys that are not the record's own: verification reports them; the backfill does not paper over them.
      result.unreadable.push({ pk: stream, sk: head.sk, reason: 'its time index keys are not the record\'s own (verification reports it)' });
    } else if (options.dryRun) {
      result.updated += 1;
    } else if (await indexHead(doc, tableName, stream, head, keys)) {
      result.updated += 1;
    } else {
      result.changedMeanwhile += 1;
    }
  }
  return result;
}

/** Sets the keys if the record is still the one scanned and still unindexed; false when a writer changed it meanwhile. */
async function indexHead(doc: DocumentClient, tableName: string, stream: string, head: Head, keys: { timePk: string; timeSk: string }): Promise<boolean> {
  try {
    await doc.update({
      TableName: tableName,
      Key: { [KEY.pk]: stream, [KEY.sk]: head.sk },
      UpdateExpression: 'SET #tp = :tp, #ts = :ts',
      ConditionExpression: '#h = :h AND attribute_not_exists(#tp) AND attribute_not_exists(#ts)',
      ExpressionAttributeNames: { '#tp': AUDIT_TIME_INDEX.pk, '#ts': AUDIT_TIME_INDEX.sk, '#h': 'hash' },
      ExpressionAttributeValues: { ':tp': keys.timePk, ':ts': keys.timeSk, ':h': head.hash },
    });
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
