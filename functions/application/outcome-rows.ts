/** Outcomes for auditors (contract 6.1), read alike by the API, the exports and the audit reads: the query and its ranges, the rows, the streamed CSV. */
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import {
  EARLIEST_DAY, LAST_DAY, ValidationError, collectIssues, dayBoundsProblem, instantBoundsIssue, type ValidationIssue,
} from '../domain/errors';
import { GATEWAY_ZONE } from '../domain/dates';
import { Instant } from '../domain/instant';
import { requireId } from '../domain/order-events';
import { moneyOf, unpredictedBecause } from '../domain/projection';
import { RELEASE_STATES, type ReleaseState, type SettlementMismatch } from '../domain/types';
import { boundedCount, decodeCursor } from './cursor';
import type { Dependencies, OutcomeFilter, OutcomeTime, ReadRelease } from './ports';
import { inZone } from './response-times';
import { releaseViewOf, type ProjectionContext, type ReleaseView } from './release-views';
import type { HoldSource } from '../domain/types';

export const OUTCOME_LIMIT = { min: 1, max: 1000, default: 100 } as const;
const OUTCOME_TIMES: readonly OutcomeTime[] = ['transaction', 'applied', 'settled'];
const FORMATS = ['json', 'csv'] as const;
type OutcomeFormat = (typeof FORMATS)[number];

export interface OutcomeQuery {
  filter: OutcomeFilter;
  limit: number;
  /** The position after which the page starts (decoded from `cursor`). */
  after: string | null;
  format: OutcomeFormat;
}

