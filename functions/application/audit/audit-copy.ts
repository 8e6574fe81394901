/**
 * The log as verification and export read it where a write-once copy exists (AWS): the copy is the log, and the table
 * is compared with it. A record or checkpoint in the copy but not in the table was deleted from the table; one that
 * differs was changed there; either is a broken link, and so is anything the copy kept under `tampering/`. What the
 * table holds and the copy does not yet (the copy lags the table by up to a minute of stream batching) is taken from
 * the table, so that the newest records and checkpoints are verified too and a checkpoint whose records are still on
 * their way does not look like a deletion. Locally there is no copy: the table alone is read.
 */
import { canonicalJson, recordHash, type AuditRecord } from '../../domain/audit/audit-records';
import type { AuditCheckpoint } from '../../domain/audit/audit-checkpoints';
import { CHECKPOINT_STREAM, type BrokenLink } from '../../domain/audit/audit-verification';
import { sha256Hex } from '../../domain/digest';
import type { AuditCopy, Dependencies, StoredAuditRecord } from '../ports';

/** The stream under which a line of the copy that is not a record or a checkpoint is reported. */
export const ARCHIVE_STREAM = 'archive';

export interface MergedLog {
  /** The copy's checkpoints, then the table's that the copy does not hold yet, in number order. */
  checkpoints: AuditCheckpoint[];
  /** The copy's records (each stream's in sequence order), then the table's that the copy does not hold yet. */
  records(): AsyncIterable<StoredAuditRecord>;
  /** Where the table and the copy disagree, and the copy's evidence; complete once `records()` has been read through. */
  findings: { link: BrokenLink; when: string }[];
  /** Records and checkpoints read from the table because the copy does not hold them yet. */
  notYetCopied: { records: number; checkpoints: number };
}

const digestOf = (value: object): string => sha256Hex(canonicalJson(value));
const recordKey = (stream: string, sequence: number): string => `${stream}\u0000${sequence}`;
const inRange = (at: string, range: { from?: string; to?: string }): boolean => (range.from === undefined || at >= range.from) && (range.to === undefined || at <= range.to);

/** Each stream's records in sequence order (streams in UTF-16 order), as the table's export gives them. */
const byStreamThenSequence = (a: AuditRecord, b: AuditRecord): number => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : a.sequence - b.sequence);

/** Reads the copy whole and the table alongside it; `range` bounds records by `recordedAt` and checkpoints by `at`. */
export async function mergedLog(deps: Dependencies, copy: AuditCopy, range: { from?: string; to?: string } = {}): Promise<MergedLog> {
  const contents = await copy.read();
  const findings: MergedLog['findings'] = [];
  const notYetCopied = { records: 0, checkpoints: 0 };
  for (const line of contents.unreadable) findings.push({ link: { stream: ARCHIVE_STREAM, sequence: 0, reason: `the write-once copy holds a line that is not a record or a checkpoint: ${line}` }, when: '' });
  for (const evidence of contents.tampering) {
    const what = evidence.eventName === 'REMOVE' ? 'deleted from' : 'changed in';
    findings.push({
      link: { stream: evidence.stream, sequence: evidence.sequence, reason: `${what} the table at ${evidence.at}: the write-once copy kept the item as it was (${evidence.key})` },
      when: evidence.at,
    });
  }

  const copied = new Map<number, string[]>();
  for (const checkpoint of contents.checkpoints) copied.set(checkpoint.number, [...(copied.get(checkpoint.number) ?? []), digestOf(checkpoint)]);
  const checkpoints = contents.checkpoints.filter((c) => range.from === undefined || c.at >= range.from);
  const tableNumbers = new Set<number>();
  for (const checkpoint of await deps.auditArchive.checkpoints(range.from)) {
    tableNumbers.add(checkpoint.number);
    const digests = copied.get(checkpoint.number);
    if (!digests) {
      checkpoints.push(checkpoint);
      notYetCopied.checkpoints += 1;
    } else if (!digests.includes(digestOf(checkpoint))) {
      findings.push({ link: { stream: CHECKPOINT_STREAM, sequence: checkpoint.number, reason: `changed in the table: the write-once copy holds checkpoint ${checkpoint.number} as it was signed` }, when: checkpoint.at });
    }
  }
  for (const checkpoint of checkpoints) {
    if (copied.has(checkpoint.number) && !tableNumbers.has(checkpoint.number)) {
      findings.push({ link: { stream: CHECKPOINT_STREAM, sequence: checkpoint.number, reason: `deleted from the table: the write-once copy holds checkpoint ${checkpoint.number}` }, when: checkpoint.at });
    }
  }
  checkpoints.sort((a, b) => a.number - b.number);

  const copyRecords = contents.records.filter((r) => inRange(r.recordedAt, range)).sort(byStreamThenSequence);
  // The copy's records by place, with their hashes (the verifier checks each against its record): a table record is the
  // copy's when it carries one of those hashes and still matches it (one hash computed per table record).
  const index = new Map<string, { hashes: string[]; inTable: boolean; recordedAt: string }>();
  for (const record of copyRecords) {
    const key = recordKey(record.stream, record.sequence);
    const known = index.get(key);
    if (known) known.hashes.push(record.hash);
    else index.set(key, { hashes: [record.hash], inTable: false, recordedAt: record.recordedAt });
  }

  async function* records(): AsyncIterable<StoredAuditRecord> {
    for (const record of copyRecords) yield { record };
    for await (const stored of deps.auditArchive.records(range)) {
      const { record } = stored;
      const known = index.get(recordKey(record.stream, record.sequence));
      if (!known) {
        notYetCopied.records += 1;
        yield stored;
        continue;
      }
      known.inTable = true;
      const same = known.hashes.includes(record.hash) && recordHash(record) === record.hash;
      const problem = stored.problem ?? (same ? null : 'changed in the table: the write-once copy holds the record as it was written');
      if (problem) findings.push({ link: { stream: record.stream, sequence: record.sequence, reason: problem }, when: record.recordedAt });
    }
    for (const [key, { inTable, recordedAt }] of index) {
      if (inTable) continue;
      const [stream, sequence] = key.split('\u0000');
      findings.push({ link: { stream, sequence: Number(sequence), reason: 'deleted from the table: the write-once copy holds this record' }, when: recordedAt });
    }
  }

  return { checkpoints, records, findings, notYetCopied };
}
