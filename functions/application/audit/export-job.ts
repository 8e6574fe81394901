/**
 * POST /exports (contract 6.3): outcomes as CSV (exactly 6.1's) or JSON lines with GET /outcomes' filters, or the audit
 * log as GET /audit/export writes it, as a file of any size. The request is checked whole before any job starts.
 * An export runs in steps (the audit export too: over the write-once copy on AWS, copy-steps.ts): each writes one part of EXPORT_PART_ROWS rows after the position the step before
 * stopped at (the cursor travels in the next step's message, recorded before it is sent), and the last step writes the
 * file once from its parts, with its SHA-256, rows and bytes, and answers a link valid EXPORT_LINK_HOURS. A kill or a
 * function timeout repeats one part at most (written again whole, replacing the earlier try), never the export.
 */
import { auditExportHeader, auditRangeOf, exportAuditLog } from './audit-log-views';
import { copyExportStep, type CopyExportState } from './copy-steps';
import { checkpointLine, recordLine } from '../../domain/audit/audit-export';
import { EXPORT_PART_ROWS, type AuditCopy, type Dependencies, type JobStep, type ReadRelease, type ReleaseReads, type StoredJob } from '../ports';
import { OUTCOME_CSV_COLUMNS, csvLine, outcomeItem, outcomesCsv, parseOutcomeQuery } from '../outcome-rows';
import { projectionContext } from '../release-views';
import type { StepWork } from '../release-walk';
import { startJob } from '../start-job';

/** How long an export's link works: the contract's hour, with room for a slow download to start. */
export const EXPORT_LINK_HOURS = 2;
const OUTCOME_FORMATS = ['csv', 'jsonl'] as const;

/** The step that writes part `n`, continuing after the outcome position `after`. */
const partStep = (n: number, after: string | null): Omit<JobStep, 'jobId'> => ({ step: `part:${n}`, after });
/** The last step: the file from its `parts` parts. */
const fileStep = (parts: number): Omit<JobStep, 'jobId'> => ({ step: 'file', after: String(parts) });
/** An export as its route's schema read it (handlers/schema/export-body.ts): who asks, and what to write. */
export type ExportInput =
  | { kind: 'outcomes'; format: (typeof OUTCOME_FORMATS)[number]; filters?: Record<string, string>; actor?: string }
  | { kind: 'audit'; from?: string; to?: string; actor?: string };

/** Starts the export job of a body its route has read (so nothing starts for a bad one). */
export async function startExport(deps: Dependencies, input: ExportInput): Promise<StoredJob> {
  const actor = input.actor ?? 'api';
  if (input.kind === 'audit') {
    const range: Record<string, string | undefined> = {};
    if (input.from !== undefined) range.from = input.from;
    if (input.to !== undefined) range.to = input.to;
    return startJob(deps, { kind: 'audit_export', actor, params: { range }, first: partStep(0, null) });
  }
  return startJob(deps, { kind: 'outcomes_export', actor, params: { format: input.format, filters: input.filters ?? {} }, first: partStep(0, null) });
}

/** A step of an export: a part, the file from its parts, or the whole file in one step. */
export async function exportStep(deps: Dependencies, job: StoredJob, step: JobStep): Promise<StepWork> {
  if (job.kind === 'outcomes_export' && step.step.startsWith('part:')) return outcomesPart(deps, job, step);
  if (job.kind === 'audit_export' && /^(part|copy):/.test(step.step)) return deps.auditCopy ? copyAuditPart(deps, deps.auditCopy, job, step) : auditPart(deps, job, step);
  if (step.step === 'file' && typeof step.after === 'string') return fromParts(deps, job, Number(step.after));
  // An export started before exports were written in parts.
  return wholeFile(deps, job);
}

const fileKey = (job: StoredJob): string => `${job.jobId}.${job.kind === 'outcomes_export' && job.params.format === 'csv' ? 'csv' : 'jsonl'}`;

