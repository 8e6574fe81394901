/** An in-memory audit log for use-case tests: records sealed into chains like the DynamoDB store, and its archive side. */
import type { AuditCheckpoint } from '../../functions/domain/audit/audit-checkpoints';
import { entriesByStream, sealRecords, type AuditRecord, type StreamHead } from '../../functions/domain/audit/audit-records';
import type { AuditArchive, AuditEntry, Clock, StoredAuditRecord } from '../../functions/application/ports';
import { RecordingAuditLog } from './outside-world';

export class InMemoryAuditStore extends RecordingAuditLog implements AuditArchive {
  /** Each stream's records in sequence order; tests may edit or delete them to play an attacker. */
  readonly streams = new Map<string, AuditRecord[]>();
  readonly checkpointList: AuditCheckpoint[] = [];
  /** The writer's pointers: the head it last signed of each stream. */
  readonly signed = new Map<string, StreamHead & { checkpoint: number }>();

  constructor(private readonly clock: Clock) {
    super();
  }

  override async append(entries: AuditEntry[]): Promise<void> {
    await super.append(entries);
    const recordedAt = new Date(this.clock.now().ms).toISOString();
    for (const [stream, list] of entriesByStream(entries)) {
      const records = this.streams.get(stream) ?? [];
      const head = records[records.length - 1] ?? null;
      records.push(...sealRecords(stream, head, list, recordedAt));
      this.streams.set(stream, records);
    }
  }

  async streamRecords(stream: string): Promise<AuditRecord[]> {
    return structuredClone(this.streams.get(stream) ?? []);
  }

  async *records(range: { from?: string; to?: string } = {}, after: string | null = null): AsyncIterable<StoredAuditRecord> {
    // A position is the stream and the index of the record in it, in the map's order.
    let [skipping, skipIndex] = after === null ? [null, -1] : (JSON.parse(after) as [string, number]);
    for (const [stream, records] of this.streams) {
      if (skipping !== null && stream !== skipping) continue;
      const first = skipping === null ? 0 : skipIndex + 1;
      skipping = null;
      for (let i = first; i < records.length; i += 1) {
        const record = records[i];
        if ((range.from === undefined || record.recordedAt >= range.from) && (range.to === undefined || record.recordedAt <= range.to)) {
          yield { record: structuredClone(record), position: JSON.stringify([stream, i]) };
        }
      }
    }
  }

  async checkpointsAfter(afterNumber: number, limit: number, since?: string): Promise<AuditCheckpoint[]> {
    return (await this.checkpoints(since)).filter((c) => c.number > afterNumber).slice(0, limit);
  }

  async checkpoints(since?: string): Promise<AuditCheckpoint[]> {
    return structuredClone(this.checkpointList.filter((c) => since === undefined || c.at >= since));
  }

  async latestCheckpoints(limit: number): Promise<AuditCheckpoint[]> {
    return structuredClone(this.checkpointList.slice(-limit).reverse());
  }

  async headsRecordedSince(since: string | null): Promise<StreamHead[]> {
    const heads: StreamHead[] = [];
    for (const [stream, records] of this.streams) {
      const head = records[records.length - 1];
      if (head && (since === null || records.some((r) => r.recordedAt >= since))) heads.push({ stream, sequence: head.sequence, hash: head.hash });
    }
    return heads;
  }

  async streamRecordsFrom(stream: string, fromSequence: number): Promise<AuditRecord[]> {
    return structuredClone((this.streams.get(stream) ?? []).filter((r) => r.sequence >= fromSequence));
  }

  async checkpoint(number: number): Promise<AuditCheckpoint | null> {
    return structuredClone(this.checkpointList.find((c) => c.number === number) ?? null);
  }

  async recordsAt(places: readonly { stream: string; sequence: number }[]): Promise<StoredAuditRecord[]> {
    return places.flatMap(({ stream, sequence }) => structuredClone((this.streams.get(stream) ?? []).filter((r) => r.sequence === sequence)).map((record) => ({ record })));
  }

  async signedHeads(streams: readonly string[]): Promise<Map<string, StreamHead & { checkpoint: number }>> {
    return new Map(streams.flatMap((stream) => (this.signed.has(stream) ? [[stream, { ...this.signed.get(stream)! }] as const] : [])));
  }

  async signedRecordsUpTo(): Promise<number> {
    return [...this.signed.values()].reduce((sum, head) => sum + head.sequence, 0);
  }

  async putSignedHeads(heads: readonly StreamHead[], checkpoint: number): Promise<void> {
    for (const head of heads) if ((this.signed.get(head.stream)?.sequence ?? 0) < head.sequence) this.signed.set(head.stream, { ...head, checkpoint });
  }

  async putCheckpoint(checkpoint: AuditCheckpoint): Promise<boolean> {
    if (this.checkpointList.some((c) => c.number === checkpoint.number)) return false;
    this.checkpointList.push(structuredClone(checkpoint));
    return true;
  }

  async flushPending(): Promise<number> {
    return 0;
  }
}
