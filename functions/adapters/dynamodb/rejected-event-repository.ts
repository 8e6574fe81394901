/** Rejected (malformed) events in their own table, listed newest first for operators. */
import type { DocumentClient } from './document-client';
import type { RejectedEvent } from '../../domain/types';
import type { RejectedEventRepository } from '../../application/ports';
import { queryItems, utcSortKey } from './item-keys';

/**
 * One partition: rejected events are rare and read as a single newest-first list, which day buckets would turn into
 * a walk over empty days.
 */
const REJECTED_PK = 'REJECTED';
/** A detail larger than this is kept as a truncated preview, far below DynamoDB's 400 KB item limit. */
export const MAX_DETAIL_CHARS = 64 * 1024;

/** A type, not an interface: it is a plain item (an interface would not be one to the type checker). */
type RejectedItem = {
  pk: string;
  sk: string;
  id: string;
  at: string;
  source: string | null;
  detailType: string | null;
  reasons: string[];
  /** The detail as JSON text: kept verbatim, whatever numbers or shapes it held. */
  detailJson: string;
  detailTruncated: boolean;
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
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async add(rejected: RejectedEvent): Promise<void> {
    const item: RejectedItem = {
      pk: REJECTED_PK,
      sk: `${utcSortKey(rejected.at, 'at')}#${rejected.id}`,
      id: rejected.id,
      at: rejected.at,
      source: rejected.source,
      detailType: rejected.detailType,
      reasons: rejected.reasons,
      ...detailText(rejected.detail),
    };
    await this.doc.put({ TableName: this.tableName, Item: item });
  }

  async list(limit: number): Promise<RejectedEvent[]> {
    if (limit <= 0) return [];
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': REJECTED_PK },
      ScanIndexForward: false,
    }, limit);
    return (items as unknown as RejectedItem[]).map((item) => ({
      id: item.id,
      at: item.at,
      source: item.source,
      detailType: item.detailType,
      reasons: item.reasons,
      detail: item.detailTruncated ? { truncated: true, preview: item.detailJson } : JSON.parse(item.detailJson),
    }));
  }
}