/** Reads the part's rows after the step's position and writes them as part `n`; opens the next part, or the file. */
async function outcomesPart(deps: Dependencies, job: StoredJob, step: JobStep): Promise<StepWork> {
  const n = Number(step.step.slice('part:'.length));
  const { filter } = parseOutcomeQuery({ ...(job.params.filters as Record<string, string>), format: 'csv' });
  const limit = deps.exportPartRows ?? EXPORT_PART_ROWS;
  const rows: ReadRelease[] = [];
  for await (const row of deps.reads.outcomes(filter, step.after ?? null)) {
    rows.push(row);
    if (rows.length >= limit) break;
  }
  const settings = await deps.settings.get();
  // Projected settlements as of the export's start (its job's creation), the same in every part and every try.
  const projection = projectionContext(settings, job.createdAt.ms);
  const lines = job.params.format === 'csv'
    ? [...(n === 0 ? [`${OUTCOME_CSV_COLUMNS.join(',')}\r\n`] : []), ...rows.map((row) => csvLine(row, settings.timezone))]
    : rows.map((row) => `${JSON.stringify(outcomeItem(row, settings.timezone, projection))}\n`);
  await writePart(deps, job, n, lines);
  const more = rows.length >= limit;
  return {
    count: rows.length,
    opened: [more ? partStep(n + 1, rows[rows.length - 1].position) : fileStep(n + 1)],
    run: async () => ({ done: rows.length, failed: 0, failures: [] }),
  };
}

/** Writes part `n` of the job's file, whole, 500 lines a chunk. */
async function writePart(deps: Dependencies, job: StoredJob, n: number, lines: string[]): Promise<void> {
  await deps.exports.writePart(fileKey(job), n, (async function* chunks() {
    for (let i = 0; i < lines.length; i += 500) yield lines.slice(i, i + 500).join('');
  })());
}

/**
 * Where an audit export's part starts: after a checkpoint number (checkpoints come first), or after a record's
 * position in the store (null: the first record).
 */
type AuditPosition = { checkpoint: number } | { record: string | null };

/**
 * Part `n` of an audit export: the lines of GET /audit/export after the step's position, at most the part's rows
 * (the header, written by the first part, counts as one, as it does in the file's rows), so the parts joined in order
 * are the one-step export's file, byte for byte.
 */
async function auditPart(deps: Dependencies, job: StoredJob, step: JobStep): Promise<StepWork> {
  const n = Number(step.step.slice('part:'.length));
  const range = auditRangeOf((job.params.range ?? {}) as Record<string, string>);
  const limit = deps.exportPartRows ?? EXPORT_PART_ROWS;
  const lines: string[] = n === 0 ? [await auditExportHeader(deps, range)] : [];
  let at: AuditPosition = step.after ? (JSON.parse(step.after) as AuditPosition) : { checkpoint: 0 };
  let ended = false;
  if ('checkpoint' in at && lines.length < limit) {
    const wanted = limit - lines.length;
    const page = await deps.auditArchive.checkpointsAfter(at.checkpoint, wanted, range.from);
    for (const checkpoint of page) lines.push(`${checkpointLine(checkpoint)}\n`);
    at = page.length < wanted ? { record: null } : { checkpoint: page[page.length - 1].number };
  }
  if ('record' in at && lines.length < limit) {
    ended = true;
    for await (const { record, position } of deps.auditArchive.records(range, at.record)) {
      lines.push(`${recordLine(record)}\n`);
      at = { record: position ?? null };
      if (lines.length >= limit) {
        ended = false;
        break;
      }
    }
  }
  await writePart(deps, job, n, lines);
  return {
    count: lines.length,
    opened: [ended ? fileStep(n + 1) : partStep(n + 1, JSON.stringify(at))],
    run: async () => ({ done: lines.length, failed: 0, failures: [] }),
  };
}

/**
 * A step of an audit export over the write-once copy (AWS), copy-steps.ts's: the first (`part:0`) writes the header as
 * part 0 and reads the copy's first page; `copy:<k>` steps read the copy's next pages and write nothing (so the file's
 * parts stay few); then `part:<n>` steps write the checkpoints (the copy's versions in place) and the records.
 */
async function copyAuditPart(deps: Dependencies, copy: AuditCopy, job: StoredJob, step: JobStep): Promise<StepWork> {
  const reading = step.step.startsWith('copy:');
  const n = Number(step.step.slice(step.step.indexOf(':') + 1));
  const range = auditRangeOf((job.params.range ?? {}) as Record<string, string>);
  const header = !reading && n === 0 ? [await auditExportHeader(deps, range)] : [];
  const state = step.after ? (JSON.parse(step.after) as CopyExportState) : null;
  const { lines, next } = await copyExportStep(deps, copy, range, state, (deps.exportPartRows ?? EXPORT_PART_ROWS) - header.length);
  const all = [...header, ...lines];
  if (!reading) await writePart(deps, job, n, all);
  const parts = reading ? 1 : n + 1;
  const then = !next ? fileStep(parts) : next.pass.part !== null ? { step: `copy:${reading ? n + 1 : 1}`, after: JSON.stringify(next) } : partStep(parts, JSON.stringify(next));
  return { count: all.length, opened: [then], run: async () => ({ done: all.length, failed: 0, failures: [] }) };
}

