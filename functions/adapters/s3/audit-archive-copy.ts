/**
 * The audit log's write-once copy on AWS: the records and checkpoints that DynamoDB Streams reports as inserted in one
 * stream batch become one S3 object (`log/<day>/<first>-<last event id>.ndjson`, one export line each:
 * `{"type": "record", ...}`) in a bucket with Object Lock in compliance mode, so that no role of the stack (the
 * checkpoint signer included) can change or delete what was written. One object per batch, not per record: a PUT costs
 * as much as 7 DynamoDB writes, and a batch holds up to a minute of records (lib/audit-archive.ts). Every PUT is
 * conditional (`If-None-Match: *`; the bucket policy denies any other), so no key is ever written twice: a retried
 * batch finds its key taken (412) with the same lines in it, and is done; a split batch writes its halves under their
 * own keys, so a line can be in two objects: readers drop identical lines (`sort -u`, audit-archive-read.ts). A record
 * or a checkpoint changed or removed in the table is kept too, as evidence, under `tampering/`, one object each.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Logger } from '../../application/ports';
import { CHECKPOINT_PK, PENDING_PK, SIGNED_PK } from './../dynamodb/audit-store';
import { AUDIT_TIME_INDEX, KEY } from '../../definitions/tables';
import { canonicalJson } from '../../domain/audit/audit-records';
import type { S3Requests } from './s3-requests';

/** One DynamoDB Streams record, as Lambda hands it over (images in the low-level attribute form). */
export interface AuditStreamRecord {
  eventID?: string;
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE' | string;
  dynamodb?: { Keys?: Record<string, unknown>; NewImage?: Record<string, unknown>; OldImage?: Record<string, unknown>; ApproximateCreationDateTime?: number };
}

export interface ArchiveObject {
  key: string;
  body: string;
}

const image = (value: Record<string, unknown> | undefined): Record<string, unknown> | null =>
  value ? unmarshall(value as Record<string, AttributeValue>) : null;

/** The item without the table's own keys (its key and its time index keys): the record or checkpoint itself. */
function logMembers(item: Record<string, unknown>): Record<string, unknown> {
  const { [KEY.pk]: _pk, [KEY.sk]: _sk, [AUDIT_TIME_INDEX.pk]: _tpk, [AUDIT_TIME_INDEX.sk]: _tsk, ...member } = item;
  return member;
}

/** The record or checkpoint exactly as an export line holds it. */
function exportLine(item: Record<string, unknown>, type: 'record' | 'checkpoint'): string {
  return `${JSON.stringify({ type, ...logMembers(item) })}\n`;
}

/** The objects to write for a batch of stream records (the writer's pointers and pending entries are not the log). */
export function archiveObjectsOf(records: readonly AuditStreamRecord[]): ArchiveObject[] {
  const objects: ArchiveObject[] = [];
  const lines: string[] = [];
  const ids: string[] = [];
  let firstAt: number | null = null;
  for (const record of records) {
    const next = image(record.dynamodb?.NewImage);
    const previous = image(record.dynamodb?.OldImage);
    const item = next ?? previous;
    const pk = item?.[KEY.pk];
    if (typeof pk !== 'string' || pk === PENDING_PK || pk === SIGNED_PK) continue;
    const type = pk === CHECKPOINT_PK ? 'checkpoint' : 'record';
    if (record.eventName === 'INSERT' && next) {
      lines.push(exportLine(next, type));
      ids.push(record.eventID ?? 'unknown');
      if (firstAt === null) firstAt = record.dynamodb?.ApproximateCreationDateTime ?? null;
      continue;
    }
    // Only the time index keys changed (the upgrade's backfill, audit-index-backfill.ts): the log itself did not.
    if (record.eventName === 'MODIFY' && next && previous && canonicalJson(logMembers(next)) === canonicalJson(logMembers(previous))) continue;
    // A MODIFY or REMOVE of a record or a checkpoint: the log is append-only, so this is tampering (or a restore).
    const when = new Date((record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000).toISOString();
    objects.push({
      key: `tampering/${when}-${record.eventID ?? 'unknown'}.json`,
      body: `${JSON.stringify({ eventName: record.eventName, stream: pk, sortKey: item?.[KEY.sk], oldImage: previous, newImage: next })}\n`,
    });
  }
  if (lines.length > 0) {
    const day = firstAt === null ? 'undated' : new Date(firstAt * 1000).toISOString().slice(0, 10);
    objects.unshift({ key: `log/${day}/${ids[0]}-${ids[ids.length - 1]}.ndjson`, body: lines.join('') });
  }
  return objects;
}

/** Whether S3 refused a conditional put because the key is taken (the same batch, written before). */
const keyTaken = (error: unknown): boolean => (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 412;

/**
 * Writes the batch's object (and any tampering evidence), each only if its key is free; a key already taken was
 * written by this same batch before (its key names the batch's first and last event), so it counts as written. Any
 * other failure throws, so Lambda retries the batch.
 */
export async function archiveAuditRecords(s3: S3Requests, bucket: string, records: readonly AuditStreamRecord[], logger: Logger): Promise<number> {
  const objects = archiveObjectsOf(records);
  for (const object of objects) {
    if (object.key.startsWith('tampering/')) logger.error('audit table: a record or checkpoint was changed or removed; kept in the write-once archive', { key: object.key });
    try {
      await s3.putObject(bucket, object.key, Buffer.from(object.body, 'utf8'), { contentType: 'application/x-ndjson', sha256Checksum: true, ifNoneMatch: true });
    } catch (error) {
      if (!keyTaken(error)) throw error;
      logger.info('audit archive: the object is there already (a batch delivered again)', { key: object.key });
    }
  }
  return objects.length;
}
