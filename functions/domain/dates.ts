/** The gateway's India-time date forms, and ISO instants as luxon DateTimes for the edges that still hold them. */
import { DateTime } from 'luxon';
import { ValidationError } from './errors';
import { INDIA_TIME, Instant, describe, gatewayDateText, isoAt, isoOfDateTime, looksLikeInstant, type ZoneLike } from './instant';

export { GATEWAY_ZONE, INDIA_TIME, MAX_OFFSET_MINUTES, MIN_OFFSET_MINUTES, parseDuration } from './instant';

const GATEWAY_FORM = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\s?([AP]M))?$/i;

/** Instant.parse as a luxon DateTime in the offset given (same checks, same errors). */
export function parseInstant(text: unknown, field: string): DateTime {
  return Instant.parse(text, field).toDateTime();
}

/** ISO 8601 with the zone's offset, whole seconds, e.g. "2022-12-02T16:00:00+05:30". */
export function formatInstant(dt: DateTime, zone: ZoneLike): string {
  return isoOfDateTime(dt, zone);
}

/** formatInstant of an instant in epoch milliseconds. */
export function formatEpochMs(ms: number, zone: ZoneLike): string {
  return isoAt(ms, zone);
}

/** The gateway's form "YYYY-MM-DD HH:MM:SS" in India time (seconds precision: sub-seconds are dropped). */
export function formatGatewayDate(dt: DateTime): string {
  return gatewayDateText(Instant.fromDateTime(dt));
}

/** "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD hh:mm:ss AM|PM", read as India time; null when it is neither. */
export function parseGatewayDate(text: string): DateTime | null {
  const m = GATEWAY_FORM.exec(typeof text === 'string' ? text.trim() : '');
  if (!m) return null;
  const [, y, mo, d, h, mi, s, half] = m;
  let hour = Number(h);
  if (half) {
    if (hour < 1 || hour > 12) return null;
    const pm = half.toUpperCase() === 'PM';
    hour = (hour % 12) + (pm ? 12 : 0);
  }
  // India time as its fixed offset: the same instants as the IANA zone, without asking Intl (a client checks every PUT).
  const dt = DateTime.fromObject(
    { year: Number(y), month: Number(mo), day: Number(d), hour, minute: Number(mi), second: Number(s) },
    { zone: INDIA_TIME },
  );
  return dt.isValid ? dt : null;
}

/** An eligibility as a person types it: either gateway form (India time) or ISO 8601 with an offset. */
export function parseEligibilityInput(text: unknown, field: string): Instant {
  if (typeof text === 'string') {
    const gateway = parseGatewayDate(text);
    if (gateway) return Instant.fromDateTime(gateway);
    if (looksLikeInstant(text)) return Instant.parse(text, field);
  }
  throw new ValidationError([{
    field,
    problem: text === undefined ? 'is missing' : `is ${describe(text)}, not a date and time`,
    expected: '"YYYY-MM-DD HH:MM:SS" (India time), "YYYY-MM-DD hh:mm:ss AM|PM" or ISO 8601 with an offset, e.g. "2022-12-06 09:00:00" or "2022-12-06T09:00:00+05:30"',
  }]);
}
