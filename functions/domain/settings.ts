/** Merchant settings and vendor policy input: defaults, validation with field-named errors, the calendar they imply. */
import Decimal from './decimal';
import { DateTime, Info, type Duration } from 'luxon';
import { BankCalendar } from './calendar';
import { approvalRulesIssues } from './approvals';
import { DAY_MS } from '../../kit/civil-days';
import { parseDuration } from './dates';
import {
  EARLIEST_DAY, LAST_DAY, MAX_AMOUNT, MAX_DELAY_DAYS, MAX_HOLIDAYS, MAX_RELEASE_LEAD_DAYS, ValidationError, amountBoundsProblem, dayBoundsProblem, isRecord,
  type ValidationIssue,
} from './errors';
import { SCHEDULE_OPTIONS, isScheduleOption } from './schedule-options';
import type { ReleaseRule, Settings, VendorPolicy } from './types';

/** How long "Order ID does not exist" is retried (from its first answer) when the settings name no retryBudget. */
export const DEFAULT_RETRY_BUDGET = 'P1D';

/**
 * How long an order can still be refunded or disputed after its delivery (after its payment without one) when the
 * settings name no riskWindow: seven days, the common return window of Indian marketplaces.
 */
export const DEFAULT_RISK_WINDOW = 'P7D';
/** Held money the gateway settles anyway within this long is an alert, when the settings name no holdWarning. */
export const DEFAULT_HOLD_WARNING = 'P2D';

export const DEFAULT_SETTINGS: Settings = Object.freeze({
  deferByDays: 15,
  timezone: 'Asia/Kolkata',
  defaultScheduleOption: 1,
  holidays: [] as string[],
  settlementDays: 'working',
  releaseLead: 'PT1H',
  retryBudget: DEFAULT_RETRY_BUDGET,
  riskWindow: DEFAULT_RISK_WINDOW,
  holdWarning: DEFAULT_HOLD_WARNING,
  approvals: {},
}) as Settings;

/** The longest retry budget: no window is longer than Defer by Days' 365 days. */
export const MAX_RETRY_BUDGET_DAYS = 365;

export const SETTINGS_KEYS = ['deferByDays', 'timezone', 'defaultScheduleOption', 'holidays', 'settlementDays', 'releaseLead', 'retryBudget', 'riskWindow', 'holdWarning', 'approvals'] as const;
/** The longest risk window and hold warning: a year, as the longest window. */
export const MAX_CONTROL_DAYS = 365;
/** Keys a settings body (PUT /settings, its preview) may carry besides the settings: who, why, on which version, which preview. */
export const SETTINGS_CHANGE_KEYS: readonly string[] = ['actor', 'reason', 'version', 'at', 'previewId'];
export const POLICY_KEYS = ['scheduleOption', 'release', 'actor', 'reason', 'maxExposure'] as const;
/** A currency code as the gateway names it (ISO 4217). */
const CURRENCY = /^[A-Z]{3}$/;
/** An amount as decimal text with at most two decimals, never a JSON number (a float loses paise). */
const AMOUNT_TEXT = /^\d{1,10}(\.\d{1,2})?$/;
/** Currencies one policy may cap: far more than any marketplace settles in. */
const MAX_CAPPED_CURRENCIES = 20;
const RULE_KINDS = ['at_max', 'immediate', 'after_payment', 'after_delivery'] as const;
const OPTION_IDS = `one of the gateway's schedule option ids: ${SCHEDULE_OPTIONS.map((o) => o.id).join(', ')}`;
const TEXT_LIMIT = 200;

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

function unknownKeys(body: Record<string, unknown>, known: readonly string[], prefix: string): ValidationIssue[] {
  return Object.keys(body)
    .filter((k) => !known.includes(k))
    .map((k) => ({ field: `${prefix}${k}`, problem: 'is not a known field', expected: `only ${known.join(', ')}` }));
}

function objectOrThrow(body: unknown, field: string, keys: readonly string[]): Record<string, unknown> {
  if (!isRecord(body)) {
    throw new ValidationError([{ field, problem: `is ${shown(body)}, not a JSON object`, expected: `a JSON object with ${keys.join(', ')}` }]);
  }
  return body;
}

