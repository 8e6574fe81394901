/**
 * POST /exports (contract 6.3): outcomes as CSV (exactly 6.1's) or JSON lines with GET /outcomes' filters, or the audit
 * log as GET /audit/export writes it, as a file of any size. The request is checked whole before any job starts; the
 * job writes the file once (a delivery again writes it again from the start and replaces it, never appends), with
 * its SHA-256, rows and bytes, and answers a link valid EXPORT_LINK_HOURS.
 */
import { ValidationError, isRecord, type ValidationIssue } from '../../domain/errors';
import { auditRangeOf, exportAuditLog } from '../audit/audit-log-views';
import type { Dependencies, ReleaseReads, StoredJob } from '../ports';
import { outcomeItem, outcomesCsv, parseOutcomeQuery } from '../reads/query-outcomes';
import { projectionContext } from '../reads/view-order';
import type { StepWork } from './release-walk';
import { startJob } from './start-job';

/** How long an export's link works: the contract's hour, with room for a slow download to start. */
export const EXPORT_LINK_HOURS = 2;
const OUTCOME_FORMATS = ['csv', 'jsonl'] as const;
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
  return startJob(deps, { kind: 'outcomes_export', actor: actor!, params: { format: body.format, filters }, first: { step: 'file' } });
}

function collect(issues: ValidationIssue[], check: () => unknown, prefix = ''): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    issues.push(...error.issues.map((issue) => ({ ...issue, field: `${prefix}${issue.field}` })));
  }
}

/** The export's one step: write the whole file, then answer its link. */
export async function exportStep(deps: Dependencies, job: StoredJob): Promise<StepWork> {
  const { lines, contentType, extension, rows } = await exportLines(deps, job);
  const key = `${job.jobId}.${extension}`;
  const written = await deps.exports.write(key, contentType, lines);
  const expiresAt = new Date(deps.clock.now().ms + EXPORT_LINK_HOURS * 3_600_000);
  const url = await deps.exports.link(key, expiresAt, `holdback-${job.kind === 'audit_export' ? 'audit' : 'outcomes'}-${job.jobId}.${extension}`);
  const count = rows();
  const result = { url, expiresAt: expiresAt.toISOString(), rows: count, bytes: written.bytes, sha256: written.sha256 };
  return { count, opened: [], run: async () => ({ done: count, failed: 0, failures: [] }), result: () => result };
}

async function exportLines(deps: Dependencies, job: StoredJob): Promise<{ lines: AsyncIterable<string>; contentType: string; extension: string; rows: () => number }> {
  if (job.kind === 'audit_export') {
    let rows = 0;
    const lines = await exportAuditLog(deps, (job.params.range ?? {}) as Record<string, string>);
    return {
      contentType: 'application/x-ndjson', extension: 'jsonl', rows: () => rows,
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
  if (job.params.format === 'csv') return { contentType: 'text/csv; charset=utf-8', extension: 'csv', rows: () => rows, lines: outcomesCsv(counting, filter) };
  return {
    contentType: 'application/x-ndjson', extension: 'jsonl', rows: () => rows,
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
