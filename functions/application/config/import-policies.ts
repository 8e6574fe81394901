/** Use case: POST /policies/import, a CSV of vendor policies checked line by line, applied all or nothing, once per file. */
import type { Instant } from '../../domain/instant';
import { parse } from 'csv-parse/sync';
import { sha256Hex } from '../../domain/digest';
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { isValidId } from '../../domain/order-events';
import { defaultPolicy, validatePolicyInput } from '../../domain/settings';
import type { VendorPolicy } from '../../domain/types';
import { ConflictError, describeError } from '../errors';
import { eachInFlight } from '../in-flight';
import { saveNextPolicy } from './manage-policies';
import { FORMULA_START } from '../outcome-rows';
import type { PolicyChange } from './policy-change';
import { VersionConflictError, type Dependencies } from '../ports';
import { storedInstant } from '../release-store';
import { inZone } from '../response-times';

export const IMPORT_HEADER = ['vendorId', 'scheduleOption', 'release', 'delay', 'reason'] as const;
/**
 * The most policy rows one file may hold (the header aside); a longer file is refused before any row is read, as is a
 * file of more than this many lines plus one (so a 100,000-line file never gets parsed, let alone applied).
 */
export const MAX_IMPORT_ROWS = 20_000;
/** Policies written (or rolled back) at once. */
const WRITES_IN_FLIGHT = 16;
/** An import still `applying` after this long was interrupted (a crash): the same file applied again carries it on. */
const INTERRUPTED_AFTER_MS = 5 * 60_000;

/**
 * Characters of a cell quoted in an error: enough to recognise it, while one answer stays far below Lambda's 6 MB
 * whatever the cells hold (an 8.5 MB cell used to be quoted whole).
 */
export const QUOTED_CELL_CHARS = 200;
/** Characters of one error's message: the quoted cell, the field's rule and an example fit; a parser's own text is cut. */
const MESSAGE_CHARS = 1000;
/**
 * Errors listed in one answer (dry run or refused apply); the rest are counted (`moreErrors`). 1,000 errors of at most
 * about 1 KB each keep the answer near 1 MB, and a file with so many errors is fixed from the first ones anyway.
 */
export const MAX_LISTED_ERRORS = 1000;

/** A cell as an error quotes it: JSON text, cut to QUOTED_CELL_CHARS with an ellipsis and the cell's full length. */
export function quotedCell(value: string): string {
  if (value.length <= QUOTED_CELL_CHARS) return JSON.stringify(value);
  return `${JSON.stringify(`${value.slice(0, QUOTED_CELL_CHARS)}…`)} (cut: ${value.length} characters in all)`;
}

function boundedMessage(message: string): string {
  return message.length <= MESSAGE_CHARS ? message : `${message.slice(0, MESSAGE_CHARS)}… (cut: ${message.length} characters in all)`;
}

export interface ImportLineError {
  /** The line of the file (the header is line 1). */
  line: number;
  field: string;
  message: string;
}

export interface ImportAnswer {
  dryRun: boolean;
  /** The SHA-256 of the file: the same file is the same import. */
  importId: string;
  rows: number;
  valid: number;
  /** The first MAX_LISTED_ERRORS errors, by line. */
  errors: ImportLineError[];
  /** Errors found but not listed (beyond the first MAX_LISTED_ERRORS). */
  moreErrors: number;
  /** Apply only: whether this request wrote the policies (false: the same file had been applied already). */
  applied?: boolean;
  appliedAt?: string | null;
  policies?: { vendorId: string; version: number }[];
  /**
   * Apply only: always null. An import's versions apply to new orders (open ones keep their pinned version), so no
   * per-release work remains, whatever the number of releases (contract 6.3).
   */
  job?: null;
}

interface ImportRow {
  line: number;
  vendorId: string;
  policy: PolicyChange['policy'];
}

