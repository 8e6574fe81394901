/**
 * The log as verification and export read it where a write-once copy exists (AWS), in bounded steps: the copy is the
 * log, and the table is compared with it.
 *
 * 1. The copy pass (`copyPassStep`, a step at a time): up to `auditCopyStepObjects` objects of `log/`, then of
 *    `tampering/`, after the last key the step before read (ListObjectsV2 StartAfter). Each record and checkpoint line
 *    is compared with the table (BatchGetItem by its place): one the table lacks was deleted from it, one that differs
 *    was changed there; either is a broken link, and so is anything the copy kept under `tampering/` and a line that is
 *    not a record or checkpoint. The pass keeps only what the table does not hold as the copy does (the copy's
 *    versions: none while nobody tampers) and the first finding, so its state stays small whatever the copy's size.
 * 2. The table read (`mergedPage`, a page at a time), each stream's records in sequence order, with the copy's
 *    versions put in place of the table's (and where the table lost them); then the streams only the copy holds. What
 *    the table holds and the copy does not yet (the copy lags the table by up to a minute of stream batching) is read
 *    from the table, so that the newest records and checkpoints are verified too.
 * A line held by two objects counts once: records are counted as the table and the copy's versions are, never by line.
 * Locally there is no copy: the table alone is read.
 */
import { canonicalJson, recordHash, type AuditRecord } from '../../domain/audit/audit-records';
import type { AuditCheckpoint } from '../../domain/audit/audit-checkpoints';
import { CHECKPOINT_STREAM, type BrokenLink } from '../../domain/audit/audit-verification';
import { sha256Hex } from '../../domain/digest';
import type { AuditCopy, Dependencies, StoredAuditRecord } from '../ports';

/** The stream under which a line of the copy that is not a record or a checkpoint is reported. */
export const ARCHIVE_STREAM = 'archive';
/**
 * Objects of the copy a step reads (absent `deps.auditCopyStepObjects`): an object holds one stream batch, at most
 * 1,000 records (lib/audit-archive.ts), so a step holds at most 50,000 lines (about 140 MB of heap at the 2.7 KB a
 * line the benchmark measures), mostly far fewer.
 */
export const COPY_STEP_OBJECTS = 50;
/** Places looked up in the table at once (BatchGetItem takes 100 a call: 20 calls in flight). */
const LOOKUPS_AT_ONCE = 2_000;
/**
 * Bytes of the copy's versions (as JSON) a step's state carries at most, so that it stays inside a queue message's
 * 256 KB (a record is about 600 bytes, a checkpoint about 150 a stream it signs); past them, a difference is still
 * reported, but its record or checkpoint is not put back into the chain (which may then name it as missing).
 */
export const COPY_VERSIONS_BYTES = 150_000;

/** A finding and its place among equal ones (as the copy read whole pushed them): unreadable, evidence, changed, deleted. */
export interface Finding {
  link: BrokenLink;
  when: string;
  rank: number;
}

/** Where the copy pass stands: what a step carries to the next (plain JSON). */
export interface CopyPass {
  /** The prefix being read; null once both are read. */
  part: 'log' | 'tampering' | null;
  /** The last object key read under it. */
  after: string | null;
  objects: number;
  /** The copy's versions of records and checkpoints the table lacks or holds otherwise (none while nobody tampers). */
  records: AuditRecord[];
  checkpoints: AuditCheckpoint[];
  /** Their size as JSON, and the differences found past COPY_VERSIONS_BYTES (reported, not put back into the chain). */
  keptBytes: number;
  dropped: number;
  /** The first checkpoint finding (lowest number) and the first of the others (earliest), as the verifier picks. */
  checkpointFinding: Finding | null;
  finding: Finding | null;
}

export const startCopyPass = (): CopyPass => ({ part: 'log', after: null, objects: 0, records: [], checkpoints: [], keptBytes: 0, dropped: 0, checkpointFinding: null, finding: null });

const digestOf = (value: object): string => sha256Hex(canonicalJson(value));
const placeKey = (stream: string, sequence: number): string => `${stream}\u0000${sequence}`;
const inRange = (at: string, range: { from?: string; to?: string }): boolean => (range.from === undefined || at >= range.from) && (range.to === undefined || at <= range.to);
const byTime = (a: Finding, b: Finding): number => (a.when < b.when ? -1 : a.when > b.when ? 1 : a.link.stream < b.link.stream ? -1 : a.link.stream > b.link.stream ? 1 : a.link.sequence - b.link.sequence);

