/** Use cases: write an audit checkpoint (the heads of the streams that moved, signed) and append the entries kept after failed appends. */
import { checkpointText, sealCheckpoint, type AuditCheckpoint } from '../../domain/audit-checkpoints';
import type { StreamHead } from '../../domain/audit-records';
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
}

/** Signs the heads of every stream that moved since the last checkpoint, chained to it. */
export async function writeAuditCheckpoint(deps: Dependencies): Promise<CheckpointResult> {
  const key = deps.auditKey;
  if (!key?.canSign) return { written: [], heads: 0 };
  const identity = await key.identity();
  for (let attempt = 1; ; attempt++) {
    const recent = await deps.auditArchive.latestCheckpoints(RECENT_CHECKPOINTS);
    const now = new Date(deps.clock.now().toMillis()).toISOString();
    const last = recent[0] ?? null;
    const since = last ? new Date(Date.parse(last.coveredUntil) - LOOK_BACK_MS).toISOString() : null;
    const signed = new Map<string, number>();
    for (const checkpoint of recent) {
      for (const head of checkpoint.heads) signed.set(head.stream, Math.max(signed.get(head.stream) ?? 0, head.sequence));
    }
    const moved = (await deps.auditArchive.headsRecordedSince(since)).filter((head) => (signed.get(head.stream) ?? 0) < head.sequence);
    if (moved.length === 0) return { written: [], heads: 0 };
    moved.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
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
    }
    if (!lost) return { written, heads: moved.length };
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
