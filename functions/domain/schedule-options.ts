/** The gateway's vendor settlement schedule options, and the settlement slot an eligibility falls into. */
import { BankCalendar, firstDayOfPeriod } from './calendar';
import { MINUTE_MS, indiaDayOf, indiaMidnight } from '../../kit/civil-days';
import { INDIA_OFFSET_MINUTES, Instant } from './instant';
import { ValidationError } from './errors';

export interface ScheduleOption {
  id: number;
  description: string;
}

/** Gateway-facts section 2 (there is no id 10). */
export const SCHEDULE_OPTIONS: ScheduleOption[] = [
  { id: 1, description: 'T+1 at 11:00 AM' },
  { id: 2, description: 'T+2 at 11:00 AM' },
  { id: 3, description: 'payments 4:45 PM (T-1) to 10:45 AM (T) settle 11:15 AM (T); 10:45 AM to 4:45 PM (T) settle 5:15 PM (T)' },
  { id: 4, description: 'payments 2:00 PM (T-1) to 2:00 PM (T) settle 3:00 PM (T)' },
  { id: 5, description: 'all payments till 5:30 PM settle at 6:00 PM' },
  { id: 6, description: 'every hour, 7 AM to 5 PM, working days' },
  { id: 7, description: 'every 3 hours, 8 AM to 5 PM, working days' },
  { id: 8, description: 'every hour, 24x7' },
  { id: 9, description: 'every 3 hours, 24x7' },
  { id: 11, description: 'weekly, on the first working day of the week' },
  { id: 12, description: 'monthly, on the first working day of the month' },
  { id: 13, description: 'T+1 at 9:00 AM' },
  { id: 14, description: 'every 15 minutes, 24x7' },
  { id: 15, description: 'T+3 at 11:00 AM' },
  { id: 16, description: 'T+7 at 11:00 AM' },
];

export function isScheduleOption(id: unknown): boolean {
  return typeof id === 'number' && SCHEDULE_OPTIONS.some((o) => o.id === id);
}

/** Minutes after India midnight. */
type Minute = number;
const at = (hour: number, minute = 0): Minute => hour * 60 + minute;
const range = (from: Minute, to: Minute, step: Minute): Minute[] =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

/** A settlement time on a day, and the last eligibility (inclusive) it still takes; the slot itself is exclusive. */
interface Slot {
  settle: Minute;
  cutoff: Minute;
}

/** Whether India day number `day` has this option's slots. */
type DayFilter = (day: number, calendar: BankCalendar) => boolean;

/** T+n at a time: n settlement days strictly after the eligibility's date. */
interface DaysAfterRule {
  kind: 'days_after';
  days: number;
  settle: Minute;
}

/** Fixed slots on the days that qualify; the first one that takes the eligibility wins. */
interface SlotRule {
  kind: 'slots';
  slots: Slot[];
  days: DayFilter;
}

type SettlementRule = DaysAfterRule | SlotRule;

const onTheHour = (times: Minute[]): Slot[] => times.map((m) => ({ settle: m, cutoff: m }));
const settlementDay: DayFilter = (day, calendar) => calendar.isSettlementDayNumber(day);
// The 24x7 options settle on every day, whatever the bank calendar says.
const everyDay: DayFilter = () => true;
/** The first settlement day of the ISO week (Monday first) or of the month that contains `day`. */
const firstSettlementDayOf = (unit: 'week' | 'month'): DayFilter => (day, calendar) => {
  if (!calendar.isSettlementDayNumber(day)) return false;
  for (let d = firstDayOfPeriod(unit, day); d < day; d += 1) {
    if (calendar.isSettlementDayNumber(d)) return false;
  }
  return true;
};