/** One issue from [problem, what to send], or none when the value is fine (null). */
function issueOf(field: string, problem: [string, string] | null): ValidationIssue[] {
  return problem ? [{ field, problem: problem[0], expected: problem[1] }] : [];
}

function isValidZone(zone: unknown): zone is string {
  return typeof zone === 'string' && zone.length > 0 && Info.isValidIANAZone(zone);
}

function holidayIssues(holidays: unknown): ValidationIssue[] {
  const expected = 'a list of distinct dates "YYYY-MM-DD", e.g. ["2022-12-25"]';
  if (!Array.isArray(holidays)) return [{ field: 'holidays', problem: `is ${shown(holidays)}, not a list`, expected }];
  if (holidays.length > MAX_HOLIDAYS) {
    // One issue, not one per date: the settings are kept in one table item, and 40,000 issues would not fit an answer.
    return [{ field: 'holidays', problem: `has ${holidays.length} dates, more than the limit of ${MAX_HOLIDAYS}`, expected: `at most ${MAX_HOLIDAYS} distinct dates "YYYY-MM-DD" (about 20 bank holidays a year); drop past years` }];
  }
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  holidays.forEach((h, i) => {
    const field = `holidays[${i}]`;
    if (typeof h !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(h) || !DateTime.fromISO(h).isValid) {
      issues.push({ field, problem: `is ${shown(h)}, not a date "YYYY-MM-DD"`, expected });
    } else if (dayBoundsProblem(h)) {
      issues.push({ field, problem: `is ${h}, ${dayBoundsProblem(h)}`, expected: `${expected}, from ${EARLIEST_DAY} to ${LAST_DAY}` });
    } else if (seen.has(h)) {
      issues.push({ field, problem: `repeats ${h}`, expected });
    } else {
      seen.add(h);
    }
  });
  return issues;
}

/** Each setting's issues (none: it is fine), the one description of what each may be; a body's reader and validateSettings use them alike. */
export const SETTINGS_FIELD_ISSUES: Record<(typeof SETTINGS_KEYS)[number], (value: unknown) => ValidationIssue[]> = {
  deferByDays: (value) => issueOf('deferByDays', Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 365
    ? null : [`is ${shown(value)}, not a whole number of days from 0 to 365`, 'the dashboard\'s Defer by Days, e.g. 15']),
  timezone: (value) => issueOf('timezone', isValidZone(value)
    ? null : [`is ${shown(value)}, not an IANA time zone`, 'a zone name such as "Asia/Kolkata" or "UTC"']),
  defaultScheduleOption: (value) => issueOf('defaultScheduleOption', isScheduleOption(value)
    ? null : [`is ${shown(value)}, not a schedule option`, OPTION_IDS]),
  holidays: holidayIssues,
  settlementDays: (value) => issueOf('settlementDays', value === 'working' || value === 'calendar'
    ? null : [`is ${shown(value)}`, '"working" (bank working days) or "calendar" (every day)']),
  releaseLead: (value) => durationBoundsIssues(value, 'releaseLead', { positive: false, maxDays: MAX_RELEASE_LEAD_DAYS, example: '"PT1H"' }),
  retryBudget: (value) => durationBoundsIssues(value, 'retryBudget', { positive: false, maxDays: MAX_RETRY_BUDGET_DAYS, example: '"P1D"' }),
  riskWindow: (value) => durationBoundsIssues(value, 'riskWindow', { positive: false, maxDays: MAX_CONTROL_DAYS, example: '"P7D" (after delivery, or after payment without one)' }),
  holdWarning: (value) => durationBoundsIssues(value, 'holdWarning', { positive: false, maxDays: MAX_CONTROL_DAYS, example: '"P2D"' }),
  approvals: approvalRulesIssues,
};

/**
 * A full or partial settings body merged over `base` (the settings in force), validated as a whole. Unknown keys are
 * refused by name; the result carries only the settings fields.
 */