/** The file from its parts, once; its rows are the job's total (every part was recorded before this step was sent). */
async function fromParts(deps: Dependencies, job: StoredJob, parts: number): Promise<StepWork> {
  const key = fileKey(job);
  const written = await deps.exports.combine(key, job.kind === 'outcomes_export' && job.params.format === 'csv' ? CSV_TYPE : JSONL_TYPE, parts);
  return linked(deps, job, key, written, job.total);
}

/** The export's one step: write the whole file, then answer its link. */
async function wholeFile(deps: Dependencies, job: StoredJob): Promise<StepWork> {
  const { lines, contentType, extension, rows } = await exportLines(deps, job);
  const key = `${job.jobId}.${extension}`;
  const written = await deps.exports.write(key, contentType, lines);
  const count = rows();
  const work = await linked(deps, job, key, written, count);
  return { ...work, count, run: async () => ({ done: count, failed: 0, failures: [] }) };
}

/** The link of a written file, and the job's result (a step that adds no rows of its own). */
async function linked(deps: Dependencies, job: StoredJob, key: string, written: { bytes: number; sha256: string }, rows: number): Promise<StepWork> {
  const expiresAt = new Date(deps.clock.now().ms + EXPORT_LINK_HOURS * 3_600_000);
  const extension = key.slice(key.lastIndexOf('.') + 1);
  const url = await deps.exports.link(key, expiresAt, `holdback-${job.kind === 'audit_export' ? 'audit' : 'outcomes'}-${job.jobId}.${extension}`);
  const result = { url, expiresAt: expiresAt.toISOString(), rows, bytes: written.bytes, sha256: written.sha256 };
  return { count: 0, opened: [], run: async () => ({ done: 0, failed: 0, failures: [] }), result: () => result };
}

const CSV_TYPE = 'text/csv; charset=utf-8';
const JSONL_TYPE = 'application/x-ndjson';

async function exportLines(deps: Dependencies, job: StoredJob): Promise<{ lines: AsyncIterable<string>; contentType: string; extension: string; rows: () => number }> {
  if (job.kind === 'audit_export') {
    let rows = 0;
    const lines = await exportAuditLog(deps, (job.params.range ?? {}) as Record<string, string>);
    return {
      contentType: JSONL_TYPE, extension: 'jsonl', rows: () => rows,
      lines: (async function* counted() {
        for await (const chunk of lines) {
          rows += chunk.split('\n').length - 1;
          yield chunk;
        }
      })(),
    };
  }
  const { filter } = parseOutcomeQuery({ ...(job.params.filters as Record<string, string>), format: 'csv' });
  let rows = 0;
  // The rows are counted as the reads yield them, so that the CSV is 6.1's own code, untouched.
  const reads: ReleaseReads = Object.assign(Object.create(deps.reads) as ReleaseReads, {
    outcomes: async function* counted(...args: Parameters<ReleaseReads['outcomes']>) {
      for await (const row of deps.reads.outcomes(...args)) {
        rows += 1;
        yield row;
      }
    },
  });
  const counting: Dependencies = { ...deps, reads };
  if (job.params.format === 'csv') return { contentType: CSV_TYPE, extension: 'csv', rows: () => rows, lines: outcomesCsv(counting, filter) };
  return {
    contentType: JSONL_TYPE, extension: 'jsonl', rows: () => rows,
    lines: (async function* jsonLines() {
      const settings = await deps.settings.get();
      // Projected settlements as of the export's start, as GET /outcomes shows them.
      const projection = projectionContext(settings, deps.clock.now().ms);
      let chunk = '';
      for await (const row of counting.reads.outcomes(filter, null)) {
        chunk += `${JSON.stringify(outcomeItem(row, settings.timezone, projection))}\n`;
        if (chunk.length > 256 * 1024) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    })(),
  };
}
