/**
 * The audit log in DynamoDB: each record a conditional put on its stream and sequence (a lost race re-reads the head
 * and seals again), checkpoints under one key, and entries that could not be appended kept as `pending` items.
 */
import { backoffDelayMs, type Backoff } from '../../../kit/backoff';
import { randomUUID } from 'node:crypto';
import type { AuditCheckpoint } from '../../domain/audit/audit-checkpoints';
import { entriesByStream, sealRecords, streamOf, type AuditRecord, type StreamHead } from '../../domain/audit/audit-records';
import type { AppendOptions, AuditArchive, AuditEntry, AuditLog, Clock, Logger, StoredAuditRecord } from '../../application/ports';
import { describeError } from '../../application/errors';
import type { DocumentClient, Plain } from './document-client';
import { batchGetItems, isConditionalCheckFailed, queryItems, withTimes } from './item-keys';
import { AUDIT_TIME_INDEX, AUDIT_TIME_SHARDS, CHECKPOINT_PK, KEY, PENDING_PK, SIGNED_PK } from '../../definitions/tables';

export { CHECKPOINT_PK, PENDING_PK, SIGNED_PK };
/** Partitions that hold no records. */
const NOT_RECORDS = new Set([CHECKPOINT_PK, PENDING_PK, SIGNED_PK]);

/** Sequences and checkpoint numbers as fixed-width text, so that text order is number order. */
export function sequenceKey(sequence: number): string {
  return String(sequence).padStart(12, '0');
}

/**
 * One stream's append: a lost race re-reads the head and tries again after a short random pause (so that racing
 * writers spread out), up to RACE_ATTEMPTS times; any other failure (throttling, an unreachable table) waits longer
 * each time, up to FAULT_ATTEMPTS times, about a second in all, before the entries are kept as pending.
 */
const RACE_ATTEMPTS = 12;
const FAULT_ATTEMPTS = 4;
/** Between tries after a fault: 200 ms doubling (the third waits up to 800 ms), half of it random (writers spread apart). */
const FAULT_BACKOFF: Backoff = { firstMs: 200, capMs: 1600, jitter: 0.5 };
/** Streams whose head a container remembers, taken without a read only when trusted (see appendEach). */
const HEAD_CACHE_SIZE = 10_000;
/** Days of the time index a checkpoint queries at most (8 queries a day); a longer gap scans instead. */
const MAX_INDEX_DAYS = 31;
/** Pending items flushed per call (the sweep calls again next minute). */
const FLUSH_BATCH = 25;

/** The attributes of a record item; anything else on it was added by someone else. */
const RECORD_ATTRIBUTES = new Set([
  KEY.pk, KEY.sk, AUDIT_TIME_INDEX.pk, AUDIT_TIME_INDEX.sk,
  'stream', 'sequence', 'prevHash', 'kind', 'at', 'actor', 'principal', 'orderId', 'vendorId', 'detail', 'recordedAt', 'hash',
]);

export function timeIndexKeys(record: Pick<AuditRecord, 'stream' | 'sequence' | 'recordedAt'>): { timePk: string; timeSk: string } {
  let shard = 0;
  for (let i = 0; i < record.stream.length; i++) shard = (shard * 31 + record.stream.charCodeAt(i)) % AUDIT_TIME_SHARDS;
  return {
    timePk: `${record.recordedAt.slice(0, 10)}#${shard}`,
    timeSk: `${record.recordedAt}#${record.stream}#${sequenceKey(record.sequence)}`,
  };
}

/**
 * A record's item. Only the last record of an append call carries the time index keys: a checkpoint needs each moved
 * stream's head, and the records before it are bound to it by the chain, so indexing them too would only pay an index
 * write each. A call cut off after some of its records are stored leaves them unindexed until the rest, kept as
 * pending, is appended by the sweep: the last of those is indexed, and the checkpoint that signs it covers them.
 */
function recordItem(record: AuditRecord, indexed: boolean): Plain {
  return { [KEY.pk]: record.stream, [KEY.sk]: sequenceKey(record.sequence), ...record, ...(indexed ? timeIndexKeys(record) : {}) };
}