export function validateSettings(body: unknown, base: Settings = DEFAULT_SETTINGS): Settings {
  const input = objectOrThrow(body, 'body', SETTINGS_KEYS);
  const merged: Settings = {
    deferByDays: base.deferByDays,
    timezone: base.timezone,
    defaultScheduleOption: base.defaultScheduleOption,
    holidays: [...base.holidays],
    settlementDays: base.settlementDays,
    releaseLead: base.releaseLead,
    retryBudget: base.retryBudget ?? DEFAULT_RETRY_BUDGET,
    riskWindow: base.riskWindow ?? DEFAULT_RISK_WINDOW,
    holdWarning: base.holdWarning ?? DEFAULT_HOLD_WARNING,
    approvals: base.approvals ?? {},
    ...(Object.fromEntries(Object.entries(input).filter(([k]) => (SETTINGS_KEYS as readonly string[]).includes(k))) as Partial<Settings>),
  };
  const issues: ValidationIssue[] = [
    ...unknownKeys(input, SETTINGS_KEYS, ''),
    ...SETTINGS_KEYS.flatMap((key) => SETTINGS_FIELD_ISSUES[key](merged[key])),
  ];
  if (issues.length) throw new ValidationError(issues);
  return merged;
}

function textIssues(value: unknown, field: string, example: string): ValidationIssue[] {
  const expected = `a non-empty text of at most ${TEXT_LIMIT} characters, e.g. ${example}`;
  if (typeof value !== 'string' || value.trim() === '') {
    return [{ field, problem: value === undefined ? 'is missing' : `is ${shown(value)}, not a non-empty text`, expected }];
  }
  if (value.length > TEXT_LIMIT) return [{ field, problem: `has ${value.length} characters`, expected }];
  return [];
}

function releaseIssues(release: unknown): ValidationIssue[] {
  const expected = '{"kind": "at_max"}, {"kind": "immediate"}, {"kind": "after_payment", "delay": "P3D"} or {"kind": "after_delivery", "delay": "P2D"}';
  if (!isRecord(release)) {
    return [{ field: 'release', problem: release === undefined ? 'is missing' : `is ${shown(release)}, not a JSON object`, expected }];
  }
  const kind = release.kind;
  if (!(RULE_KINDS as readonly unknown[]).includes(kind)) {
    return [{ field: 'release.kind', problem: kind === undefined ? 'is missing' : `is ${shown(kind)}, not a release rule`, expected: `one of ${RULE_KINDS.join(', ')}` }];
  }
  const delayed = kind === 'after_payment' || kind === 'after_delivery';
  return [
    ...unknownKeys(release, delayed ? ['kind', 'delay'] : ['kind'], 'release.'),
    ...(delayed ? durationBoundsIssues(release.delay, 'release.delay', { positive: true, maxDays: MAX_DELAY_DAYS, example: '"P3D"' }) : []),
  ];
}

/** `maxExposure`: `{"INR": "50000.00"}`, a currency code to a decimal text; every bad entry named. */
function maxExposureIssues(value: unknown): ValidationIssue[] {
  if (value === undefined) return [];
  const expected = 'an object of currency codes to amounts as decimal text, e.g. {"INR": "50000.00"}, or leave it out for no cap';
  if (!isRecord(value)) return [{ field: 'maxExposure', problem: `is ${shown(value)}, not a JSON object`, expected }];
  const entries = Object.entries(value);
  if (entries.length > MAX_CAPPED_CURRENCIES) return [{ field: 'maxExposure', problem: `names ${entries.length} currencies`, expected: `at most ${MAX_CAPPED_CURRENCIES}; ${expected}` }];
  return entries.flatMap(([currency, amount]): ValidationIssue[] => {
    if (!CURRENCY.test(currency)) return [{ field: `maxExposure.${currency.slice(0, 20)}`, problem: 'is not a currency code', expected: `three capital letters (ISO 4217), e.g. "INR"; ${expected}` }];
    if (typeof amount !== 'string' || !AMOUNT_TEXT.test(amount)) {
      const why = typeof amount === 'number' ? `is the JSON number ${amount}: amounts are decimal text, never numbers` : `is ${shown(amount)}, not an amount`;
      return [{ field: `maxExposure.${currency}`, problem: why, expected: `a non-negative amount as text with at most two decimals, e.g. "50000.00"` }];
    }
    const bounds = amountBoundsProblem(new Decimal(amount));
    return bounds ? [{ field: `maxExposure.${currency}`, problem: bounds, expected: `an amount up to ${MAX_AMOUNT}` }] : [];
  });
}

