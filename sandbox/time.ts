/** India-time formatting and parsing for the sandbox: the gateway's wall clock is Asia/Kolkata (UTC+05:30). */
import { DateTime, FixedOffsetZone, type Zone } from 'luxon';
// Generic day-number arithmetic (no Holdback rule): India dates as integers on epoch milliseconds, the offset being
// fixed, far cheaper than luxon DateTimes on the hot paths (eligibility PUTs, settlement slots).
import { INDIA_OFFSET_MS, dateOfDayNumber, dayNumberOfDate, indiaMidnight, type CivilDate } from '../kit/civil-days';

/**
 * India time (Asia/Kolkata) as the fixed +05:30 offset it has kept since 1945, with no daylight saving: the same
 * instants and texts as the IANA zone, without asking Intl for an offset on every date operation (which dominated the
 * sandbox's CPU time when it arms thousands of settlements).
 */
export const IST: Zone = FixedOffsetZone.instance(330);

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** luxon's toISODate text of a civil date: 4-digit years, else a signed 6-digit year (+010000, -000001). */
export function isoDateOfCivil({ year, month, day }: CivilDate): string {
  const longYear = year > 9999 || year < 0;
  const yearText = year < 0 ? `-${String(-year).padStart(6, '0')}` : `${longYear ? '+' : ''}${String(year).padStart(longYear ? 6 : 4, '0')}`;
  return `${yearText}-${pad2(month)}-${pad2(day)}`;
}

/** ISO 8601 with +05:30 and second precision, e.g. 2022-12-07T11:00:00+05:30. */
export function isoIst(ms: number): string {
  // Date (and so luxon) truncates a fractional instant before taking its fields; then the second is floored.
  const localSeconds = Math.floor(Math.trunc(ms + INDIA_OFFSET_MS) / 1000);
  const dayNumber = Math.floor(localSeconds / 86_400);
  const date = dateOfDayNumber(dayNumber);
  // Years outside 0-9999 (and invalid instants) keep luxon's own text (signed years, null) rather than a copy of it.
  if (!(date.year >= 0 && date.year <= 9999)) {
    return DateTime.fromMillis(ms, { zone: IST }).startOf('second').toISO({ suppressMilliseconds: true, includeOffset: true }) as string;
  }
  const secondOfDay = localSeconds - dayNumber * 86_400;
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor((secondOfDay % 3600) / 60);
  return `${isoDateOfCivil(date)}T${pad2(hour)}:${pad2(minute)}:${pad2(secondOfDay % 60)}+05:30`;
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

const WALL_TIME_24H = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const WALL_TIME_12H = /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2}) ?(AM|PM|am|pm)$/;

/**
 * The eligibility PUT's date forms, in India time: "YYYY-MM-DD HH:MM:SS" (24-hour) or "YYYY-MM-DD hh:mm:ss AM|PM".
 * Null when neither form (or not a real date). The same answers luxon's fromFormat gave ('yyyy-MM-dd HH:mm:ss' and
 * 'yyyy-MM-dd h:mm:ss a'), including what it accepts: 12 AM is hour 0, 1-11 PM add 12, 13-23 with AM or PM stay as
 * they are, and 24:00:00 is the next day's midnight (from year 100 on).
 */
export function parseIstWallTime(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  let fields = WALL_TIME_24H.exec(text);
  let hour: number;
  if (fields !== null) {
    hour = Number(fields[4]);
  } else {
    fields = WALL_TIME_12H.exec(text);
    if (fields === null) return null;
    hour = Number(fields[4]);
    const pm = fields[7] === 'PM' || fields[7] === 'pm';
    if (hour < 12 && pm) hour += 12;
    else if (hour === 12 && !pm) hour = 0;
  }
  const year = Number(fields[1]);
  const month = Number(fields[2]);
  const day = Number(fields[3]);
  const minute = Number(fields[5]);
  const second = Number(fields[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (minute > 59 || second > 59 || (hour > 23 && !(hour === 24 && minute === 0 && second === 0))) return null;
  // luxon pins years 0-99 to their date after Date.UTC has rolled 24:00 over, so there 24:00 stays on the same day.
  const hourOfDay = hour === 24 && year < 100 ? 0 : hour;
  return indiaMidnight(dayNumberOfDate(year, month, day)) + hourOfDay * 3_600_000 + minute * 60_000 + second * 1000;
}
