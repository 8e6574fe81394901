/** Vendor settlement schedule options and their slots, in India time, on bank working days (gateway-facts section 2). */
import type { DateTime } from 'luxon';
import { istDateTime } from './time';

export const SCHEDULE_MESSAGES: Readonly<Record<number, string>> = {
  1: 'T+1 at 11:00 AM',
  2: 'T+2 at 11:00 AM',
  3: 'Payments from 4:45 PM (T-1) to 10:45 AM (T) settle at 11:15 AM (T); 10:45 AM to 4:45 PM (T) settle at 5:15 PM (T)',
  4: 'Payments from 2:00 PM (T-1) to 2:00 PM (T) settle at 3:00 PM (T)',
  5: 'All payments till 5:30 PM settle at 6:00 PM',
  6: 'Every hour, 7 AM to 5 PM, on working days',
  7: 'Every 3 hours, 8 AM to 5 PM, on working days',
  8: 'Every hour, 24x7',
  9: 'Every 3 hours, 24x7',
  11: 'Weekly, on the first working day of the week at 11:00 AM',
  12: 'Monthly, on the first working day of the month at 11:00 AM',
  13: 'T+1 at 9:00 AM',
  14: 'Every 15 minutes, 24x7',
  15: 'T+3 at 11:00 AM',
  16: 'T+7 at 11:00 AM',
};

/** The option a vendor gets when it names none (the merchant default). */
export const DEFAULT_SCHEDULE_OPTION = 1;

export function isScheduleOption(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && SCHEDULE_MESSAGES[value] !== undefined;
}

/** Not Sunday, not the 2nd or 4th Saturday of the month, not a listed bank holidays ("YYYY-MM-DD"). */
export function isBankWorkingDay(day: DateTime, holidays: ReadonlySet<string>): boolean {
  if (day.weekday === 7) return false;
  if (day.weekday === 6) {
    const nth = Math.ceil(day.day / 7);
    if (nth === 2 || nth === 4) return false;
  }
  return !holidays.has(day.toISODate() as string);
}

const TPLUS: Readonly<Record<number, { days: number; hour: number }>> = {
  1: { days: 1, hour: 11 },
  2: { days: 2, hour: 11 },
  13: { days: 1, hour: 9 },
  15: { days: 3, hour: 11 },
  16: { days: 7, hour: 11 },
};

/** A slot of a day: payments eligible strictly before `cutoff` (minutes of the day) settle at `at`. */
interface DaySlot {
  cutoff: number;
  at: number;
}

const hours = (list: number[]): DaySlot[] => list.map((h) => ({ cutoff: h * 60, at: h * 60 }));
const range = (from: number, to: number, step: number): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
};

/** Options settling on fixed slots of a day; `everyDay` marks the 24x7 ones. */
const DAILY: Readonly<Record<number, { everyDay: boolean; slots: DaySlot[] }>> = {
  3: { everyDay: false, slots: [{ cutoff: 10 * 60 + 45, at: 11 * 60 + 15 }, { cutoff: 16 * 60 + 45, at: 17 * 60 + 15 }] },
  4: { everyDay: false, slots: [{ cutoff: 14 * 60, at: 15 * 60 }] },
  5: { everyDay: false, slots: [{ cutoff: 17 * 60 + 30, at: 18 * 60 }] },
  6: { everyDay: false, slots: hours(range(7, 17, 1)) },
  7: { everyDay: false, slots: hours(range(8, 17, 3)) },
  8: { everyDay: true, slots: hours(range(0, 23, 1)) },
  9: { everyDay: true, slots: hours(range(0, 21, 3)) },
  14: { everyDay: true, slots: range(0, 23 * 60 + 45, 15).map((m) => ({ cutoff: m, at: m })) },
};

/** Longest search for a slot: a year of holidays would still leave working days well within it. */
const SEARCH_DAYS = 800;

function firstWorkingDayOf(from: DateTime, unit: 'week' | 'month', holidays: ReadonlySet<string>): DateTime | null {
  for (let day = from.startOf(unit); day.hasSame(from, unit); day = day.plus({ days: 1 })) {
    if (isBankWorkingDay(day, holidays)) return day;
  }
  return null;
}

/**
 * The instant (epoch ms) at which a vendor with schedule `option` settles when it became eligible at `eligibilityMs`:
 * the first slot of the option strictly after the eligibility (for options 3/4/5, the slot whose cut-off the
 * eligibility precedes). T+n counts n bank working days after the eligibility's India-time date.
 */
export function nextSettlementSlot(option: number, eligibilityMs: number, holidayList: readonly string[]): number {
  const holidays = new Set(holidayList);
  const eligible = istDateTime(eligibilityMs);
  const startDay = eligible.startOf('day');

  const tplus = TPLUS[option];
  if (tplus) {
    let day = startDay;
    for (let counted = 0; counted < tplus.days;) {
      day = day.plus({ days: 1 });
      if (isBankWorkingDay(day, holidays)) counted += 1;
    }
    return day.set({ hour: tplus.hour }).toMillis();
  }

  const daily = DAILY[option];
  for (let i = 0; i < SEARCH_DAYS; i++) {
    const day = startDay.plus({ days: i });
    if (daily) {
      if (!daily.everyDay && !isBankWorkingDay(day, holidays)) continue;
      for (const slot of daily.slots) {
        if (day.plus({ minutes: slot.cutoff }).toMillis() > eligibilityMs) return day.plus({ minutes: slot.at }).toMillis();
      }
      continue;
    }
    const unit = option === 11 ? 'week' : option === 12 ? 'month' : null;
    if (unit === null) throw new RangeError(`unknown schedule option ${option}`);
    const first = firstWorkingDayOf(day, unit, holidays);
    if (first !== null && first.hasSame(day, 'day')) {
      const at = day.set({ hour: 11 }).toMillis();
      if (at > eligibilityMs) return at;
    }
  }
  throw new RangeError(`no settlement slot of option ${option} within ${SEARCH_DAYS} days`);
}
