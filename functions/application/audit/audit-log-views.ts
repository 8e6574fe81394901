/** Use cases: verify the audit log (GET /audit/verify), export it as JSON lines (GET /audit/export), its public key. */
import { publicKeyOf } from '../../domain/audit-checkpoints';
import { checkpointLine, headerLine, recordLine } from '../../domain/audit-export';
import { AuditVerifier, type AuditVerification } from '../../domain/audit-verification';
import { ValidationError, collectIssues, type ValidationIssue } from '../../domain/errors';
import { NotFoundError, describeError } from '../errors';
import { writeAuditCheckpoint } from './maintain-audit-log';
import type { Dependencies } from '../ports';
import { rangeBound } from '../reads/query-outcomes';

/** Signs what moved first (where this runtime may), so that the answer covers every record up to now. */
async function checkpointFirst(deps: Dependencies): Promise<void> {
  try {
    await writeAuditCheckpoint(deps);
  } catch (error) {
    // Verification still runs: it reports the records after the last checkpoint as unsigned.
    deps.logger.error('audit checkpoint on demand not written', { error: describeError(error) });
  }
}

export async function verifyAuditLog(deps: Dependencies): Promise<AuditVerification> {
  await checkpointFirst(deps);
  const pem = deps.auditKey ? await deps.auditKey.publicKeyPem() : null;
  const verifier = new AuditVerifier({ publicKey: pem ? publicKeyOf(pem) : null, complete: true });
  for (const checkpoint of await deps.auditArchive.checkpoints()) verifier.addCheckpoint(checkpoint);
  for await (const { record, problem } of deps.auditArchive.records()) verifier.addRecord(record, problem);
  return verifier.result();
}

/** The public key (PEM) that checkpoints verify with. */
export async function auditPublicKey(deps: Dependencies): Promise<string> {
  if (!deps.auditKey) throw new NotFoundError('no audit key is configured in this runtime; set HOLDBACK_AUDIT_KMS_KEY_ID (AWS) or HOLDBACK_AUDIT_KEY_FILE (local)');
  return deps.auditKey.publicKeyPem();
}

/**
 * `from`/`to` of an export query, read as GET /outcomes reads them (an instant with an offset, or an India-time day:
 * its start for `from`, its end for `to`), as UTC text to compare with `recordedAt`.
 */
function rangeOf(query: Record<string, string | undefined>): { from?: string; to?: string } {
  const issues: ValidationIssue[] = [];
  const range: { from?: string; to?: string } = {};
  for (const field of ['from', 'to'] as const) {
    const text = query[field];
    if (text === undefined || text === '') continue;
    const bound = collectIssues(issues, () => rangeBound(text, field, field === 'from' ? 'start' : 'end'));
    if (bound !== undefined) range[field] = new Date(Date.parse(bound)).toISOString();
  }
  if (range.from && range.to && range.from > range.to) {
    issues.push({ field: 'to', problem: `is before from (${query.from})`, expected: 'an instant at or after from' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return range;
}

/**
 * The export as JSON lines: a header, the checkpoints (all of them for the whole log; from `from` on for a range),
 * then the records (each stream's in sequence order). The query is checked and a checkpoint written before anything
 * is returned (a bad query is a 400, not a broken stream), so the export is signed to its end. Lines come in chunks.
 */
export async function exportAuditLog(deps: Dependencies, query: Record<string, string | undefined>): Promise<AsyncIterable<string>> {
  const range = rangeOf(query);
  await checkpointFirst(deps);
  const identity = deps.auditKey ? await deps.auditKey.identity() : null;
  const complete = range.from === undefined && range.to === undefined;
  const header = headerLine({
    exportedAt: new Date(deps.clock.now().toMillis()).toISOString(),
    from: range.from ?? null,
    to: range.to ?? null,
    complete,
    algorithm: identity?.algorithm ?? null,
    keyId: identity?.keyId ?? null,
  });
  return (async function* lines(): AsyncIterable<string> {
    let chunk = `${header}\n`;
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

/** Records per chunk written: a few hundred kilobytes, far fewer writes than one per line. */
const EXPORT_CHUNK_LINES = 500;