/** Keeps `found` when it comes before the finding kept (the verifier's choice: checkpoints by number, others by time). */
function offer(pass: CopyPass, found: Finding): void {
  if (found.link.stream === CHECKPOINT_STREAM) {
    const kept = pass.checkpointFinding;
    if (!kept || found.link.sequence < kept.link.sequence || (found.link.sequence === kept.link.sequence && found.rank < kept.rank)) pass.checkpointFinding = found;
    return;
  }
  const kept = pass.finding;
  const order = kept ? byTime(found, kept) : -1;
  if (order < 0 || (order === 0 && found.rank < kept!.rank)) pass.finding = found;
}

/** Keeps the copy's version of a record or checkpoint the table does not hold as the copy does (once per version). */
function keepVersion<T extends object>(pass: CopyPass, list: T[], version: T): void {
  const digest = digestOf(version);
  if (list.some((kept) => digestOf(kept) === digest)) return;
  const bytes = JSON.stringify(version).length;
  if (pass.keptBytes + bytes > COPY_VERSIONS_BYTES) pass.dropped += 1;
  else {
    list.push(version);
    pass.keptBytes += bytes;
  }
}

/** One step of the copy pass: a page of objects read and compared with the table. The pass is returned, moved on. */
export async function copyPassStep(deps: Dependencies, copy: AuditCopy, before: CopyPass): Promise<CopyPass> {
  if (before.part === null) return before;
  const pass: CopyPass = structuredClone(before);
  const page = await copy.readPage(pass.part!, pass.after, deps.auditCopyStepObjects ?? COPY_STEP_OBJECTS);
  for (const line of page.unreadable) offer(pass, { link: { stream: ARCHIVE_STREAM, sequence: 0, reason: `the write-once copy holds a line that is not a record or a checkpoint: ${line}` }, when: '', rank: 0 });
  for (const evidence of page.tampering) {
    const what = evidence.eventName === 'REMOVE' ? 'deleted from' : 'changed in';
    offer(pass, { link: { stream: evidence.stream, sequence: evidence.sequence, reason: `${what} the table at ${evidence.at}: the write-once copy kept the item as it was (${evidence.key})` }, when: evidence.at, rank: 1 });
  }
  await compareRecords(deps, pass, page.records);
  await compareCheckpoints(deps, pass, page.checkpoints);
  pass.objects += page.objects;
  pass.after = page.last;
  if (!page.more) [pass.part, pass.after] = [pass.part === 'log' ? 'tampering' : null, null];
  return pass;
}

/** Each record line against the table's item at its place: deleted there, changed there, or the same. */
async function compareRecords(deps: Dependencies, pass: CopyPass, all: AuditRecord[]): Promise<void> {
  for (let i = 0; i < all.length; i += LOOKUPS_AT_ONCE) await compareSome(deps, pass, all.slice(i, i + LOOKUPS_AT_ONCE));
}

/** One slice of the page's records against the table. */
async function compareSome(deps: Dependencies, pass: CopyPass, records: AuditRecord[]): Promise<void> {
  const unique = new Map(records.map((r) => [placeKey(r.stream, r.sequence), { stream: r.stream, sequence: r.sequence }]));
  const table = new Map<string, StoredAuditRecord>();
  for (const stored of await deps.auditArchive.recordsAt([...unique.values()])) table.set(placeKey(stored.record.stream, stored.record.sequence), stored);
  for (const copied of records) {
    const stored = table.get(placeKey(copied.stream, copied.sequence));
    if (!stored) {
      keepVersion(pass, pass.records, copied);
      offer(pass, { link: { stream: copied.stream, sequence: copied.sequence, reason: 'deleted from the table: the write-once copy holds this record' }, when: copied.recordedAt, rank: 3 });
      continue;
    }
    const { record } = stored;
    const same = record.hash === copied.hash && recordHash(record) === record.hash;
    if (!same) keepVersion(pass, pass.records, copied);
    const problem = stored.problem ?? (same ? null : 'changed in the table: the write-once copy holds the record as it was written');
    if (problem) offer(pass, { link: { stream: record.stream, sequence: record.sequence, reason: problem }, when: record.recordedAt, rank: 2 });
  }
}