/** The record an item holds, and what is wrong with the item itself (the hash check is the verifier's). */
function storedRecord(item: Plain): StoredAuditRecord {
  const record: AuditRecord = {
    stream: item.stream as string,
    sequence: item.sequence as number,
    prevHash: item.prevHash as string,
    kind: item.kind as string,
    at: item.at as string,
    actor: item.actor as string | null,
    ...(typeof item.principal === 'string' ? { principal: item.principal } : {}),
    orderId: item.orderId as string | null,
    vendorId: item.vendorId as string | null,
    detail: item.detail as Record<string, unknown>,
    recordedAt: item.recordedAt as string,
    hash: item.hash as string,
  };
  const stream = item[KEY.pk] as string;
  const sequence = Number(item[KEY.sk]);
  if (record.stream !== stream || record.sequence !== sequence) {
    // Reported where the item is stored: that is where an auditor finds it.
    return { record: { ...record, stream, sequence }, problem: `moved: the item at ${stream} ${item[KEY.sk] as string} holds ${String(record.stream)} sequence ${String(record.sequence)}` };
  }
  const added = Object.keys(item).filter((name) => !RECORD_ATTRIBUTES.has(name));
  if (added.length > 0) return { record, problem: `edited: attributes ${added.join(', ')} were added to the record` };
  // Keys on a record that was not its call's last are absent; present, they must be the record's own.
  const index = timeIndexKeys(record);
  const keys = [item[AUDIT_TIME_INDEX.pk], item[AUDIT_TIME_INDEX.sk]];
  if (keys.some((key) => key !== undefined) && (keys[0] !== index.timePk || keys[1] !== index.timeSk)) {
    return { record, problem: 'edited: its time index keys no longer match the record' };
  }
  return { record };
}

function checkpointItem(checkpoint: AuditCheckpoint): Plain {
  return { [KEY.pk]: CHECKPOINT_PK, [KEY.sk]: sequenceKey(checkpoint.number), ...checkpoint };
}

function storedCheckpoint(item: Plain): AuditCheckpoint {
  const { version, number, at, coveredUntil, previousHash, heads, root, algorithm, keyId, hash, signature } = item as unknown as AuditCheckpoint;
  // A version 1 checkpoint has neither `version` nor `root`: absent members stay absent (its text has none).
  return { ...(version === undefined ? {} : { version }), number, at, coveredUntil, previousHash, heads: heads ?? [], ...(root === undefined ? {} : { root }), algorithm, keyId, hash, signature };
}

