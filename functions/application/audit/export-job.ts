/**
 * POST /exports (contract 6.3): outcomes as CSV (exactly 6.1's) or JSON lines with GET /outcomes' filters, or the audit
 * log as GET /audit/export writes it, as a file of any size. The request is checked whole before any job starts.
 * An outcomes export runs in steps: each writes one part of EXPORT_PART_ROWS rows after the position the step before
 * stopped at (the cursor travels in the next step's message, recorded before it is sent), and the last step writes the
 * file once from its parts, with its SHA-256, rows and bytes, and answers a link valid EXPORT_LINK_HOURS. A kill or a
 * function timeout repeats one part at most (written again whole, replacing the earlier try), never the export.
 */
import { ValidationError, isRecord, type ValidationIssue } from '../../domain/errors';
import { auditRangeOf, exportAuditLog } from './audit-log-views';
import { EXPORT_PART_ROWS, type Dependencies, type JobStep, type ReadRelease, type ReleaseReads, type StoredJob } from '../ports';
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
const EXAMPLE = '{"kind": "outcomes", "format": "csv", "filters": {"vendorId": "vendor_a", "from": "2022-12-01", "to": "2022-12-31"}} or {"kind": "audit", "from": "2022-12-01"}';

/** Checks the body (every bad field named, `filters.<name>` for a filter) and starts the export job. */
export async function startExport(deps: Dependencies, body: unknown): Promise<StoredJob> {
  if (!isRecord(body)) throw new ValidationError([{ field: 'body', problem: 'is not a JSON object', expected: EXAMPLE }]);
  const issues: ValidationIssue[] = [];
  const known = body.kind === 'audit' ? ['kind', 'from', 'to', 'actor'] : ['kind', 'format', 'filters', 'actor'];
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) issues.push({ field: key, problem: 'is not a field of this export', expected: `only ${known.join(', ')}` });
  }
  const actor = body.actor === undefined ? 'api' : typeof body.actor === 'string' && body.actor.trim() !== '' && body.actor.length <= 200 ? body.actor.trim() : null;
  if (actor === null) issues.push({ field: 'actor', problem: `is ${JSON.stringify(body.actor)}, not a text of 1 to 200 characters`, expected: 'who asks, e.g. "auditor@example.com", or leave it out' });
  if (body.kind === 'audit') {
    const range: Record<string, string | undefined> = {};
    for (const field of ['from', 'to'] as const) {
      const value = body[field];
      if (value === undefined || value === null) continue;
      if (typeof value === 'string') range[field] = value;
      else issues.push({ field, problem: `is ${JSON.stringify(value)}, not a text`, expected: 'a date YYYY-MM-DD (India time) or an ISO 8601 time with an offset' });
    }
    collect(issues, () => auditRangeOf(range));
    if (issues.length) throw new ValidationError(issues);
    return startJob(deps, { kind: 'audit_export', actor: actor!, params: { range }, first: { step: 'file' } });
  }
  if (body.kind !== 'outcomes') {
    issues.push({ field: 'kind', problem: `is ${JSON.stringify(body.kind) ?? 'missing'}`, expected: '"outcomes" or "audit"' });
    throw new ValidationError(issues);
  }
  if (!(OUTCOME_FORMATS as readonly unknown[]).includes(body.format)) {
    issues.push({ field: 'format', problem: `is ${JSON.stringify(body.format) ?? 'missing'}`, expected: '"csv" (the columns of GET /outcomes?format=csv) or "jsonl" (one outcome as GET /outcomes shows it a line)' });
  }
  const filters: Record<string, string> = {};
  if (body.filters !== undefined && !isRecord(body.filters)) {
    issues.push({ field: 'filters', problem: 'is not a JSON object', expected: 'the filters of GET /outcomes, e.g. {"vendorId": "vendor_a", "state": "APPLIED"}' });
  } else {
    for (const [name, value] of Object.entries((body.filters as Record<string, unknown> | undefined) ?? {})) {
      if (['cursor', 'limit', 'format'].includes(name)) {
        issues.push({ field: `filters.${name}`, problem: 'is not a filter of an export', expected: 'only vendorId, orderId, state, from, to, by: the file holds every matching row' });
      } else if (typeof value !== 'string') {
        issues.push({ field: `filters.${name}`, problem: `is ${JSON.stringify(value)}, not a text`, expected: 'the value as GET /outcomes takes it, e.g. "2022-12-01"' });
      } else {
        filters[name] = value;
      }
    }
  }
  collect(issues, () => parseOutcomeQuery({ ...filters, format: 'csv' }), 'filters.');
  if (issues.length) throw new ValidationError(issues);
  return startJob(deps, { kind: 'outcomes_export', actor: actor!, params: { format: body.format, filters }, first: partStep(0, null) });
}

function collect(issues: ValidationIssue[], check: () => unknown, prefix = ''): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    issues.push(...error.issues.map((issue) => ({ ...issue, field: `${prefix}${issue.field}` })));
  }
}

/** A step of an export: a part of an outcomes export, the file from its parts, or (the audit export) the whole file. */
export async function exportStep(deps: Dependencies, job: StoredJob, step: JobStep): Promise<StepWork> {
  if (job.kind === 'outcomes_export' && step.step.startsWith('part:')) return outcomesPart(deps, job, step);
  if (job.kind === 'outcomes_export' && step.step === 'file' && typeof step.after === 'string') return fromParts(deps, job, Number(step.after));
  // The audit export, and an outcomes export started before exports were written in parts.
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
  await deps.exports.writePart(fileKey(job), n, (async function* chunks() {
    for (let i = 0; i < lines.length; i += 500) yield lines.slice(i, i + 500).join('');
  })());
  const more = rows.length >= limit;
  return {
    count: rows.length,
    opened: [more ? partStep(n + 1, rows[rows.length - 1].position) : fileStep(n + 1)],
    run: async () => ({ done: rows.length, failed: 0, failures: [] }),
  };
}

/** The file from its parts, once; its rows are the job's total (every part was recorded before this step was sent). */
async function fromParts(deps: Dependencies, job: StoredJob, parts: number): Promise<StepWork> {
  const key = fileKey(job);
  const written = await deps.exports.combine(key, job.params.format === 'csv' ? CSV_TYPE : JSONL_TYPE, parts);
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
