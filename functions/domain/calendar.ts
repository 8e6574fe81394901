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
    const date = new Date(day * DAY_MS);
    const weekday = date.getUTCDay(); // 0 Sunday .. 6 Saturday
    if (weekday === 0) return false;
    if (weekday === 6) {
      const nth = Math.ceil(date.getUTCDate() / 7);
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