/** Each checkpoint line against the table's checkpoint of its number. */
async function compareCheckpoints(deps: Dependencies, pass: CopyPass, checkpoints: AuditCheckpoint[]): Promise<void> {
  for (let i = 0; i < checkpoints.length; i += 16) {
    const batch = checkpoints.slice(i, i + 16);
    const table = await Promise.all(batch.map((c) => deps.auditArchive.checkpoint(c.number)));
    batch.forEach((copied, k) => {
      const stored = table[k];
      if (stored && digestOf(stored) === digestOf(copied)) return;
      keepVersion(pass, pass.checkpoints, copied);
      const reason = stored
        ? `changed in the table: the write-once copy holds checkpoint ${copied.number} as it was signed`
        : `deleted from the table: the write-once copy holds checkpoint ${copied.number}`;
      offer(pass, { link: { stream: CHECKPOINT_STREAM, sequence: copied.number, reason }, when: stored ? stored.at : copied.at, rank: stored ? 2 : 3 });
    });
  }
}

/** The findings of a finished pass, in the order the verifier takes them. */
export const passFindings = (pass: CopyPass): Finding[] => [pass.checkpointFinding, pass.finding].filter((f): f is Finding => f !== null);

/** The table's checkpoints with the copy's versions in their place (and those the table lost), in number order. */
export function withCopyCheckpoints(table: readonly AuditCheckpoint[], pass: CopyPass, keep: (c: AuditCheckpoint) => boolean = () => true): AuditCheckpoint[] {
  const copied = pass.checkpoints.filter(keep);
  const replaced = new Set(copied.map((c) => c.number));
  return [...table.filter((c) => !replaced.has(c.number)), ...copied].sort((a, b) => a.number - b.number);
}

/** Where the table read of the merged log stands (plain JSON): the table's position, the open stream, the last sequence given of it. */
export interface MergeCursor {
  after: string | null;
  stream: string | null;
  last: number;
  /** Streams of the copy's versions that the table holds too (met in its read). */
  met: string[];
}

export const startMerge = (): MergeCursor => ({ after: null, stream: null, last: 0, met: [] });

/**
 * Up to `limit` records of the table after the cursor, each stream's in sequence order with the copy's versions in
 * place (the copy's versions of a place replace the table's record there); after the table's last, the streams the
 * copy alone holds. `ended` once the log is read through. `range` bounds `recordedAt` (an export's range).
 */
export async function mergedPage(deps: Dependencies, pass: CopyPass, cursor: MergeCursor, limit: number, range: { from?: string; to?: string } = {}): Promise<{ items: StoredAuditRecord[]; next: MergeCursor; ended: boolean }> {
  const versions = new Map<string, AuditRecord[]>();
  for (const record of pass.records.filter((r) => inRange(r.recordedAt, range))) versions.set(record.stream, [...(versions.get(record.stream) ?? []), record]);
  for (const list of versions.values()) list.sort((a, b) => a.sequence - b.sequence);
  const items: StoredAuditRecord[] = [];
  const at: MergeCursor = { ...cursor, met: [...cursor.met] };
  const give = (stream: string | null, above: number, below: number): void => {
    for (const record of (stream === null ? undefined : versions.get(stream)) ?? []) if (record.sequence > above && record.sequence < below) items.push({ record });
  };
  let count = 0;
  for await (const stored of deps.auditArchive.records(range, cursor.after)) {
    const { record } = stored;
    if (record.stream !== at.stream) {
      give(at.stream, at.last, Number.POSITIVE_INFINITY);
      [at.stream, at.last] = [record.stream, 0];
      if (versions.has(record.stream) && !at.met.includes(record.stream)) at.met.push(record.stream);
    }
    give(at.stream, at.last, record.sequence);
    const own = versions.get(record.stream)?.filter((r) => r.sequence === record.sequence) ?? [];
    if (own.length > 0) items.push(...own.map((r) => ({ record: r, position: stored.position })));
    else items.push(stored);
    at.last = Math.max(at.last, record.sequence);
    at.after = stored.position ?? null;
    if (++count >= limit) return { items, next: at, ended: false };
  }
  give(at.stream, at.last, Number.POSITIVE_INFINITY);
  const alone = [...versions.keys()].filter((stream) => !at.met.includes(stream)).sort();
  for (const stream of alone) give(stream, 0, Number.POSITIVE_INFINITY);
  return { items, next: at, ended: true };
}

/** The streams of the copy's versions that the table does not hold (given at the end of the read). */
export const copyOnlyStreams = (pass: CopyPass, cursor: MergeCursor): string[] => [...new Set(pass.records.map((r) => r.stream))].filter((s) => !cursor.met.includes(s));