const RULES: Record<number, SettlementRule> = {
  1: { kind: 'days_after', days: 1, settle: at(11) },
  2: { kind: 'days_after', days: 2, settle: at(11) },
  3: { kind: 'slots', days: settlementDay, slots: [{ settle: at(11, 15), cutoff: at(10, 45) }, { settle: at(17, 15), cutoff: at(16, 45) }] },
  4: { kind: 'slots', days: settlementDay, slots: [{ settle: at(15), cutoff: at(14) }] },
  5: { kind: 'slots', days: settlementDay, slots: [{ settle: at(18), cutoff: at(17, 30) }] },
  6: { kind: 'slots', days: settlementDay, slots: onTheHour(range(at(7), at(17), 60)) },
  7: { kind: 'slots', days: settlementDay, slots: onTheHour(range(at(8), at(17), 180)) },
  8: { kind: 'slots', days: everyDay, slots: onTheHour(range(0, at(23), 60)) },
  9: { kind: 'slots', days: everyDay, slots: onTheHour(range(0, at(21), 180)) },
  11: { kind: 'slots', days: firstSettlementDayOf('week'), slots: onTheHour([at(11)]) },
  12: { kind: 'slots', days: firstSettlementDayOf('month'), slots: onTheHour([at(11)]) },
  13: { kind: 'days_after', days: 1, settle: at(9) },
  14: { kind: 'slots', days: everyDay, slots: onTheHour(range(0, at(23, 45), 15)) },
  15: { kind: 'days_after', days: 3, settle: at(11) },
  16: { kind: 'days_after', days: 7, settle: at(11) },
};

/** Plenty for a monthly option even with a long holiday list; reaching it means the calendar has no settlement day. */
const SEARCH_DAYS = 800;

/** When a vendor on `scheduleOption` settles after `eligibility`: the option's first slot strictly after it, in India time. */
export function predictSettlement(eligibility: Instant, scheduleOption: number, calendar: BankCalendar): Instant {
  const settles = settlementAfter(eligibility.ms, scheduleOption, calendar);
  if (settles === null) throw noSlotWithin(scheduleOption, `${eligibility.toDateTime().toISO()}`);
  return Instant.withOffset(settles, INDIA_OFFSET_MINUTES);
}

function noSlotWithin(scheduleOption: number, eligibility: string): RangeError {
  return new RangeError(`no settlement slot of option ${scheduleOption} within ${SEARCH_DAYS} days of ${eligibility}`);
}

/** The instant of `minute` on India day number `day`. */
function settleAt(day: number, minute: Minute): number {
  return indiaMidnight(day) + minute * MINUTE_MS;
}

/** The settlement after an eligibility, both in epoch milliseconds; null when the calendar has no slot in reach. */
function settlementAfter(ms: number, scheduleOption: number, calendar: BankCalendar): number | null {
  const rule = RULES[scheduleOption];
  if (!rule) {
    throw new ValidationError([{
      field: 'scheduleOption',
      problem: `is ${JSON.stringify(scheduleOption)}, not a schedule option of the gateway`,
      expected: `one of ${SCHEDULE_OPTIONS.map((o) => o.id).join(', ')}`,
    }]);
  }
  const firstDay = indiaDayOf(ms);
  if (rule.kind === 'days_after') {
    let day = firstDay;
    for (let n = 0; n < rule.days; n += 1) day = calendar.nextSettlementDayNumber(day);
    return settleAt(day, rule.settle);
  }
  // On the eligibility's own day both bounds are checked; every later day starts after the eligibility, so its first
  // slot takes it.
  const minuteOfDay = (ms - indiaMidnight(firstDay)) / MINUTE_MS;
  for (let day = firstDay; day < firstDay + SEARCH_DAYS; day += 1) {
    if (!rule.days(day, calendar)) continue;
    if (day > firstDay) return settleAt(day, rule.slots[0].settle);
    for (const slot of rule.slots) {
      if (minuteOfDay <= slot.cutoff && minuteOfDay < slot.settle) return settleAt(day, slot.settle);
    }
  }
  return null;
}
