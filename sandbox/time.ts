/** India-time formatting and parsing for the sandbox: the gateway's wall clock is Asia/Kolkata (UTC+05:30). */
import { DateTime, FixedOffsetZone, type Zone } from 'luxon';

/**
 * India time (Asia/Kolkata) as the fixed +05:30 offset it has kept since 1945, with no daylight saving: the same
 * instants and texts as the IANA zone, without asking Intl for an offset on every date operation (which dominated the
 * sandbox's CPU time when it arms thousands of settlements).
 */
export const IST: Zone = FixedOffsetZone.instance(330);

/** ISO 8601 with +05:30 and second precision, e.g. 2022-12-07T11:00:00+05:30. */
export function isoIst(ms: number): string {
  return DateTime.fromMillis(ms, { zone: IST }).startOf('second').toISO({ suppressMilliseconds: true, includeOffset: true }) as string;
}

export function istDateTime(ms: number): DateTime {
  return DateTime.fromMillis(ms, { zone: IST });
}

/** An ISO 8601 instant that carries an offset (or Z); null when not one. */
export function parseIsoWithOffset(value: unknown): number | null {
  if (typeof value !== 'string' || !/(Z|[+-]\d{2}:?\d{2})$/.test(value)) return null;
  const dt = DateTime.fromISO(value, { setZone: true });
  return dt.isValid ? dt.toMillis() : null;
}

/**
 * The eligibility PUT's date forms, in India time: "YYYY-MM-DD HH:MM:SS" (24-hour) or "YYYY-MM-DD hh:mm:ss AM|PM".
 * Null when neither form (or not a real date).
 */
export function parseIstWallTime(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const formats: Array<[RegExp, string]> = [
    [/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'yyyy-MM-dd HH:mm:ss'],
    [/^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2} ?(AM|PM|am|pm)$/, 'yyyy-MM-dd h:mm:ss a'],
  ];
  for (const [shape, format] of formats) {
    if (!shape.test(text)) continue;
    const normalised = format.endsWith(' a') ? text.replace(/ ?(AM|PM|am|pm)$/, (m) => ` ${m.trim().toUpperCase()}`) : text;
    const dt = DateTime.fromFormat(normalised, format, { zone: IST, locale: 'en-US' });
    if (dt.isValid) return dt.toMillis();
  }
  return null;
}
