/**
 * Input Holdback refuses: the error a caller gets for bad input (every issue names the field, what was wrong and what to
 * send instead), and the ranges Holdback accepts (README "Bounds"): times, amounts, list lengths and nesting.
 */
import Decimal from './decimal';
import { DateTime, FixedOffsetZone } from 'luxon';
import { MAX_NESTING_DEPTH, nestingDepth } from '../../kit/nesting-depth';

export { MAX_NESTING_DEPTH, NESTED_TOO_DEEP, nestingDepth, pruneNesting } from '../../kit/nesting-depth';

export interface ValidationIssue {
  field: string;
  problem: string;
  expected: string;
}

/** One issue as a sentence (error messages, the reasons of a rejected event). */
export function issueText(issue: ValidationIssue): string {
  return `${issue.field}: ${issue.problem}; send ${issue.expected}`;
}

/** Whether input is a JSON object (not null, not a list): what every body and event detail must be. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `read()`, or undefined with its issues added to `issues` when it throws a ValidationError: every bad field named at once. */
export function collectIssues<T>(issues: ValidationIssue[], read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    issues.push(...error.issues);
    return undefined;
  }
}

export class ValidationError extends Error {
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    super(issues.map(issueText).join('; '));
    this.name = 'ValidationError';
    this.issues = issues;
  }
}

/**
 * Stored data that breaks an invariant Holdback relies on (a release without its amount or currency): reported naming
 * the record, never guessed around. The API answers 500 `stored_data_defect` with this message.
 */
export class StoredDataDefect extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoredDataDefect';
  }
}

// The ranges Holdback accepts in its input (README "Bounds").

const DAY_MS = 86_400_000;

/**
 * The earliest time any input may name. The gateway's split settlement and its API version 2022-09-01 are far newer;
 * years such as 0000 or 0001 are typing errors, and refusing them keeps every computed date a plain four-digit year.
 */
export const EARLIEST_INSTANT = '2000-01-01T00:00:00Z';
export const EARLIEST_INSTANT_MS = Date.UTC(2000, 0, 1);
/** The latest time an input not tied to the clock may name (a prediction's eligibility): beyond any window. */
export const LATEST_INSTANT = '2100-01-01T00:00:00Z';
export const LATEST_INSTANT_MS = Date.UTC(2100, 0, 1);

/** The first and last days (YYYY-MM-DD) a date may name: the days of [EARLIEST_INSTANT, LATEST_INSTANT). */
export const EARLIEST_DAY = EARLIEST_INSTANT.slice(0, 10);
export const LAST_DAY = '2099-12-31';

/**
 * What is wrong with a day "YYYY-MM-DD" outside [2000-01-01, 2099-12-31], or null. Days compare as days: 2000-01-01
 * in India time begins before 2000-01-01T00:00Z, and is still in bounds.
 */
export function dayBoundsProblem(day: string): string | null {
  if (day < EARLIEST_DAY) return 'before 2000-01-01';
  return day > LAST_DAY ? '2100-01-01 or later' : null;
}

/**
 * How far after Holdback's clock an event's own time may lie. Events report what has happened (a payment, a delivery,
 * a dispute), so a later time is a wrong clock or a typing error; one day leaves room for clocks that disagree and
 * for a wrong offset, and keeps every window within a year and a day of now.
 */
export const MAX_AHEAD_OF_CLOCK = 'P1D';
export const MAX_AHEAD_OF_CLOCK_MS = DAY_MS;

/** `releaseLead`: the send needs minutes (rate limit, retries); 30 days is already more than any schedule option needs. */
export const MAX_RELEASE_LEAD_DAYS = 30;
/** A policy's `delay`: the window is at most Defer by Days (0..365) long, so a longer delay always means "at max". */
export const MAX_DELAY_DAYS = 365;

/** The largest amount of one vendor's share (ten digits and two decimals: ₹999 crore), far above any order. */
export const MAX_AMOUNT = '9999999999.99';
const MAX_AMOUNT_DECIMAL = new Decimal(MAX_AMOUNT);

/** Vendors of one order.paid (and names in one vendorIds): each becomes a release item planned in the same call. */
export const MAX_VENDORS_PER_ORDER = 100;
/** Bank holidays in the settings: about 20 a year, so 50 years' worth; the settings must fit one table item. */
export const MAX_HOLIDAYS = 1000;
/** The issue of a value nested deeper than the limit, or null. */
export function nestingIssue(value: unknown, field: string, example: string): ValidationIssue | null {
  if (nestingDepth(value) <= MAX_NESTING_DEPTH) return null;
  return {
    field,
    problem: `nests objects and lists more than ${MAX_NESTING_DEPTH} levels deep`,
    expected: `at most ${MAX_NESTING_DEPTH} levels, e.g. ${example}`,
  };
}

/** Throws the field-named error when a parsed JSON body nests deeper than the limit. */
export function assertNesting(value: unknown, field: string, example: string): void {
  const issue = nestingIssue(value, field, example);
  if (issue) throw new ValidationError([issue]);
}

/**
 * An instant as the bounds read it: an Instant of ./instant (epoch milliseconds, the offset it is written in), named
 * here by its shape because instant.ts imports this file (its errors), so this file imports nothing back.
 */
interface BoundedInstant {
  readonly ms: number;
  readonly offset: number;
}

/**
 * The issue of an instant outside [2000-01-01, now + 1 day] (`nowMs` null: [2000-01-01, 2100-01-01), for times that
 * are not about something that happened, such as a prediction's eligibility), or null.
 */
export function instantBoundsIssue(at: BoundedInstant, field: string, nowMs: number | null): ValidationIssue | null {
  const ms = at.ms;
  const latest = nowMs === null ? LATEST_INSTANT_MS - 1 : nowMs + MAX_AHEAD_OF_CLOCK_MS;
  if (ms >= EARLIEST_INSTANT_MS && ms <= latest) return null;
  const range = nowMs === null
    ? `from ${EARLIEST_INSTANT} to before ${LATEST_INSTANT}`
    : `from ${EARLIEST_INSTANT} to one day (${MAX_AHEAD_OF_CLOCK}) after Holdback's clock, now ${new Date(latest).toISOString()}: the time the event happened`;
  const beyond = nowMs === null ? `${LATEST_INSTANT} or later` : 'more than a day after Holdback\'s clock';
  return { field, problem: `is ${DateTime.fromMillis(ms, { zone: FixedOffsetZone.instance(at.offset) }).toISO() ?? 'a time'}, ${ms < EARLIEST_INSTANT_MS ? 'before 2000' : beyond}`, expected: `a time ${range}` };
}

/** The issue of an amount above MAX_AMOUNT, or null. */
export function amountBoundsProblem(amount: Decimal): string | null {
  return amount.gt(MAX_AMOUNT_DECIMAL) ? `is ${amount.toFixed()}, more than the largest amount ${MAX_AMOUNT}` : null;
}

/** A detail bigger than this is stored cut short: the reasons matter, not a megabyte of payload. */
const MAX_STORED_DETAIL_CHARS = 8000;

/** The JSON text of any value (its String form when it has none or cannot be serialised). */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A rejected input's detail as stored: cut to its first characters when its JSON is too big. */
export function storableDetail(detail: unknown): unknown {
  const text = jsonText(detail);
  return text.length > MAX_STORED_DETAIL_CHARS ? { truncated: true, text: text.slice(0, MAX_STORED_DETAIL_CHARS) } : detail;
}
