/** Use cases: write an audit checkpoint (the heads of the streams that moved, signed) and append the entries kept after failed appends. */
import { checkpointText, sealCheckpoint, type AuditCheckpoint } from '../../domain/audit/audit-checkpoints';
import { byStreamBytes } from '../../domain/audit/audit-merkle';
import { GENESIS_HASH, recordHash, type AuditRecord, type StreamHead } from '../../domain/audit/audit-records';
import { describeError } from '../errors';
import type { Dependencies } from '../ports';

/**
 * A checkpoint looks again at records stored this long before the previous one's `coveredUntil`: an append that was
 * in flight while that checkpoint was written (or an index that lagged) is signed by the next one.
 */
const LOOK_BACK_MS = 5 * 60_000;
/** Heads per checkpoint, so that one stays far below DynamoDB's 400 KB item limit; more make several checkpoints. */
export const HEADS_PER_CHECKPOINT = 1_000;
/** Recent checkpoints read to know which heads are signed already. */
const RECENT_CHECKPOINTS = 50;
/** Tries when another writer takes the next checkpoint number first. */
const WRITE_ATTEMPTS = 5;

export interface CheckpointResult {
  /** Numbers of the checkpoints written (none when nothing moved, or no key may sign here). */
  written: number[];
  /** Heads signed by them. */
  heads: number;
  /** Streams whose head did not extend the head signed before (nothing of them was signed; the alarm was raised). */
  refused: { stream: string; reason: string }[];
}

/** Streams whose records are read at once to check that each new head extends the one signed before. */
const STREAMS_IN_PARALLEL = 16;

/**
 * Whether `records` (the stream from the head signed before, or from sequence 1) is one unbroken chain that starts
 * at `signed`: each record matches its hash and links to the one before. Answers what is wrong, or null.
 */
export function extensionProblem(signed: StreamHead | undefined, records: readonly AuditRecord[]): string | null {
  let expected = signed ? { sequence: signed.sequence, hash: signed.hash } : { sequence: 0, hash: GENESIS_HASH };
  const rest = signed ? records.slice(1) : records;
  if (signed) {
    const first = records[0];
    if (!first || first.sequence !== signed.sequence) return `the record at sequence ${signed.sequence}, which checkpoint signed, is gone`;
    if (first.hash !== signed.hash || recordHash(first) !== first.hash) return `the record at sequence ${signed.sequence} is not the one signed before`;
  }
  for (const record of rest) {
    if (record.sequence !== expected.sequence + 1) return `sequence ${expected.sequence + 1} is missing`;
    if (record.prevHash !== expected.hash) return `sequence ${record.sequence} does not link to sequence ${expected.sequence}`;
    if (recordHash(record) !== record.hash) return `sequence ${record.sequence} no longer matches its hash`;
    expected = { sequence: record.sequence, hash: record.hash };
  }
  return null;
}

/** Signs the heads of every stream that moved since the last checkpoint, chained to it. */
export async function writeAuditCheckpoint(deps: Dependencies): Promise<CheckpointResult> {
  const key = deps.auditKey;
  if (!key?.canSign) return { written: [], heads: 0, refused: [] };
  const identity = await key.identity();
  for (let attempt = 1; ; attempt++) {
    const recent = await deps.auditArchive.latestCheckpoints(RECENT_CHECKPOINTS);
    const now = new Date(deps.clock.now().ms).toISOString();
    const last = recent[0] ?? null;
    const since = last ? new Date(Date.parse(last.coveredUntil) - LOOK_BACK_MS).toISOString() : null;
    const signed = new Map<string, StreamHead>();
    for (const checkpoint of recent) {
      for (const head of checkpoint.heads) if ((signed.get(head.stream)?.sequence ?? 0) < head.sequence) signed.set(head.stream, head);
    }
    // The index only says which streams moved; what is signed is read from the records themselves, consistently.
    const hinted = (await deps.auditArchive.headsRecordedSince(since)).filter((head) => (signed.get(head.stream)?.sequence ?? 0) < head.sequence);
    if (hinted.length === 0) return { written: [], heads: 0, refused: [] };
    // The writer's pointers only for streams the recent checkpoints do not know (one read each, not one per stream).
    const pointers = await deps.auditArchive.signedHeads(hinted.filter((head) => !signed.has(head.stream)).map((head) => head.stream));
    for (const [stream, head] of pointers) if ((signed.get(stream)?.sequence ?? 0) < head.sequence) signed.set(stream, head);
    const moved: StreamHead[] = [];
    const refused: CheckpointResult['refused'] = [];
    for (let start = 0; start < hinted.length; start += STREAMS_IN_PARALLEL) {
      await Promise.all(hinted.slice(start, start + STREAMS_IN_PARALLEL).map(async ({ stream }) => {
        const before = signed.get(stream);
        const records = await deps.auditArchive.streamRecordsFrom(stream, before?.sequence ?? 1);
        const head = records[records.length - 1];
        if (before && head && head.sequence === before.sequence && head.hash === before.hash) return;
        const problem = extensionProblem(before, records);
        if (problem) {
          const reason = `${problem}: the stream no longer extends the head checkpoints signed${before ? ` (sequence ${before.sequence})` : ''}`;
          refused.push({ stream, reason });
          deps.logger.error('audit stream not signed: its records were changed below its signed head', { stream, reason });
          return;
        }
        if (head) moved.push({ stream, sequence: head.sequence, hash: head.hash });
      }));
    }
    if (moved.length === 0) return { written: [], heads: 0, refused };
    moved.sort(byStreamBytes);
    const written: number[] = [];
    let previous: Pick<AuditCheckpoint, 'number' | 'hash'> | null = last;
    let lost = false;
    for (let start = 0; start < moved.length; start += HEADS_PER_CHECKPOINT) {
      const heads: StreamHead[] = moved.slice(start, start + HEADS_PER_CHECKPOINT);
      const sealed = sealCheckpoint(previous, { at: now, coveredUntil: now, heads, ...identity });
      const signature = await key.sign(checkpointText(sealed), sealed.hash);
      if (!(await deps.auditArchive.putCheckpoint({ ...sealed, signature }))) {
        lost = true;
        break;
      }
      written.push(sealed.number);
      previous = sealed;
      try {
        await deps.auditArchive.putSignedHeads(heads, sealed.number);
      } catch (error) {
        // A pointer left behind only makes the next check start from an older signed head.
        deps.logger.warn('audit signed-head pointers not written', { error: describeError(error) });
      }
    }
    if (!lost) return { written, heads: moved.length, refused };
    if (attempt >= WRITE_ATTEMPTS) throw new Error(`audit checkpoint not written: ${WRITE_ATTEMPTS} other writers took its number first`);
  }
}

/**
 * The audit log's periodic work (the sweep, every minute): entries kept after failed appends are appended, then a
 * checkpoint signs what moved. Never throws: the sweep's own work must not depend on it.
 */
export async function maintainAuditLog(deps: Dependencies): Promise<{ appended: number; checkpoint: CheckpointResult | null }> {
  let appended = 0;
  try {
    appended = await deps.auditArchive.flushPending();
  } catch (error) {
    deps.logger.error('pending audit entries not appended; the next sweep tries again', { error: describeError(error) });
  }
  try {
    return { appended, checkpoint: await writeAuditCheckpoint(deps) };
  } catch (error) {
    deps.logger.error('audit checkpoint not written; the next sweep tries again', { error: describeError(error) });
    return { appended, checkpoint: null };
  }
}