/** Each policy member's issues (none: it is fine); a body's reader and validatePolicyInput use them alike. */
export const POLICY_FIELD_ISSUES: Record<(typeof POLICY_KEYS)[number], (value: unknown) => ValidationIssue[]> = {
  scheduleOption: (value) => issueOf('scheduleOption', isScheduleOption(value)
    ? null : [value === undefined ? 'is missing' : `is ${shown(value)}, not a schedule option`, OPTION_IDS]),
  release: releaseIssues,
  actor: (value) => textIssues(value, 'actor', '"finance@example.com"'),
  reason: (value) => textIssues(value, 'reason', '"vendor has a clean delivery record"'),
  maxExposure: maxExposureIssues,
};

/** A policy body that is not a JSON object, as validatePolicyInput refuses it. */
export function policyNotObject(body: unknown): ValidationIssue {
  return { field: 'body', problem: `is ${shown(body)}, not a JSON object`, expected: `a JSON object with ${POLICY_KEYS.join(', ')}` };
}

/** The body of PUT /vendors/{vendorId}/policy. */
export function validatePolicyInput(body: unknown): { scheduleOption: number; release: ReleaseRule; actor: string; reason: string; maxExposure?: Record<string, string> } {
  const input = objectOrThrow(body, 'body', POLICY_KEYS);
  const issues: ValidationIssue[] = [
    ...unknownKeys(input, POLICY_KEYS, ''),
    ...POLICY_KEYS.flatMap((key) => POLICY_FIELD_ISSUES[key](input[key])),
  ];
  if (issues.length) throw new ValidationError(issues);
  const release = input.release as Record<string, unknown>;
  const rule: ReleaseRule = release.kind === 'after_payment' || release.kind === 'after_delivery'
    ? { kind: release.kind, delay: (release.delay as string).trim() }
    : { kind: release.kind as 'at_max' | 'immediate' };
  const policy = { scheduleOption: input.scheduleOption as number, release: rule, actor: (input.actor as string).trim(), reason: (input.reason as string).trim() };
  // Kept as sent (sorted by currency) so that the same cap always reads and digests the same.
  const caps = input.maxExposure as Record<string, string> | undefined;
  return caps === undefined ? policy : { ...policy, maxExposure: Object.fromEntries(Object.entries(caps).sort(([a], [b]) => (a < b ? -1 : 1))) };
}

/** The policy of a vendor nobody configured: the gateway's own default (no update) with the default schedule option. */
export function defaultPolicy(vendorId: string, settings: Settings): VendorPolicy {
  return {
    vendorId,
    version: 0,
    scheduleOption: settings.defaultScheduleOption,
    release: { kind: 'at_max' },
    actor: 'system',
    reason: 'default policy',
    at: null,
  };
}

export function calendarOf(settings: Settings): BankCalendar {
  return new BankCalendar(settings.holidays, settings.settlementDays);
}

/**
 * The issues of an ISO 8601 duration that is not one or that lies outside [0 or more than 0, maxDays days] (months
 * count 30 days and years 365, as luxon converts them), each naming the field and the range.
 */
export function durationBoundsIssues(value: unknown, field: string, range: { positive: boolean; maxDays: number; example: string }): ValidationIssue[] {
  let duration: Duration;
  try {
    duration = parseDuration(value, field);
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  const ms = duration.toMillis();
  const expected = `an ISO 8601 duration ${range.positive ? 'longer than zero' : 'from PT0S'} up to P${range.maxDays}D, e.g. ${range.example}`;
  if (!Number.isFinite(ms) || ms > range.maxDays * DAY_MS) {
    return [{ field, problem: `is ${JSON.stringify(value)}, longer than ${range.maxDays} days`, expected }];
  }
  if (range.positive && !(ms > 0)) return [{ field, problem: `is ${JSON.stringify(value)}, a zero duration`, expected }];
  return [];
}
