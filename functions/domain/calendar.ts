/** India's bank settlement days: not Sundays, not the 2nd and 4th Saturdays, not the merchant's listed holidays. */
import type { DateTime } from 'luxon';
import type { SettlementDays } from './types';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** India time is UTC+05:30 all year (no daylight saving since 1945). */
const INDIA_OFFSET_MS = 330 * MINUTE_MS;

/** The India-time day number of an instant: days since 1970-01-01 in India. */
export function indiaDayOf(ms: number): number {
  return Math.floor((ms + INDIA_OFFSET_MS) / DAY_MS);
}

/** The instant of India midnight starting day number `day`. */
export function indiaMidnight(day: number): number {
  return day * DAY_MS - INDIA_OFFSET_MS;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1-12), exact for every year (Hinnant's days_from_civil). */
export function dayNumberOfDate(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** The date of a day number, the inverse of dayNumberOfDate (Hinnant's civil_from_days). */
export function dateOfDayNumber(dayNumber: number): { year: number; month: number; day: number } {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * mp + 2) / 5) + 1 };
}

/** 0 Sunday .. 6 Saturday: day 0 (1970-01-01) was a Thursday. */
function weekdayOf(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** The day number of the first day of the ISO week (Monday first) or of the month that contains day number `day`. */
export function firstDayOfPeriod(unit: 'week' | 'month', day: number): number {
  return unit === 'week' ? day - ((weekdayOf(day) + 6) % 7) : day - (dateOfDayNumber(day).day - 1);
}

/**
 * Works on India-time day numbers with plain arithmetic: predictions run for every release and every preview, and
 * building a luxon date per candidate day made them a hundred times slower.
 */
export class BankCalendar {
  private readonly holidays: ReadonlySet<number>;

  constructor(holidays: string[], readonly settlementDays: SettlementDays) {
    this.holidays = new Set(holidays.map((date) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS)));
  }

  /** Whether settlements happen on India day number `day` ("calendar": every day). */
  isSettlementDayNumber(day: number): boolean {
    if (this.settlementDays === 'calendar') return true;
    const weekday = weekdayOf(day);
    if (weekday === 0) return false;
    if (weekday === 6) {
      const nth = Math.ceil(dateOfDayNumber(day).day / 7);
      if (nth === 2 || nth === 4) return false;
    }
    return !this.holidays.has(day);
  }

  /** Whether settlements happen on the India-time date of `day`. */
  isSettlementDay(day: DateTime): boolean {
    return this.isSettlementDayNumber(indiaDayOf(day.toMillis()));
  }

  /** The first settlement day number strictly after day number `day`. */
  nextSettlementDayNumber(day: number): number {
    let next = day + 1;
    while (!this.isSettlementDayNumber(next)) next += 1;
    return next;
  }
}