/** One outcome: the release as GET /orders/{id} shows it, with its order's times and currency. */
export interface OutcomeItem extends ReleaseView {
  currency: string;
  transactionTime: string;
  maxEligibility: string;
  settlementMismatch: (Omit<SettlementMismatch, 'predicted' | 'settledAt'> & { predicted: string; settledAt: string }) | null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What a range bound may be, for every route that takes `from` and `to` (README "Bounds"). */
export const RANGE_EXPECTED = `a date YYYY-MM-DD (India time) or an ISO 8601 time with an offset, from ${EARLIEST_DAY} to ${LAST_DAY}, e.g. "2022-12-01" or "2022-12-01T00:00:00+05:30"`;

/**
 * A range bound: an instant with an offset, or an India-time date ("2022-12-01"), which means the start of that day
 * for `from` and its last millisecond for `to` (so `from=2022-12-01&to=2022-12-31` is all of December). Within
 * [2000-01-01, 2100-01-01), as every time Holdback reads: a year such as 0000 is a typing error.
 */
export function rangeBound(text: string, field: string, end: 'start' | 'end'): Instant {
  if (DAY.test(text)) {
    const day = DateTime.fromISO(text, { zone: GATEWAY_ZONE });
    if (!day.isValid) {
      throw new ValidationError([{ field, problem: `is ${JSON.stringify(text)}, not a date`, expected: RANGE_EXPECTED }]);
    }
    const problem = dayBoundsProblem(text);
    if (problem) throw new ValidationError([{ field, problem: `is ${JSON.stringify(text)}, ${problem}`, expected: RANGE_EXPECTED }]);
    return Instant.fromDateTime(end === 'start' ? day : day.endOf('day'));
  }
  const at = Instant.parse(text, field);
  const outside = instantBoundsIssue(at, field, null);
  if (outside) throw new ValidationError([{ ...outside, expected: RANGE_EXPECTED }]);
  return at;
}

/**
 * `from` and `to` of a query, each read by rangeBound (absent or empty: no bound, or an issue when `required`), and
 * `to` not before `from`. Issues are pushed, so that a route names every bad parameter at once.
 */
export function queryRange(query: { from?: string; to?: string }, issues: ValidationIssue[], required = false): { from?: Instant; to?: Instant } {
  const range: { from?: Instant; to?: Instant } = {};
  for (const field of ['from', 'to'] as const) {
    const text = query[field];
    if (text === undefined || text === '') {
      if (required) issues.push({ field, problem: 'is missing', expected: RANGE_EXPECTED });
      continue;
    }
    const bound = collectIssues(issues, () => rangeBound(text, field, field === 'from' ? 'start' : 'end'));
    if (bound !== undefined) range[field] = bound;
  }
  if (range.from && range.to && range.from.ms > range.to.ms) {
    issues.push({ field: 'to', problem: `is ${JSON.stringify(query.to)}, before from (${JSON.stringify(query.from)}): the range is reversed`, expected: 'a time at or after from (swap them)' });
  }
  return range;
}

/** The query parameters of GET /outcomes, every bad one named at once. */
export function parseOutcomeQuery(params: Record<string, string | undefined>): OutcomeQuery {
  const issues: ValidationIssue[] = [];
  const check = <T>(read: () => T): T | undefined => collectIssues(issues, read);
  const known = new Set(['vendorId', 'orderId', 'state', 'from', 'to', 'by', 'limit', 'cursor', 'format']);
  for (const name of Object.keys(params)) {
    if (!known.has(name)) issues.push({ field: name, problem: 'is not a parameter of GET /outcomes', expected: `only ${[...known].join(', ')}` });
  }
  const filter: OutcomeFilter = { by: 'transaction' };
  const { vendorId, orderId, state, from, to, by, format } = params;
  for (const [field, value] of [['vendorId', vendorId], ['orderId', orderId]] as const) {
    if (value === undefined) continue;
    const valid = check(() => requireId(value, field));
    if (valid !== undefined) filter[field] = valid;
  }
  if (state !== undefined) {
    if ((RELEASE_STATES as readonly string[]).includes(state)) filter.state = state as ReleaseState;
    else issues.push({ field: 'state', problem: `is ${JSON.stringify(state)}`, expected: `one of ${RELEASE_STATES.join(', ')}` });
  }
  if (by !== undefined) {
    if ((OUTCOME_TIMES as readonly string[]).includes(by)) filter.by = by as OutcomeTime;
    else issues.push({ field: 'by', problem: `is ${JSON.stringify(by)}`, expected: `one of ${OUTCOME_TIMES.join(', ')} (which time from and to range over)` });
  }
  const range = queryRange({ from, to }, issues);
  if (range.from !== undefined) filter.from = range.from;
  if (range.to !== undefined) filter.to = range.to;
  const limit = check(() => boundedCount(params.limit, 'limit', OUTCOME_LIMIT.min, OUTCOME_LIMIT.max, OUTCOME_LIMIT.default));
  let chosen: OutcomeFormat = 'json';
  if (format !== undefined) {
    if ((FORMATS as readonly string[]).includes(format)) chosen = format as OutcomeFormat;
    else issues.push({ field: 'format', problem: `is ${JSON.stringify(format)}`, expected: 'json or csv' });
  }
  if (chosen === 'csv' && params.cursor) {
    issues.push({ field: 'cursor', problem: 'is given with format=csv', expected: 'no cursor: the CSV holds every matching row (pages are for format=json)' });
  }
  if (chosen === 'csv' && params.limit) {
    issues.push({ field: 'limit', problem: 'is given with format=csv', expected: 'no limit: the CSV holds every matching row (pages are for format=json)' });
  }
  const after = check(() => decodeCursor(params.cursor, cursorList(filter)));
  if (issues.length > 0) throw new ValidationError(issues);
  return { filter, limit: limit!, after: after ?? null, format: chosen };
}

/** A range bound as the cursor's digest has always covered it: luxon's ISO text with milliseconds, in its own offset. */
function rangeText(bound: Instant | undefined): string | undefined {
  return bound?.toDateTime().toISO() ?? undefined;
}

/** A cursor belongs to one query: a cursor of other filters is refused instead of resuming at a wrong place. */
export function cursorList(filter: OutcomeFilter): string {
  const digest = createHash('sha256').update(JSON.stringify([filter.by, rangeText(filter.from), rangeText(filter.to), filter.vendorId, filter.orderId, filter.state])).digest('base64url');
  return `outcomes:${digest.slice(0, 16)}`;
}

export function outcomeItem(row: ReadRelease, zone: string, projection: ProjectionContext, holdSources?: Map<string, HoldSource>): OutcomeItem {
  const { release, order } = row;
  return {
    orderId: release.orderId,
    ...releaseViewOf(release, zone, projection, holdSources?.get(release.vendorId)),
    currency: moneyOf(release, order?.currency).currency,
    transactionTime: inZone(release.transactionTime, zone),
    maxEligibility: inZone(release.maxEligibility, zone),
    settlementMismatch: release.settlementMismatch
      ? { ...release.settlementMismatch, predicted: inZone(release.settlementMismatch.predicted, zone), settledAt: inZone(release.settlementMismatch.settledAt, zone) }
      : null,
  };
}

/** The CSV columns of contract 6.1, in order. */
export const OUTCOME_CSV_COLUMNS = [
  'order_id', 'vendor_id', 'amount', 'currency', 'state', 'policy_version', 'schedule_option', 'transaction_time',
  'max_eligibility', 'target_eligibility', 'applied_eligibility', 'predicted_settlement', 'settled_at', 'attempts',
  'last_gateway_status', 'last_gateway_message', 'reason', 'hold_reason', 'manual_actor', 'manual_reason',
  'settlement_mismatch_minutes',
] as const;

/** Rows per chunk of the stream: big enough that writes are few, small enough that memory stays flat. */
const ROWS_PER_CHUNK = 500;

/**
 * Every matching outcome as RFC 4180 CSV (CRLF lines, header first), produced a chunk at a time as the rows are read:
 * nothing is buffered beyond one chunk and one index page.
 */
export async function* outcomesCsv(deps: Dependencies, filter: OutcomeFilter): AsyncIterable<string> {
  const zone = (await deps.settings.get()).timezone;
  yield `${OUTCOME_CSV_COLUMNS.join(',')}\r\n`;
  let lines: string[] = [];
  for await (const row of deps.reads.outcomes(filter, null)) {
    lines.push(csvLine(row, zone));
    if (lines.length >= ROWS_PER_CHUNK) {
      yield lines.join('');
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join('');
}

/** A stored time in `zone`, whole seconds. */
function shownTime(stored: Instant, zone: string): string {
  return inZone(stored, zone);
}

/** One row of 6.1's CSV, with its line end (an export written in parts writes the same lines). */
export function csvLine(row: ReadRelease, zone: string): string {
  const r = row.release;
  const last = r.attempts.length > 0 ? r.attempts[r.attempts.length - 1] : null;
  const time = (value: Instant | null): string => (value === null ? '' : shownTime(value, zone));
  const cells = [
    text(r.orderId), text(r.vendorId), r.amount, text(moneyOf(r, row.order?.currency).currency), text(r.state),
    String(r.policyVersion), String(r.scheduleOption), time(r.transactionTime), time(r.maxEligibility),
    time(r.targetEligibility), time(r.appliedEligibility), time(r.predictedSettlement), time(r.settledAt),
    String(r.attempts.length), text(last?.status ?? ''), text(last?.message ?? ''),
    // Why it is in its state, who released it by hand and why, and how far the settlement was from its prediction
    // (empty when they agree or nothing was predicted).
    text(r.reason ?? ''), text(r.holdReason ?? ''), text(r.manual?.actor ?? ''), text(r.manual?.reason ?? ''),
    r.settlementMismatch && unpredictedBecause(r) === null ? String(r.settlementMismatch.differenceMinutes) : '',
  ];
  return `${cells.map(quoted).join(',')}\r\n`;
}

/**
 * A text cell, made inert for spreadsheets: one that begins with `=`, `+`, `-`, `@`, tab or carriage return would be
 * read as a formula, so it gets a leading `'`. Amounts, numbers and times are not text cells and stay as they are.
 */
export function text(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** How a cell that a spreadsheet would run as a formula begins (contract 6.1's list). */
export const FORMULA_START = /^[=+\-@\t\r]/;

/** RFC 4180: a cell holding a comma, a quote, CR or LF is quoted, its quotes doubled. */
export function quoted(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}
