/**
 * Verification and export of the audit log over its write-once copy (AWS), in bounded steps (audit-copy.ts): the copy
 * pass a page of objects a step, then the table with the copy's versions in place, a page of records a step. A step's
 * state is plain JSON, a few hundred bytes and the copy's versions (at most COPY_VERSIONS_BYTES: none while nobody
 * tampers), carried in the next step's queue message; a kill or a timeout repeats one step. `GET /audit/verify` and
 * `GET /audit/export` run the same steps one after the other in their answer, so an answer and a job's result agree.
 */
import { AuditVerifier, type AuditVerification, type VerifierOptions, type VerifierProgress } from '../../domain/audit/audit-verification';
import { checkpointLine, recordLine } from '../../domain/audit/audit-export';
import { EXPORT_PART_ROWS, type AuditCopy, type Dependencies } from '../ports';
import { copyOnlyStreams, copyPassStep, mergedPage, passFindings, startCopyPass, startMerge, withCopyCheckpoints, type CopyPass, type MergeCursor } from './audit-copy';

/** What a verification step over the copy carries to the next. */
export interface CopyVerifyState {
  pass: CopyPass;
  /** The highest checkpoint the first step found in the table: later steps verify against the same checkpoints. */
  upTo: number;
  cursor: MergeCursor;
  progress: VerifierProgress | null;
}

export type CopyVerifyStep = { count: number; next: CopyVerifyState; verification?: undefined } | { count: number; next?: undefined; verification: AuditVerification };

/** One step of the verification over the copy (`state` null: the first); the last answers the verification. */
export async function copyVerifyStep(deps: Dependencies, copy: AuditCopy, options: VerifierOptions, state: CopyVerifyState | null): Promise<CopyVerifyStep> {
  const at: CopyVerifyState = state ?? { pass: startCopyPass(), upTo: (await deps.auditArchive.latestCheckpoints(1))[0]?.number ?? 0, cursor: startMerge(), progress: null };
  if (at.pass.part !== null) return { count: 0, next: { ...at, pass: await copyPassStep(deps, copy, at.pass) } };
  const checkpoints = withCopyCheckpoints((await deps.auditArchive.checkpoints()).filter((c) => c.number <= at.upTo), at.pass);
  const verifier = AuditVerifier.resume(options, checkpoints, at.progress);
  const { items, next, ended } = await mergedPage(deps, at.pass, at.cursor, deps.exportPartRows ?? EXPORT_PART_ROWS);
  let current = at.progress?.open?.stream ?? null;
  for (const { record, problem } of items) {
    // A stream's records come together: the stream before this one is done.
    if (record.stream !== current) verifier.closeStreamsBut(record.stream);
    current = record.stream;
    verifier.addRecord(record, problem);
  }
  if (!ended) {
    verifier.closeStreamsBut(current);
    return { count: items.length, next: { ...at, cursor: next, progress: verifier.progress() } };
  }
  for (const { link, when } of passFindings(at.pass)) verifier.addFinding(link, when);
  const missing = await missingStreams(deps, verifier, new Set(copyOnlyStreams(at.pass, next)));
  return { count: items.length, verification: verifier.result(missing) };
}

/** The whole verification over the copy, its steps one after the other (an answer: a small log). */
export async function verifyCopy(deps: Dependencies, copy: AuditCopy, options: VerifierOptions): Promise<AuditVerification> {
  let state: CopyVerifyState | null = null;
  for (;;) {
    const step: CopyVerifyStep = await copyVerifyStep(deps, copy, options, state);
    if (step.verification) return step.verification;
    state = step.next;
  }
}

/**
 * The signed streams of which no record was read (closed streams are only counted): none when the counts agree; else
 * the first absent one in the order breaks are chosen, found by reading the signed streams in that order, 16 at a time
 * (`given`: streams read from elsewhere than the table, the copy's).
 */
export async function missingStreams(deps: Dependencies, verifier: AuditVerifier, given: ReadonlySet<string> = new Set()): Promise<string[]> {
  const all = verifier.signedStreams();
  if (verifier.signedSeen() >= all.length) return [];
  const signed = all.filter((stream) => !given.has(stream));
  for (let i = 0; i < signed.length; i += 16) {
    const batch = signed.slice(i, i + 16);
    const found = await Promise.all(batch.map(async (stream) => (await deps.auditArchive.streamRecordsFrom(stream, 1)).length > 0));
    const absent = batch.filter((_, k) => !found[k]);
    if (absent.length > 0) return absent.slice(0, 1);
  }
  return [];
}

/** What an export step over the copy carries to the next: the pass, then checkpoints after a number, then records. */
export interface CopyExportState {
  pass: CopyPass;
  at: { checkpoint: number } | { records: MergeCursor };
}

/**
 * One step of the export over the copy (`state` null: the first): after the copy pass, the checkpoints (the table's,
 * the copy's versions in their place) a page at a time, then the records; at most `limit` lines, unless the copy's
 * versions add a few. `next` is absent after the last.
 */
export async function copyExportStep(deps: Dependencies, copy: AuditCopy, range: { from?: string; to?: string }, state: CopyExportState | null, limit: number): Promise<{ lines: string[]; next?: CopyExportState }> {
  const at: CopyExportState = state ?? { pass: startCopyPass(), at: { checkpoint: 0 } };
  if (at.pass.part !== null) return { lines: [], next: { ...at, pass: await copyPassStep(deps, copy, at.pass) } };
  if ('checkpoint' in at.at) {
    const after = at.at.checkpoint;
    const page = await deps.auditArchive.checkpointsAfter(after, limit, range.from);
    const top = page.length < limit ? Number.POSITIVE_INFINITY : page[page.length - 1].number;
    const inPage = withCopyCheckpoints(page, at.pass, (c) => c.number > after && c.number <= top && (range.from === undefined || c.at >= range.from));
    const lines = inPage.map((c) => `${checkpointLine(c)}\n`);
    return { lines, next: { ...at, at: page.length < limit ? { records: startMerge() } : { checkpoint: top } } };
  }
  const { items, next, ended } = await mergedPage(deps, at.pass, at.at.records, limit, range);
  const lines = items.map(({ record }) => `${recordLine(record)}\n`);
  return ended ? { lines } : { lines, next: { ...at, at: { records: next } } };
}

/** The export's lines over the copy, its steps one after the other (GET /audit/export), a step's lines a chunk. */
export async function* copyExportLines(deps: Dependencies, copy: AuditCopy, range: { from?: string; to?: string }): AsyncIterable<string> {
  let state: CopyExportState | null = null;
  for (;;) {
    const step: { lines: string[]; next?: CopyExportState } = await copyExportStep(deps, copy, range, state, deps.exportPartRows ?? EXPORT_PART_ROWS);
    if (step.lines.length > 0) yield step.lines.join('');
    if (!step.next) return;
    state = step.next;
  }
}
