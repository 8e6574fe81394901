/**
 * Day numbers: days since 1970-01-01 in the proleptic Gregorian calendar, and India-time days on the same count.
 * Generic date arithmetic (no Holdback rule here), shared with the gateway sandbox, which counts bank days too.
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
/** India time is UTC+05:30 all year (no daylight saving since 1945). */
export const INDIA_OFFSET_MS = 330 * MINUTE_MS;

/** A calendar date; `month` and `day` count from 1. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** Days since 1970-01-01 of a date, exact for every year (H. Hinnant's days_from_civil; Date.UTC is not below 100). */
export function dayNumberOfDate(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** The date of a day number, the inverse of dayNumberOfDate (H. Hinnant's civil_from_days). */
export function dateOfDayNumber(dayNumber: number): CivilDate {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * mp + 2) / 5) + 1 };
}

/** ISO weekday of a day number: 1 Monday ... 7 Sunday (1970-01-01 was a Thursday). */
export function isoWeekdayOf(dayNumber: number): number {
  return ((((dayNumber + 3) % 7) + 7) % 7) + 1;
}

/** The India-time day number of an instant. */
export function indiaDayOf(ms: number): number {
  return Math.floor((ms + INDIA_OFFSET_MS) / DAY_MS);
}

/** The instant India midnight begins day number `day`. */
export function indiaMidnight(day: number): number {
  return day * DAY_MS - INDIA_OFFSET_MS;
}