/**
 * `dryRun` (default true) checks every line and answers what is wrong where; an apply first checks everything and
 * refuses the whole file on any error, then writes each vendor's next version conditionally. If a write fails midway,
 * every version this import wrote is replaced by the one it replaced (a rollback, recorded as a version of its own),
 * so nothing of the file stays in force. The import is keyed by the file's digest: the same file applied again
 * changes nothing.
 */
export async function importPolicies(deps: Dependencies, file: Buffer, query: { dryRun?: string; actor?: string }): Promise<ImportAnswer> {
  const dryRun = dryRunOf(query.dryRun);
  const actor = actorOf(query.actor);
  const importId = sha256Hex(file.toString('utf8'));
  const { rows, count, errors: found } = checkPolicyFile(file, actor);
  const errors = found.slice(0, MAX_LISTED_ERRORS).map((e) => ({ ...e, message: boundedMessage(e.message) }));
  const moreErrors = found.length - errors.length;
  const checked = { importId, rows: count, valid: rows.length, errors, moreErrors };
  if (dryRun) return { dryRun, ...checked };
  if (errors.length > 0) {
    const expected = 'a corrected file; POST it with dryRun=true to see the errors line by line';
    const issues: ValidationIssue[] = errors.map((e) => ({ field: `line ${e.line}: ${e.field}`, problem: e.message, expected }));
    if (moreErrors > 0) issues.push({ field: 'file', problem: `has ${moreErrors} more errors after line ${errors[errors.length - 1].line}, not listed`, expected });
    throw new ValidationError(issues);
  }
  const startedAt = deps.clock.now();
  const kept = await deps.policyImports.begin({
    importId, actor, rows: count, state: 'applying', startedAt: storedInstant(startedAt), finishedAt: null, reason: null,
  });
  // Times in answers are in the settings' timezone; stored ones are India time.
  const shown = async (at: Instant | null): Promise<string | null> => inZone(at, (await deps.settings.get()).timezone);
  if (kept?.state === 'applied') return { dryRun, ...checked, applied: false, appliedAt: await shown(kept.finishedAt), policies: [], job: null };
  if (kept?.state === 'applying' && startedAt.ms - kept.startedAt.ms < INTERRUPTED_AFTER_MS) {
    throw new ConflictError('import_in_progress', `import ${importId} of this file started at ${kept.startedAt} and is still applying; wait for it, then look at the policies`);
  }
  // A start that found it `applying` for long carries an interrupted apply on: vendors it already wrote are skipped.
  try {
    const policies = await applyRows(deps, importId, rows);
    const finishedAt = storedInstant(deps.clock.now());
    await deps.policyImports.finish(importId, { state: 'applied', at: finishedAt, reason: null });
    return { dryRun, ...checked, applied: true, appliedAt: await shown(finishedAt), policies, job: null };
  } catch (error) {
    const why = error instanceof VersionConflictError ? error.message : describeError(error);
    await rollBack(deps, importId, rows, why);
    await deps.policyImports.finish(importId, { state: 'rolled_back', at: storedInstant(deps.clock.now()), reason: why });
    if (error instanceof VersionConflictError) {
      throw new ConflictError('import_conflict', `nothing of the file is applied: ${why}; import the file again`);
    }
    throw error;
  }
}

