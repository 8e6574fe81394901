/** Vendor settlement schedule options and their slots, in India time, on bank working days (gateway-facts section 2). */
import type { DateTime } from 'luxon';
import { DAY_MS, dateOfDayNumber, dayNumberOfDate, indiaDayOf, indiaMidnight, isoWeekdayOf } from '../kit/civil-days';
import { isoDateOfCivil } from './time';

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

/** Sunday, or the 2nd or 4th Saturday of the month: the weekly bank holidays of India (day numbers, see ./time). */
function isWeeklyBankHoliday(dayNumber: number): boolean {
  const weekday = isoWeekdayOf(dayNumber);
  if (weekday === 7) return true;
  if (weekday !== 6) return false;
  const nth = Math.ceil(dateOfDayNumber(dayNumber).day / 7);
  return nth === 2 || nth === 4;
}

/** Not Sunday, not the 2nd or 4th Saturday of the month, not a listed bank holidays ("YYYY-MM-DD"). */
export function isBankWorkingDay(day: DateTime, holidays: ReadonlySet<string>): boolean {
  // The date of `day` in its own zone, as luxon's weekday/day/toISODate read it.
  const dayNumber = Math.floor((day.toMillis() + day.offset * 60_000) / DAY_MS);
  return !isWeeklyBankHoliday(dayNumber) && !holidays.has(day.toISODate() as string);
}

/**
 * The listed holidays as day numbers. A text counts only when it is exactly the date text luxon's toISODate gives for
 * its day (what the listed texts used to be compared with), so "2022-12-7" or "2022-02-30" never match any day.
 */
function holidayDayNumbers(list: readonly string[]): Set<number> {
  const days = new Set<number>();
  for (const text of list) {
    const fields = /^([+-]?\d{4,6})-(\d{2})-(\d{2})$/.exec(text);
    if (fields === null) continue;
    const dayNumber = dayNumberOfDate(Number(fields[1]), Number(fields[2]), Number(fields[3]));
    if (isoDateOfCivil(dateOfDayNumber(dayNumber)) === text) days.add(dayNumber);
  }
  return days;
}

/** The merchant's holiday list changes rarely, while slots are computed on every eligibility PUT: keep the last one. */
let lastHolidays: { list: readonly string[]; texts: string[]; days: Set<number> } | null = null;

function holidaysOf(list: readonly string[]): Set<number> {
  const last = lastHolidays;
  // Same array and same texts (it may have been changed in place): reuse; the texts are compared, never trusted.
  if (last !== null && last.list === list && last.texts.length === list.length && last.texts.every((t, i) => t === list[i])) return last.days;
  lastHolidays = { list, texts: [...list], days: holidayDayNumbers(list) };
  return lastHolidays.days;
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

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** The day number after the last day of the week (weeks start on Monday) or month that begins on `unitStart`. */
function endOfUnit(unit: 'week' | 'month', unitStart: number): number {
  if (unit === 'week') return unitStart + 7;
  const { year, month } = dateOfDayNumber(unitStart);
  return month === 12 ? dayNumberOfDate(year + 1, 1, 1) : dayNumberOfDate(year, month + 1, 1);
}

/**
 * The instant (epoch ms) at which a vendor with schedule `option` settles when it became eligible at `eligibilityMs`:
 * the first slot of the option strictly after the eligibility (for options 3/4/5, the slot whose cut-off the
 * eligibility precedes). T+n counts n bank working days after the eligibility's India-time date.
 * Computed on India day numbers and epoch milliseconds (India keeps a fixed +05:30, so a day is always 24 hours).
 */
export function nextSettlementSlot(option: number, eligibilityMs: number, holidayList: readonly string[]): number {
  const holidays = holidaysOf(holidayList);
  const isWorkingDay = (dayNumber: number): boolean => !isWeeklyBankHoliday(dayNumber) && !holidays.has(dayNumber);
  const startDay = indiaDayOf(eligibilityMs);

  const tplus = TPLUS[option];
  if (tplus) {
    let day = startDay;
    for (let counted = 0; counted < tplus.days;) {
      day += 1;
      if (isWorkingDay(day)) counted += 1;
    }
    return indiaMidnight(day) + tplus.hour * HOUR_MS;
  }

  const lastDay = startDay + SEARCH_DAYS - 1;
  const daily = DAILY[option];
  if (daily) {
    for (let day = startDay; day <= lastDay; day++) {
      if (!daily.everyDay && !isWorkingDay(day)) continue;
      const midnight = indiaMidnight(day);
      for (const slot of daily.slots) {
        if (midnight + slot.cutoff * MINUTE_MS > eligibilityMs) return midnight + slot.at * MINUTE_MS;
      }
    }
    throw new RangeError(`no settlement slot of option ${option} within ${SEARCH_DAYS} days`);
  }

  const unit = option === 11 ? 'week' : option === 12 ? 'month' : null;
  if (unit === null) throw new RangeError(`unknown schedule option ${option}`);
  // Settles at 11:00 on the first working day of each week (or month): the first such day within the search after the eligibility.
  let unitStart = unit === 'week' ? startDay - (isoWeekdayOf(startDay) - 1) : startDay - (dateOfDayNumber(startDay).day - 1);
  while (unitStart <= lastDay) {
    const unitEnd = endOfUnit(unit, unitStart);
    let first = unitStart;
    while (first < unitEnd && !isWorkingDay(first)) first++;
    if (first < unitEnd && first >= startDay && first <= lastDay) {
      const at = indiaMidnight(first) + 11 * HOUR_MS;
      if (at > eligibilityMs) return at;
    }
    unitStart = unitEnd;
  }
  throw new RangeError(`no settlement slot of option ${option} within ${SEARCH_DAYS} days`);
}
