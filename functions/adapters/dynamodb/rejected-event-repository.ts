/** Rejected (malformed) events in their own table, numbered as they arrive, listed newest first for operators in cursor pages. */
import type { DocumentClient } from './document-client';
import type { RejectedEvent } from '../../domain/types';
import type { RejectedEventRepository } from '../../application/ports';
import { Instant } from '../../domain/instant';
import { expiryStamp, type RetentionDays } from './retention';

/**
 * One partition: rejected events are rare and read as a single newest-first list, which day buckets would turn into
 * a walk over empty days. Each item's sort key is its arrival number (`SEQ#` and 12 digits), taken from an atomic
 * counter, so the order is the order of arrival, not of clocks that differ between containers.
 */
const REJECTED_PK = 'REJECTED';
/** The counter of arrivals (its value is the count) and the marker of each id already stored (retries of one event). */
const COUNTER_KEY = { pk: 'REJECTED_COUNT', sk: 'COUNT' };
const idKey = (id: string) => ({ pk: 'REJECTED_ID', sk: id });
const SEQUENCE_PREFIX = 'SEQ#';
const sequenceSk = (sequence: number): string => SEQUENCE_PREFIX + String(sequence).padStart(12, '0');
/** A detail larger than this is kept as a truncated preview, far below DynamoDB's 400 KB item limit. */
export const MAX_DETAIL_CHARS = 64 * 1024;

/** A type, not an interface: it is a plain item (an interface would not be one to the type checker). */
type RejectedItem = {
  pk: string;
  sk: string;
  /** Arrival number, from 1; absent on items stored before arrival numbers (listed after every numbered one). */
  sequence?: number;
  id: string;
  at: string;
  source: string | null;
  detailType: string | null;
  reasons: string[];
  /** The detail as JSON text: kept verbatim, whatever numbers or shapes it held. */
  detailJson: string;
  detailTruncated: boolean;
  /** Epoch seconds: when DynamoDB's TTL may delete it (absent: kept for ever). */
  expiresAt?: number;
}

function detailText(detail: unknown): { detailJson: string; detailTruncated: boolean } {
  let text: string;
  try {
    text = JSON.stringify(detail) ?? 'null';
  } catch {
    text = JSON.stringify(String(detail));
  }
  return text.length > MAX_DETAIL_CHARS
    ? { detailJson: text.slice(0, MAX_DETAIL_CHARS), detailTruncated: true }
    : { detailJson: text, detailTruncated: false };
}

export class DynamoRejectedEventRepository implements RejectedEventRepository {
  /** `retention.rejected`: days after its `at` that a rejected event (and its id marker) expires; unset: never. */
  constructor(private readonly doc: DocumentClient, private readonly tableName: string, private readonly retention: RetentionDays = {}) {}

  /**
   * A retried event (same id) is stored once: its marker is read first. Two copies of one event rejected at the same
   * instant by two containers could both pass that read; both are then listed, each with its own number.
   */
  async add(rejected: RejectedEvent): Promise<void> {
    const stored = await this.doc.get({ TableName: this.tableName, Key: idKey(rejected.id), ConsistentRead: true });
    if (stored) return;
    const counted = await this.doc.update({
      TableName: this.tableName,
      Key: COUNTER_KEY,
      UpdateExpression: 'ADD #count :one',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    });
    const sequence = Number(counted?.count);
    // The arrival counter never expires: it numbers arrivals and counts every rejection ever made.
    const expiry = expiryStamp(rejected.at, this.retention.rejected, 'at');
    const item: RejectedItem = {
      pk: REJECTED_PK,
      sk: sequenceSk(sequence),
      sequence,
      id: rejected.id,
      at: rejected.at.toText(),
      source: rejected.source,
      detailType: rejected.detailType,
      reasons: rejected.reasons,
      ...detailText(rejected.detail),
      ...expiry,
    };
    await this.doc.put({ TableName: this.tableName, Item: item });
    await this.doc.put({ TableName: this.tableName, Item: { ...idKey(rejected.id), sequence, ...expiry } });
  }

  async page(opts: { limit: number; after?: string | null }): Promise<{ items: (RejectedEvent & { sequence: number })[]; next: string | null; count: number }> {
    const [page, counter] = await Promise.all([
      this.doc.query({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': REJECTED_PK },
        ScanIndexForward: false,
        // One more than asked: whether there is a next page is then known, not guessed from LastEvaluatedKey.
        Limit: opts.limit + 1,
        ...(opts.after ? { ExclusiveStartKey: { pk: REJECTED_PK, sk: opts.after } } : {}),
      }),
      this.doc.get({ TableName: this.tableName, Key: COUNTER_KEY }),
    ]);
    const kept = (page.items as unknown as RejectedItem[]).slice(0, opts.limit);
    const items = kept.map((item) => ({
      sequence: item.sequence ?? 0,
      id: item.id,
      at: Instant.parse(item.at, 'at'),
      source: item.source,
      detailType: item.detailType,
      reasons: item.reasons,
      detail: item.detailTruncated ? { truncated: true, preview: item.detailJson } : JSON.parse(item.detailJson),
    }));
    const next = page.items.length > opts.limit ? kept[kept.length - 1].sk : null;
    return { items, next, count: Number(counter?.count ?? 0) };
  }
}