/** Parses and checks the whole file; every bad line and field is named. */
export function checkPolicyFile(file: Buffer, actor: string): { rows: ImportRow[]; count: number; errors: ImportLineError[] } {
  const text = file.toString('utf8');
  const lines = lineCount(text);
  if (lines > MAX_IMPORT_ROWS + 1) {
    throw new ValidationError([{ field: 'file', problem: `has ${lines} lines`, expected: `at most ${MAX_IMPORT_ROWS} policy rows after the header; split the file` }]);
  }
  const errors: ImportLineError[] = [];
  let unreadable = 0;
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true, info: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: false, record_delimiter: ['\r\n', '\n'],
      skip_records_with_error: true,
      on_skip: (error) => {
        unreadable += 1;
        // One error per line: the parser may stumble more than once in a broken line.
        if (errors.some((e) => e.line === Number(error?.lines ?? 0))) return undefined;
        errors.push({ line: Number(error?.lines ?? 0), field: 'line', message: `is not valid CSV (${error?.message ?? 'unreadable'}); quote a cell that holds a comma, a quote or a line break, and double its quotes` });
        return undefined;
      },
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    throw new ValidationError([{ field: 'file', problem: `is not CSV (${describeError(error)})`, expected: `text/csv with the header ${IMPORT_HEADER.join(',')}` }]);
  }
  const [header, ...body] = records;
  if (!header || header.record.map((c) => c.trim()).join(',') !== IMPORT_HEADER.join(',')) {
    return {
      rows: [], count: body.length + unreadable,
      errors: [{ line: 1, field: 'header', message: `is ${quotedCell(header?.record.join(',') ?? '')}; send exactly ${IMPORT_HEADER.join(',')}` }, ...errors],
    };
  }
  const rows: ImportRow[] = [];
  const seen = new Map<string, number>();
  let previousEnd = header.info.lines;
  let count = 0;
  for (const { record, info } of body) {
    const line = previousEnd + 1;
    previousEnd = info.lines;
    // A blank line (one empty cell) is no row; the end of the file usually has one.
    if (record.length === 1 && record[0].trim() === '') continue;
    count += 1;
    const row = checkRow(record, line, actor, seen, errors);
    if (row) rows.push(row);
  }
  errors.sort((a, b) => a.line - b.line);
  return { rows, count: count + unreadable, errors };
}

const CSV_FIELD_OF_ISSUE: Record<string, string> = {
  scheduleOption: 'scheduleOption', release: 'release', 'release.kind': 'release', 'release.delay': 'delay', reason: 'reason',
};

function checkRow(record: string[], line: number, actor: string, seen: Map<string, number>, errors: ImportLineError[]): ImportRow | null {
  const fail = (field: string, message: string) => errors.push({ line, field, message });
  if (record.length !== IMPORT_HEADER.length) {
    fail('line', `has ${record.length} cells; send ${IMPORT_HEADER.length}: ${IMPORT_HEADER.join(',')} (delay empty unless the rule takes one)`);
    return null;
  }
  const [vendorId, option, kind, delay, reason] = record.map((c) => c.trim());
  const before = errors.length;
  if (!isValidId(vendorId)) {
    fail('vendorId', `is ${quotedCell(vendorId)}${formulaNote(vendorId)}, not a vendor id; send 3 to 45 characters of A-Z, a-z, 0-9, "_" and "-"`);
  } else if (seen.has(vendorId)) {
    fail('vendorId', `${vendorId} is on line ${seen.get(vendorId)} already; send one row per vendor`);
  } else {
    seen.set(vendorId, line);
  }
  if (FORMULA_START.test(reason)) {
    fail('reason', `is ${quotedCell(reason)}${formulaNote(reason)}; start the reason with a letter or a digit`);
  }
  const takesDelay = kind === 'after_payment' || kind === 'after_delivery';
  if (!takesDelay && delay !== '') fail('delay', `is ${quotedCell(delay)}${formulaNote(delay)}, but the rule ${quotedCell(kind)} takes no delay; leave it empty`);
  const body = {
    scheduleOption: /^\d{1,3}$/.test(option) ? Number(option) : option,
    release: takesDelay ? { kind, delay } : { kind },
    actor,
    reason,
  };
  let policy: PolicyChange['policy'] | null = null;
  try {
    policy = validatePolicyInput(body);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const issue of error.issues) {
      const field = CSV_FIELD_OF_ISSUE[issue.field] ?? issue.field;
      const value = field === 'scheduleOption' ? option : field === 'release' ? kind : field === 'delay' ? delay : reason;
      fail(field, `${issue.problem}${formulaNote(value)}; send ${issue.expected}`);
    }
  }
  return policy && errors.length === before ? { line, vendorId, policy } : null;
}

