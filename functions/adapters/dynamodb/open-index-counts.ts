/**
 * What a preview asks of a vendor's open index in a fixed number of requests, whatever the vendor's size: how many
 * releases up to a bound (is the preview a job?), and the ends of each partition (does a previewId still hold?).
 */
import type { DocumentClient } from './document-client';
import { OPEN_INDEX, OPEN_SHARDS } from '../../definitions/tables';

/** A query of one whole open-index partition. */
function openPartition(tableName: string, pk: string) {
  return {
    TableName: tableName,
    IndexName: OPEN_INDEX.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': OPEN_INDEX.pk },
    ExpressionAttributeValues: { ':pk': pk },
  };
}

/**
 * Counted, not read: each partition queried at once with `Select: COUNT` (the store sends back a number, no entry),
 * up to a bound per partition. Shards are filled by a hash of the order id, so each holds about an eighth of the
 * vendor; a shard is counted up to a quarter more than its share of `max` (plus 64, so that a small `max` is counted
 * exactly), and the unsharded partition of older entries (`partitions[0]`) up to `max + 1`. When no partition reaches
 * its bound the sum is exact; a shard that reaches it means a vendor of about `max` releases or more, which is
 * answered as more (`max + 1`). So a decision reads at most about 1.25 x `max` index entries, 9 queries in parallel
 * (one 1 MB page each at the default 20,000), whether the vendor has 20,001 open releases or a million; one shard is
 * counted before the others, so a vendor well over `max` costs an eighth of that.
 */
export async function openCountUpTo(doc: DocumentClient, tableName: string, partitions: string[], max: number): Promise<number> {
  const shardBound = Math.min(max + 1, Math.ceil(((max + 1) * 1.25) / OPEN_SHARDS) + 64);
  const countOf = async (pk: string, bound: number) => {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await doc.count({ ...openPartition(tableName, pk), ExclusiveStartKey: start, Limit: bound - count });
      count += page.count;
      start = page.lastEvaluatedKey;
    } while (start && count < bound);
    return { count, full: count >= bound };
  };
  // One shard first: a vendor far over `max` fills it, and is answered after an eighth of the reading.
  const first = await countOf(partitions[1], shardBound);
  if (first.full) return max + 1;
  const others = await Promise.all(partitions.map((pk, i) => (i === 1 ? first : countOf(pk, i === 0 ? max + 1 : shardBound))));
  const sum = others.reduce((total, c) => total + c.count, 0);
  return others.some((c) => c.full) ? max + 1 : Math.min(sum, max + 1);
}

/**
 * The first and the last key of each partition, two queries of one entry each, all at once. The keys are ordered by
 * maximum eligibility (then order id), so a new order of the vendor (the latest maximum eligibility) or a settled one
 * (the earliest) moves them.
 */
export async function openEnds(doc: DocumentClient, tableName: string, partitions: string[]): Promise<string> {
  const ends = await Promise.all(partitions.flatMap((pk) => [true, false].map(async (forward) => {
    const page = await doc.query({ ...openPartition(tableName, pk), ScanIndexForward: forward, Limit: 1 });
    return (page.items[0]?.[OPEN_INDEX.sk] as string | undefined) ?? '';
  })));
  return ends.join('|');
}
