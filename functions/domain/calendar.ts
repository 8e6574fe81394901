/** India's bank settlement days: not Sundays, not the 2nd and 4th Saturdays, not the merchant's listed holidays. */
import { DateTime } from 'luxon';
import type { SettlementDays } from './types';
import { GATEWAY_ZONE } from './dates';

export class BankCalendar {
  private readonly holidays: ReadonlySet<string>;

  constructor(holidays: string[], readonly settlementDays: SettlementDays) {
    this.holidays = new Set(holidays);
  }

  /** Whether settlements happen on the India-time date of `day` ("calendar": every day). */
  isSettlementDay(day: DateTime): boolean {
    if (this.settlementDays === 'calendar') return true;
    const d = day.setZone(GATEWAY_ZONE);
    if (d.weekday === 7) return false;
    if (d.weekday === 6) {
      const nth = Math.ceil(d.day / 7);
      if (nth === 2 || nth === 4) return false;
    }
    return !this.holidays.has(d.toISODate() ?? '');
  }

  /** The start (India midnight) of the first settlement day strictly after the date of `day`. */
  nextSettlementDay(day: DateTime): DateTime {
    let d = day.setZone(GATEWAY_ZONE).startOf('day').plus({ days: 1 });
    while (!this.isSettlementDay(d)) d = d.plus({ days: 1 });
    return d;
  }
}