function formulaNote(value: string): string {
  return FORMULA_START.test(value) ? ' (it begins like a spreadsheet formula; formulas are refused, never run)' : '';
}

function lineCount(text: string): number {
  let lines = text.length > 0 && !text.endsWith('\n') ? 1 : 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines += 1;
  return lines;
}

function dryRunOf(value: string | undefined): boolean {
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw new ValidationError([{ field: 'dryRun', problem: `is ${JSON.stringify(value)}`, expected: '"true" (check only, the default) or "false" (apply)' }]);
}

function actorOf(value: string | undefined): string {
  const actor = value?.trim() ?? '';
  if (actor === '' || actor.length > 200 || FORMULA_START.test(actor)) {
    throw new ValidationError([{
      field: 'actor',
      problem: actor === '' ? 'is missing' : `is ${quotedCell(actor)}, not a name of at most 200 characters that starts with a letter or a digit`,
      expected: 'who makes the change, in the query: ?actor=finance@example.com',
    }]);
  }
  return actor;
}

async function applyRows(deps: Dependencies, importId: string, rows: ImportRow[]): Promise<{ vendorId: string; version: number }[]> {
  const written: { vendorId: string; version: number }[] = [];
  await eachInFlight(rows, WRITES_IN_FLIGHT, async (row) => {
    const current = await deps.policies.current(row.vendorId);
    // Written by this import before an interruption: kept as it is.
    // The file has no maxExposure column: a vendor's exposure cap (contract 6.4) stays as it was.
    const keptCap = current?.maxExposure ? { maxExposure: current.maxExposure } : {};
    const saved = current?.importId === importId ? current : await saveNextPolicy(deps, row.vendorId, current?.version ?? 0, { ...row.policy, ...keptCap }, importId);
    written.push({ vendorId: row.vendorId, version: saved.version });
  });
  return written.sort((a, b) => (a.vendorId < b.vendorId ? -1 : a.vendorId > b.vendorId ? 1 : 0));
}

/**
 * Puts back, as the next version, the policy each vendor had before this import wrote one; vendors it did not reach
 * are left alone. Every vendor is tried (three times) even if one fails; what still failed is thrown, and the import
 * stays `applying`, so that applying the same file again completes it.
 */
async function rollBack(deps: Dependencies, importId: string, rows: ImportRow[], why: string): Promise<void> {
  const settings = await deps.settings.get();
  const failed: string[] = [];
  // Each vendor catches its own failure, so that every vendor is tried.
  await eachInFlight(rows, WRITES_IN_FLIGHT, async ({ vendorId }) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await restore(deps, importId, vendorId, settings, why);
        return;
      } catch (error) {
        if (attempt >= 3) {
          failed.push(`${vendorId}: ${describeError(error)}`);
          return;
        }
      }
    }
  });
  if (failed.length > 0) {
    deps.logger.error('policy import rollback incomplete; applying the same file again completes the import', { importId, failed: failed.slice(0, 20) });
    throw new Error(`import ${importId} could not be rolled back for ${failed.length} vendors; apply the same file again to complete it`);
  }
}

async function restore(deps: Dependencies, importId: string, vendorId: string, settings: Parameters<typeof defaultPolicy>[1], why: string): Promise<void> {
  const current = await deps.policies.current(vendorId);
  if (current?.importId !== importId) return;
  const previous: VendorPolicy = (current.version > 1 ? await deps.policies.version(vendorId, current.version - 1) : null)
    ?? defaultPolicy(vendorId, settings);
  await saveNextPolicy(deps, vendorId, current.version, {
    scheduleOption: previous.scheduleOption,
    release: previous.release,
    ...(previous.maxExposure ? { maxExposure: previous.maxExposure } : {}),
    actor: current.actor,
    reason: `import ${importId.slice(0, 12)} rolled back, version ${previous.version} restored: ${why}`.slice(0, 200),
  });
}