/** Runs `work` on every item, at most `width` at a time. */
async function inBatches<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += width) await Promise.all(items.slice(start, start + width).map(work));
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class DynamoAuditStore implements AuditLog, AuditArchive {
  private readonly heads = new Map<string, Pick<StreamHead, 'sequence' | 'hash'>>();
  /**
   * Each stream's append in progress in this container, which the next append of the stream waits for. The vendors of
   * one order share its stream and are released together (one SQS batch, run at once): racing each other, each lost
   * race cost a refused put, a random pause and a re-read of the head (three head reads a release, counted in the
   * pipeline benchmark). Queued, each append seals after the head the one before it left. Across containers the
   * conditional put still decides, as before.
   */
  private readonly appending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly doc: DocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Never throws: what cannot be appended is kept as a pending item; what cannot even be kept is logged whole. */
  async append(entries: AuditEntry[], options: AppendOptions = {}): Promise<void> {
    if (entries.length === 0) return;
    const streams = (orderIds: readonly string[] | undefined) => (orderIds ?? []).map((orderId) => streamOf({ orderId }));
    const failed = await this.appendEach(entries, streams(options.newOrders), streams(options.continuingOrders));
    if (failed.entries.length === 0) return;
    try {
      await this.keepPending(failed.entries, failed.reason);
      this.logger.warn('audit entries kept for a later append', { entries: failed.entries.length, error: failed.reason });
    } catch (error) {
      // The last durable place left is the log itself; an operator can append these by hand.
      this.logger.error('audit entries could not be appended or kept', { error: describeError(error), entries: failed.entries });
    }
  }

  async flushPending(): Promise<number> {
    const page = await this.doc.query({ ...this.partition(PENDING_PK), Limit: FLUSH_BATCH });
    let appended = 0;
    for (const item of page.items) {
      // Kept as text in the pending item: their times are read back as Instants.
      const entries = (item.entries as Plain[]).map((entry) => withTimes<AuditEntry>(entry, ['at']));
      const failed = await this.appendEach(entries);
      if (failed.entries.length > 0) {
        // The appended part stays appended; the rest waits in the same item for the next flush.
        if (failed.entries.length < entries.length) {
          await this.doc.put({
            TableName: this.tableName, Item: { ...item, entries: failed.entries },
            // Every put on the audit table is conditional: this one only rewrites the pending item it read.
            ConditionExpression: 'attribute_exists(#pk)', ExpressionAttributeNames: { '#pk': KEY.pk },
          });
        }
        appended += entries.length - failed.entries.length;
        continue;
      }
      await this.doc.delete({ TableName: this.tableName, Key: { [KEY.pk]: PENDING_PK, [KEY.sk]: item[KEY.sk] } });
      appended += entries.length;
    }
    if (appended > 0) this.logger.info('pending audit entries appended', { appended });
    return appended;
  }

  async streamRecords(stream: string): Promise<AuditRecord[]> {
    const items = await queryItems(this.doc, this.partition(stream));
    return items.map((item) => storedRecord(item).record);
  }

  /** A consistent query of one partition (a stream, the checkpoints, the pending entries), in sort-key order. */
  private partition(pk: string) {
    return {
      TableName: this.tableName,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': KEY.pk },
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    };
  }

  async *records(range: { from?: string; to?: string } = {}, after: string | null = null): AsyncIterable<StoredAuditRecord> {
    // A position is the record's table key: the scan goes on from there (a scan returns a stream's items together).
    const start = after === null ? undefined : (JSON.parse(after) as Plain);
    for await (const item of this.scanAll(start)) {
      if (NOT_RECORDS.has(item[KEY.pk] as string)) continue;
      const recordedAt = item.recordedAt as string;
      if (range.from !== undefined && !(recordedAt >= range.from)) continue;
      if (range.to !== undefined && !(recordedAt <= range.to)) continue;
      yield { ...storedRecord(item), position: JSON.stringify({ [KEY.pk]: item[KEY.pk], [KEY.sk]: item[KEY.sk] }) };
    }
  }

  async checkpointsAfter(afterNumber: number, limit: number, since?: string): Promise<AuditCheckpoint[]> {
    const found: AuditCheckpoint[] = [];
    let start: Plain | undefined;
    do {
      const page = await this.doc.query({
        ...this.partition(CHECKPOINT_PK),
        KeyConditionExpression: '#pk = :pk AND #sk > :after',
        ExpressionAttributeNames: { '#pk': KEY.pk, '#sk': KEY.sk },
        ExpressionAttributeValues: { ':pk': CHECKPOINT_PK, ':after': sequenceKey(afterNumber) },
        ExclusiveStartKey: start,
        Limit: limit - found.length,
      });
      found.push(...page.items.map(storedCheckpoint).filter((c) => since === undefined || c.at >= since));
      start = page.lastEvaluatedKey;
    } while (start && found.length < limit);
    return found;
  }

  async checkpoints(since?: string): Promise<AuditCheckpoint[]> {
    const items = await queryItems(this.doc, this.partition(CHECKPOINT_PK));
    return items.map(storedCheckpoint).filter((c) => since === undefined || c.at >= since);
  }

  async latestCheckpoints(limit: number): Promise<AuditCheckpoint[]> {
    const page = await this.doc.query({ ...this.partition(CHECKPOINT_PK), ScanIndexForward: false, Limit: limit });
    return page.items.map(storedCheckpoint);
  }

  async headsRecordedSince(since: string | null): Promise<StreamHead[]> {
    const heads = new Map<string, StreamHead>();
    const take = (stream: string, sequence: number, hash: string): void => {
      const known = heads.get(stream);
      if (!known || sequence > known.sequence) heads.set(stream, { stream, sequence, hash });
    };
    const firstDay = since === null ? Number.NaN : Date.parse(`${since.slice(0, 10)}T00:00:00Z`);
    const lastDay = Date.parse(`${new Date(this.clock.now().ms + 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`);
    // After a long quiet spell one scan costs less than a query per day and shard.
    if (since === null || !((lastDay - firstDay) / 86_400_000 <= MAX_INDEX_DAYS)) {
      for await (const item of this.scanAll()) {
        const pk = item[KEY.pk] as string;
        if (!NOT_RECORDS.has(pk)) take(pk, Number(item[KEY.sk]), item.hash as string);
      }
      return [...heads.values()];
    }
    // Every UTC day from `since` to tomorrow (a writer's clock may be a little ahead of this one's).
    const days: string[] = [];
    for (let day = firstDay; day <= lastDay; day += 86_400_000) {
      days.push(new Date(day).toISOString().slice(0, 10));
    }
    const queries = days.flatMap((day) => Array.from({ length: AUDIT_TIME_SHARDS }, (_, shard) => `${day}#${shard}`));
    await Promise.all(queries.map(async (timePk) => {
      const items = await queryItems(this.doc, {
        TableName: this.tableName,
        IndexName: AUDIT_TIME_INDEX.name,
        KeyConditionExpression: '#pk = :pk AND #sk >= :since',
        ExpressionAttributeNames: { '#pk': AUDIT_TIME_INDEX.pk, '#sk': AUDIT_TIME_INDEX.sk },
        ExpressionAttributeValues: { ':pk': timePk, ':since': since },
      });
      for (const item of items) take(item[KEY.pk] as string, Number(item[KEY.sk]), item.hash as string);
    }));
    return [...heads.values()];
  }

  async streamRecordsFrom(stream: string, fromSequence: number): Promise<AuditRecord[]> {
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: '#pk = :pk AND #sk >= :from',
      ExpressionAttributeNames: { '#pk': KEY.pk, '#sk': KEY.sk },
      ExpressionAttributeValues: { ':pk': stream, ':from': sequenceKey(Math.max(1, fromSequence)) },
      ConsistentRead: true,
    });
    return items.map((item) => storedRecord(item).record);
  }

  async checkpoint(number: number): Promise<AuditCheckpoint | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { [KEY.pk]: CHECKPOINT_PK, [KEY.sk]: sequenceKey(number) }, ConsistentRead: true });
    return item ? storedCheckpoint(item) : null;
  }

  async recordsAt(places: readonly { stream: string; sequence: number }[]): Promise<StoredAuditRecord[]> {
    // BatchGetItem, 100 keys a call, consistent: the copy's lines are compared with what the table holds now.
    const items = await batchGetItems(this.doc, this.tableName, places.map((p) => ({ [KEY.pk]: p.stream, [KEY.sk]: sequenceKey(p.sequence) })), true);
    return items.map(storedRecord);
  }

  async signedHeads(streams: readonly string[]): Promise<Map<string, StreamHead & { checkpoint?: number }>> {
    const heads = new Map<string, StreamHead & { checkpoint?: number }>();
    await inBatches(streams, 16, async (stream) => {
      const item = await this.doc.get({ TableName: this.tableName, Key: { [KEY.pk]: SIGNED_PK, [KEY.sk]: stream }, ConsistentRead: true });
      if (item) heads.set(stream, { stream, sequence: item.sequence as number, hash: item.hash as string, checkpoint: item.checkpoint as number });
    });
    return heads;
  }

  async signedRecordsUpTo(max: number): Promise<number> {
    const partition = this.partition(SIGNED_PK);
    let sum = 0;
    let start: Plain | undefined;
    // Only each pointer's sequence is read (about 16,000 a page); every stream has one record at least, so the default
    // bound of 5,000 records is one page.
    do {
      const page = await this.doc.query({
        ...partition, ConsistentRead: false, ProjectionExpression: '#seq', ExpressionAttributeNames: { ...partition.ExpressionAttributeNames, '#seq': 'sequence' }, ExclusiveStartKey: start,
      });
      for (const item of page.items) sum += Number(item.sequence) || 0;
      start = page.lastEvaluatedKey;
    } while (start && sum <= max);
    return sum;
  }

  async putSignedHeads(heads: readonly StreamHead[], checkpoint: number): Promise<void> {
    await inBatches(heads, 16, async ({ stream, sequence, hash }) => {
      try {
        await this.doc.put({
          TableName: this.tableName,
          Item: { [KEY.pk]: SIGNED_PK, [KEY.sk]: stream, stream, sequence, hash, checkpoint },
          // Only forward: a slower writer never moves a pointer back.
          ConditionExpression: 'attribute_not_exists(#pk) OR #seq < :seq',
          ExpressionAttributeNames: { '#pk': KEY.pk, '#seq': 'sequence' },
          ExpressionAttributeValues: { ':seq': sequence },
        });
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    });
  }

  async putCheckpoint(checkpoint: AuditCheckpoint): Promise<boolean> {
    try {
      await this.doc.put({
        TableName: this.tableName,
        Item: checkpointItem(checkpoint),
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': KEY.pk },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /**
   * Appends each stream's entries (streams in parallel); answers the entries that could not be appended. A stream's
   * remembered head is taken without a read when the caller continues its own append (`continuing`) or when this
   * append waited for another of the same stream in this container (which has just left that head).
   */
  private async appendEach(entries: AuditEntry[], newStreams: readonly string[] = [], continuing: readonly string[] = []): Promise<{ entries: AuditEntry[]; reason: string }> {
    const recordedAt = new Date(this.clock.now().ms).toISOString();
    const failed: AuditEntry[] = [];
    let reason = '';
    await Promise.all([...entriesByStream(entries)].map(async ([stream, list]) => {
      const left = await this.inTurn(stream, (queued) => this.appendToStream(stream, list, recordedAt, newStreams.includes(stream), queued || continuing.includes(stream)));
      if (left.entries.length > 0) {
        failed.push(...left.entries);
        reason = left.reason;
      }
    }));
    return { entries: failed, reason };
  }

  /**
   * Seals after the stream's head and puts each record only if its sequence is free; a lost race seals again. `fresh`:
   * the caller knows the stream is empty, so an unknown head is taken as none instead of read (first try only).
   * `trusted`: the head this container remembers is taken as it is (else it is read; see appendEach).
   */
  private async appendToStream(stream: string, entries: AuditEntry[], recordedAt: string, fresh = false, trusted = false): Promise<{ entries: AuditEntry[]; reason: string }> {
    let left = entries;
    let reason = '';
    let races = 0;
    let faults = 0;
    let assumeEmpty = fresh;
    while (left.length > 0 && races < RACE_ATTEMPTS && faults < FAULT_ATTEMPTS) {
      try {
        // A head is remembered after this container's own put or read; after a lost race it is forgotten (read again).
        let head = trusted ? this.heads.get(stream) : undefined;
        if (head === undefined && !assumeEmpty) head = await this.readHead(stream) ?? undefined;
        assumeEmpty = false;
        const sealed = sealRecords(stream, head ?? null, left, recordedAt);
        for (const [i, record] of sealed.entries()) {
          await this.doc.put({
            TableName: this.tableName,
            Item: recordItem(record, i === sealed.length - 1),
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': KEY.pk },
          });
          this.rememberHead(stream, record);
          left = left.slice(1);
        }
      } catch (error) {
        this.heads.delete(stream);
        reason = describeError(error);
        if (isConditionalCheckFailed(error)) {
          races += 1;
          await pause(Math.random() * 5 * races);
        } else {
          faults += 1;
          if (faults < FAULT_ATTEMPTS) await pause(backoffDelayMs(faults, FAULT_BACKOFF));
        }
      }
    }
    return { entries: left, reason };
  }

  /**
   * Runs `work` once the stream's earlier appends in this container have ended (appendToStream never rejects); `work`
   * is told whether it waited for one.
   */
  private async inTurn<T>(stream: string, work: (queued: boolean) => Promise<T>): Promise<T> {
    const before = this.appending.get(stream);
    const mine = (before ?? Promise.resolve()).catch(() => undefined).then(() => work(before !== undefined));
    this.appending.set(stream, mine);
    try {
      return await mine;
    } finally {
      if (this.appending.get(stream) === mine) this.appending.delete(stream);
    }
  }

  private async readHead(stream: string): Promise<Pick<StreamHead, 'sequence' | 'hash'> | null> {
    const partition = this.partition(stream);
    const page = await this.doc.query({
      ...partition,
      ExpressionAttributeNames: { ...partition.ExpressionAttributeNames, '#seq': 'sequence', '#hash': 'hash' },
      ProjectionExpression: '#seq, #hash',
      ScanIndexForward: false,
      Limit: 1,
    });
    const item = page.items[0];
    return item ? { sequence: item.sequence as number, hash: item.hash as string } : null;
  }

  private rememberHead(stream: string, head: Pick<StreamHead, 'sequence' | 'hash'>): void {
    this.heads.delete(stream);
    this.heads.set(stream, { sequence: head.sequence, hash: head.hash });
    if (this.heads.size > HEAD_CACHE_SIZE) this.heads.delete(this.heads.keys().next().value as string);
  }

  private async keepPending(entries: AuditEntry[], reason: string): Promise<void> {
    const failedAt = new Date(this.clock.now().ms).toISOString();
    await this.doc.put({
      TableName: this.tableName,
      Item: { [KEY.pk]: PENDING_PK, [KEY.sk]: `${failedAt}#${randomUUID()}`, entries, failedAt, reason },
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': KEY.pk },
    });
  }

  /** Every item, one page read ahead while the caller works on the current one. */
  private async *scanAll(start?: Plain): AsyncIterable<Plain> {
    let next: Promise<{ items: Plain[]; lastEvaluatedKey?: Plain }> | null = this.doc.scan({ TableName: this.tableName, ConsistentRead: true, ExclusiveStartKey: start });
    while (next) {
      const page: { items: Plain[]; lastEvaluatedKey?: Plain } = await next;
      next = page.lastEvaluatedKey ? this.doc.scan({ TableName: this.tableName, ConsistentRead: true, ExclusiveStartKey: page.lastEvaluatedKey }) : null;
      yield* page.items;
    }
  }
}
