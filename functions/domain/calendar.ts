/** India's bank settlement days: not Sundays, not the 2nd and 4th Saturdays, not the merchant's listed holidays. */
import type { SettlementDays } from './types';
import { DAY_MS, dateOfDayNumber, indiaDayOf, isoWeekdayOf } from '../../kit/civil-days';
import type { Instant } from './instant';

/** The day number of the first day of the ISO week (Monday first) or of the month that contains day number `day`. */
export function firstDayOfPeriod(unit: 'week' | 'month', day: number): number {
  return unit === 'week' ? day - (isoWeekdayOf(day) - 1) : day - (dateOfDayNumber(day).day - 1);
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
    const weekday = isoWeekdayOf(day);
    if (weekday === 7) return false;
    if (weekday === 6) {
      const nth = Math.ceil(dateOfDayNumber(day).day / 7);
      if (nth === 2 || nth === 4) return false;
    }
    return !this.holidays.has(day);
  }

  /** Whether settlements happen on the India-time date of `day`. */
  isSettlementDay(day: Instant): boolean {
    return this.isSettlementDayNumber(indiaDayOf(day.ms));
  }

  /** The first settlement day number strictly after day number `day`. */
  nextSettlementDayNumber(day: number): number {
    let next = day + 1;
    while (!this.isSettlementDayNumber(next)) next += 1;
    return next;
  }
}
