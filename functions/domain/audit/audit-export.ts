/** The audit export's JSON lines (a header, the signed checkpoints, the records) and their verification offline. */
import type { KeyObject } from 'node:crypto';
import type { AuditCheckpoint, CheckpointAlgorithm } from './audit-checkpoints';
import type { AuditRecord } from './audit-records';
import { AuditVerifier, type AuditVerification } from './audit-verification';

/** The first line of an export. */
export interface ExportHeader {
  type: 'audit_export';
  exportedAt: string;
  /** The range of `recordedAt` exported (UTC); both null for the whole log. */
  from: string | null;
  to: string | null;
  /** The whole log: every stream from sequence 1 and every checkpoint from number 1. */
  complete: boolean;
  algorithm: CheckpointAlgorithm | null;
  keyId: string | null;
}

/** The stream under which a line that is not an export line is reported (its line number is the `sequence`). */
export const EXPORT_FILE_STREAM = 'file';

export const headerLine = (header: Omit<ExportHeader, 'type'>): string => JSON.stringify({ type: 'audit_export', ...header });
export const checkpointLine = (checkpoint: AuditCheckpoint): string => JSON.stringify({ type: 'checkpoint', ...checkpoint });
export const recordLine = (record: AuditRecord): string => JSON.stringify({ type: 'record', ...record });

type ExportLine =
  | { kind: 'header'; header: ExportHeader }
  | { kind: 'checkpoint'; checkpoint: AuditCheckpoint }
  | { kind: 'record'; record: AuditRecord }
  | { kind: 'blank' }
  | { kind: 'invalid'; reason: string };

/** One line of an export (or of the write-once copy, whose lines are export lines). */
export function parseExportLine(line: string): ExportLine {
  if (line.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'invalid', reason: 'is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'invalid', reason: 'is not a JSON object' };
  const { type, ...rest } = value as Record<string, unknown>;
  if (type === 'record') return { kind: 'record', record: rest as unknown as AuditRecord };
  if (type === 'checkpoint') return { kind: 'checkpoint', checkpoint: { ...(rest as unknown as AuditCheckpoint), heads: Array.isArray(rest.heads) ? rest.heads as AuditCheckpoint['heads'] : [] } };
  if (type === 'audit_export') return { kind: 'header', header: value as ExportHeader };
  return { kind: 'invalid', reason: `has type ${JSON.stringify(type)}, not "audit_export", "checkpoint" or "record"` };
}

export type ExportVerification = AuditVerification & { complete: boolean };

export interface ExportVerifyOptions {
  /** Every key that ever signed, by keyId (GET /audit/public-keys); a checkpoint under another keyId is reported. */
  publicKeys?: ReadonlyMap<string, KeyObject>;
  /** One key for every checkpoint (`--public-key`). */
  publicKey?: KeyObject | null;
  /**
   * Check a time-range export's links only (the first record of each stream may link outside it). Without it an
   * export whose header does not say `complete: true` is refused as incomplete: the header is not signed, so it may
   * make the check stricter, never laxer.
   */
  partial?: boolean;
}

/**
 * Verifies an export: `lines()` gives the file's lines from the start each time it is called (it is read twice: the
 * checkpoints first, whatever their place in the file, then the records). Always as the whole log unless `partial`.
 */
export async function verifyExport(lines: () => AsyncIterable<string> | Iterable<string>, keys: KeyObject | null | ExportVerifyOptions): Promise<ExportVerification> {
  const options: ExportVerifyOptions = keys !== null && !('asymmetricKeyType' in keys) ? keys as ExportVerifyOptions : { publicKey: keys as KeyObject | null };
  let header: ExportHeader | null = null;
  const checkpoints: AuditCheckpoint[] = [];
  let lineNumber = 0;
  for await (const line of lines()) {
    lineNumber += 1;
    const parsed = parseExportLine(line);
    if (parsed.kind === 'invalid') {
      return { ok: false, records: 0, streams: 0, checkpoints: 0, unsignedRecords: 0, complete: false, firstBroken: { stream: EXPORT_FILE_STREAM, sequence: lineNumber, reason: `line ${lineNumber} ${parsed.reason}` } };
    }
    if (parsed.kind === 'header' && header === null) header = parsed.header;
    if (parsed.kind === 'checkpoint') checkpoints.push(parsed.checkpoint);
  }
  const complete = !options.partial;
  if (complete && (header as ExportHeader | null)?.complete !== true) {
    const reason = header === null
      ? 'incomplete: the file has no audit_export header line; verify a whole export (GET /audit/export without from or to)'
      : 'incomplete: the header says this export is not the whole log; verify a whole export (GET /audit/export without from or to), or pass --partial to check only the links inside its range';
    return { ok: false, records: 0, streams: 0, checkpoints: checkpoints.length, unsignedRecords: 0, complete: false, firstBroken: { stream: EXPORT_FILE_STREAM, sequence: 1, reason } };
  }
  const verifier = new AuditVerifier({ publicKey: options.publicKey, publicKeys: options.publicKeys, complete });
  for (const checkpoint of checkpoints) verifier.addCheckpoint(checkpoint);
  for await (const line of lines()) {
    const parsed = parseExportLine(line);
    if (parsed.kind === 'record') verifier.addRecord(parsed.record);
  }
  return { ...verifier.result(), complete };
}
