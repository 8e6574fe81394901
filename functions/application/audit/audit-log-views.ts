/** Use cases: verify the audit log (GET /audit/verify), export it as JSON lines (GET /audit/export; on AWS both read the write-once copy), its public key. */
import type { Instant } from '../../domain/instant';
import { publicKeyOf, type AuditCheckpoint } from '../../domain/audit/audit-checkpoints';
import { inclusionPath } from '../../domain/audit/audit-merkle';
import { publicKeyMap, type PublicKeyEntry, type StreamProof } from '../../domain/audit/audit-proof';
import { checkpointLine, headerLine, recordLine } from '../../domain/audit/audit-export';
import { AuditVerifier, type AuditVerification, type VerifierOptions } from '../../domain/audit/audit-verification';
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { NotFoundError, describeError } from '../errors';
import { writeAuditCheckpoint } from './maintain-audit-log';
import { copyExportLines, verifyCopy } from './copy-steps';
import type { Dependencies } from '../ports';
import { queryRange } from '../outcome-rows';
import type { CheckpointSummary } from '../../contracts/api-answers';

/** Signs what moved first (where this runtime may), so that the answer covers every record up to now. */
export async function checkpointFirst(deps: Dependencies): Promise<void> {
  try {
    await writeAuditCheckpoint(deps);
  } catch (error) {
    // Verification still runs: it reports the records after the last checkpoint as unsigned.
    deps.logger.error('audit checkpoint on demand not written', { error: describeError(error) });
  }
}

/**
 * GET /audit/verify. Where a write-once copy exists (AWS), the copy is verified and the table compared with it
 * (audit-copy.ts): a record or checkpoint deleted or changed in the table is a broken link even when the table alone
 * would verify. Locally the table is the only store.
 */
export async function verifyAuditLog(deps: Dependencies, options: { signed?: boolean } = {}): Promise<AuditVerification> {
  if (!options.signed) await checkpointFirst(deps);
  // On AWS the job's steps, one after the other: the answer is the job's result for the same log.
  if (deps.auditCopy) return verifyCopy(deps, deps.auditCopy, await verifierOptions(deps));
  const verifier = new AuditVerifier(await verifierOptions(deps));
  for (const checkpoint of await deps.auditArchive.checkpoints()) verifier.addCheckpoint(checkpoint);
  for await (const { record, problem } of deps.auditArchive.records()) verifier.addRecord(record, problem);
  return verifier.result();
}

/** A whole log's verification, under the keys of the key store (KMS, the local key ring), never the log's: a writer cannot add its own. */
export async function verifierOptions(deps: Dependencies): Promise<VerifierOptions> {
  const keys = deps.auditKey ? publicKeyMap(await deps.auditKey.publicKeys(), publicKeyOf).keys : new Map();
  return { publicKeys: keys, complete: true };
}

/** The public key (PEM) that checkpoints verify with. */
export async function auditPublicKey(deps: Dependencies): Promise<string> {
  if (!deps.auditKey) throw new NotFoundError('no audit key is configured in this runtime; set HOLDBACK_AUDIT_KMS_KEY_ID (AWS) or HOLDBACK_AUDIT_KEY_FILE (local)');
  return deps.auditKey.publicKeyPem();
}

/** Every key that ever signed a checkpoint here (GET /audit/public-keys), oldest first. */
export async function auditPublicKeys(deps: Dependencies): Promise<PublicKeyEntry[]> {
  if (!deps.auditKey) throw new NotFoundError('no audit key is configured in this runtime; set HOLDBACK_AUDIT_KMS_KEY_ID (AWS) or HOLDBACK_AUDIT_KEY_FILE (local)');
  return deps.auditKey.publicKeys();
}

/** Checkpoints read (newest first) to find the one that signed a stream whose signed-head pointer is missing. */
const PROOF_SEARCH_PAGE = 200;

