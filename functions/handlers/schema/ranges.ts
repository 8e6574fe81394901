/**
 * The time-range parameters several routes share (README "Bounds"), each read by the same functions the use cases
 * read ranges by (rangeBound, forecastDate), so that a bad one is named with today's words before the use case runs.
 * They pass on the text as sent: the use case turns it into its bounds.
 */
import { DateTime } from 'luxon';
import { ValidationError } from '../../domain/errors';
import type { Instant } from '../../domain/instant';
import { RANGE_EXPECTED, rangeBound, reversedRangeIssue } from '../../application/outcome-rows';
import { forecastDate } from '../../application/reads/read-vendors';
import { parsed, type Param } from './params';

/** Every date Holdback reads lies in [2000-01-01, 2100-01-01), with an offset from -12:00 to +14:00 (README "Bounds"). */
const DATE_BOUNDS = 'From 2000-01-01 to before 2100-01-01; an offset from -12:00 to +14:00; outside, or to before from: 400 naming the field.';
const RANGE_DESCRIPTION = {
  from: `First India-time day (YYYY-MM-DD: from its start) or an ISO 8601 instant with an offset. ${DATE_BOUNDS}`,
  to: `Last India-time day (YYYY-MM-DD: to its end) or an ISO 8601 instant with an offset. ${DATE_BOUNDS}`,
};

/** `from` or `to` of a range (absent or empty: no bound, or "is missing" when `required`); `to` not before a good `from`. */
export function rangeParam(field: 'from' | 'to', required = false, example?: string): Param<string | undefined> {
  return parsed(RANGE_DESCRIPTION[field], { type: 'string' }, (text, name, sent) => {
    if (text === undefined || text === '') {
      if (required) throw new ValidationError([{ field: name, problem: 'is missing', expected: RANGE_EXPECTED }]);
      return text;
    }
    const bound = rangeBound(text, field, field === 'from' ? 'start' : 'end');
    if (field === 'to' && sent.from) {
      let from: Instant | null = null;
      try {
        from = rangeBound(sent.from, 'from', 'start');
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
      }
      const reversed = from === null ? null : reversedRangeIssue({ from: sent.from, to: text }, { from, to: bound });
      if (reversed) throw new ValidationError([reversed]);
    }
    return text;
  }, { ...(required ? { required } : {}), ...(example === undefined ? {} : { example }) });
}
export const RANGE_FROM = rangeParam('from');
export const RANGE_TO = rangeParam('to');

/** A forecast day (India time, YYYY-MM-DD); how far `to` may lie from `from` (default today) is the use case's. */
function dayParam(description: string): Param<string | undefined> {
  return parsed(description, { type: 'string', format: 'date' }, (text, name) => {
    if (text !== undefined && text !== '') forecastDate(text, name, DateTime.fromMillis(0));
    return text;
  });
}
/** The forecast's range: India-time days only. */
export const DAY_FROM = dayParam('First India-time day (YYYY-MM-DD), 2000-01-01 to 2099-12-31; default today.');
export const DAY_TO = dayParam('Last India-time day (YYYY-MM-DD), 2000-01-01 to 2099-12-31, not before from; default 30 days after from; at most 366 days in all.');