/** The stream a proof query names: `order#<id>`, `vendor#<id>` or `config`. */
export function proofStream(query: Record<string, string | undefined>): string {
  const stream = query.stream;
  const expected = 'a stream name: order#<orderId> (URL-encoded: order%23<orderId>), vendor#<vendorId> or config';
  if (stream === undefined || stream === '') throw new ValidationError([{ field: 'stream', problem: 'is missing', expected }]);
  if (stream.length > 300 || !(stream === 'config' || /^(order|vendor)#[^\u0000-\u001f]+$/.test(stream))) {
    throw new ValidationError([{ field: 'stream', problem: `is ${JSON.stringify(stream.slice(0, 80))}, not a stream name`, expected }]);
  }
  return stream;
}

/** The checkpoint that signed `head` of `stream`: the one the writer's pointer names, else the newest that lists it. */
async function checkpointSigning(deps: Dependencies, stream: string, sequences: ReadonlySet<number>): Promise<AuditCheckpoint | null> {
  const lists = (c: AuditCheckpoint | null): boolean => c !== null && c.heads.some((h) => h.stream === stream && sequences.has(h.sequence));
  const pointer = (await deps.auditArchive.signedHeads([stream])).get(stream);
  if (pointer?.checkpoint !== undefined) {
    const named = await deps.auditArchive.checkpoint(pointer.checkpoint);
    if (lists(named)) return named;
  }
  // A stream signed before pointers were kept: the newest checkpoints first, then all of them.
  const recent = await deps.auditArchive.latestCheckpoints(PROOF_SEARCH_PAGE);
  const found = recent.find(lists);
  if (found || recent.length < PROOF_SEARCH_PAGE) return found ?? null;
  return (await deps.auditArchive.checkpoints()).reverse().find(lists) ?? null;
}

/**
 * GET /audit/proof?stream=: the stream's records up to the head the newest checkpoint signed, that checkpoint, and the
 * head's RFC 9162 inclusion path in its root; records after it in `pending`. Signs first where this runtime may.
 */
export async function proveAuditStream(deps: Dependencies, query: Record<string, string | undefined>): Promise<StreamProof> {
  const stream = proofStream(query);
  await checkpointFirst(deps);
  const all = await deps.auditArchive.streamRecords(stream);
  if (all.length === 0) throw new NotFoundError(`the audit log has no stream ${JSON.stringify(stream)}; send an order's stream as order#<orderId> (order%23<orderId> in the URL)`);
  const bySequence = new Map(all.map((record) => [record.sequence, record.hash]));
  const checkpoint = await checkpointSigning(deps, stream, new Set(bySequence.keys()));
  const leafIndex = checkpoint ? checkpoint.heads.findIndex((h) => h.stream === stream && bySequence.get(h.sequence) !== undefined) : -1;
  if (!checkpoint || leafIndex < 0) {
    return { stream, records: [], checkpoint: null, leafIndex: null, treeSize: null, path: [], pending: all };
  }
  const signed = checkpoint.heads[leafIndex];
  return {
    stream,
    records: all.filter((r) => r.sequence <= signed.sequence),
    checkpoint,
    leafIndex,
    treeSize: checkpoint.heads.length,
    path: inclusionPath(checkpoint.heads, leafIndex),
    pending: all.filter((r) => r.sequence > signed.sequence),
  };
}

/**
 * `from`/`to` of an export query, read as GET /outcomes reads them (an instant with an offset, or an India-time day:
 * its start for `from`, its end for `to`), as UTC text to compare with `recordedAt`.
 */
export function auditRangeOf(query: Record<string, string | undefined>): { from?: string; to?: string } {
  const issues: ValidationIssue[] = [];
  const bounds = queryRange(query, issues);
  if (issues.length > 0) throw new ValidationError(issues);
  const utc = (bound: Instant | undefined) => (bound === undefined ? undefined : new Date(bound.ms).toISOString());
  return { from: utc(bounds.from), to: utc(bounds.to) };
}

/**
 * The export as JSON lines: a header, the checkpoints (all of them for the whole log; from `from` on for a range),
 * then the records (each stream's in sequence order). The query is checked and a checkpoint written before anything
 * is returned (a bad query is a 400, not a broken stream), so the export is signed to its end. Lines come in chunks.
 */
export async function exportAuditLog(deps: Dependencies, query: Record<string, string | undefined>): Promise<AsyncIterable<string>> {
  const range = auditRangeOf(query);
  const header = await auditExportHeader(deps, range);
  const copy = deps.auditCopy;
  return (async function* lines(): AsyncIterable<string> {
    // On AWS the write-once copy (with what the table holds that the copy does not yet), in the export job's steps.
    if (copy) {
      yield header;
      yield* copyExportLines(deps, copy, range);
      return;
    }
    let chunk = header;
    for (const checkpoint of await deps.auditArchive.checkpoints(range.from)) chunk += `${checkpointLine(checkpoint)}\n`;
    let count = 0;
    for await (const { record } of deps.auditArchive.records(range)) {
      chunk += `${recordLine(record)}\n`;
      if (++count % EXPORT_CHUNK_LINES === 0) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  })();
}

/** The export's first line (with its line end), after a checkpoint is written so that the export is signed to its end. */
export async function auditExportHeader(deps: Dependencies, range: { from?: string; to?: string }): Promise<string> {
  await checkpointFirst(deps);
  const identity = deps.auditKey ? await deps.auditKey.identity() : null;
  const header = headerLine({
    exportedAt: new Date(deps.clock.now().ms).toISOString(),
    from: range.from ?? null,
    to: range.to ?? null,
    complete: range.from === undefined && range.to === undefined,
    algorithm: identity?.algorithm ?? null,
    keyId: identity?.keyId ?? null,
  });
  return `${header}\n`;
}

/** Records per chunk written: a few hundred kilobytes, far fewer writes than one per line. */
const EXPORT_CHUNK_LINES = 500;

export type { CheckpointSummary };

/** GET /audit/checkpoints' limit: 20 when absent, at most 200. */
export const CHECKPOINTS_LIMIT = { fallback: 20, max: 200 };

/** GET /audit/checkpoints?limit=: the newest signed checkpoints, newest first (each links to the one before by its hash). */
export async function listAuditCheckpoints(deps: Dependencies, { limit }: { limit: number }): Promise<{ items: CheckpointSummary[] }> {
  const items = (await deps.auditArchive.latestCheckpoints(limit)).map((c) => ({
    number: c.number, at: c.at, coveredUntil: c.coveredUntil, hash: c.hash, previousHash: c.previousHash, root: c.root ?? null,
    keyId: c.keyId, algorithm: c.algorithm, streams: c.heads.length,
  }));
  return { items };
}
