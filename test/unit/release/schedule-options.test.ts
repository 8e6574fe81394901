/** Specification of the bank calendar and of every schedule option's settlement slot (gateway-facts section 2). */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { BankCalendar } from '../../../functions/domain/calendar';
import { SCHEDULE_OPTIONS, isScheduleOption, predictSettlement } from '../../../functions/domain/schedule-options';
import { Instant } from '../../../functions/domain/instant';

const ist = (text: string) => Instant.fromDateTime(DateTime.fromISO(text, { zone: 'Asia/Kolkata' }));
const working = new BankCalendar([], 'working');
const everyDay = new BankCalendar([], 'calendar');
const settles = (eligibility: string, option: number, calendar = working) =>
  predictSettlement(ist(eligibility), option, calendar).toDateTime().toFormat("yyyy-MM-dd HH:mm ccc");

/** One row of a slot table, "2022-12-06T09:00 on 11 settles 2022-12-13 11:00 Tue with holiday 2022-12-12", as its parts. */
function slotRow(row: string): { at: string; option: number; settles: string; calendar?: BankCalendar } {
  const match = /^(\S+) on (\d+) settles (\d{4}-\d\d-\d\d \d\d:\d\d \w{3})(?: (counting calendar days|with holiday (\S+)))?$/.exec(row);
  if (!match) throw new Error(`slot row "${row}" is not "<at> on <option> settles <yyyy-MM-dd HH:mm ccc>[ counting calendar days| with holiday <date>]"`);
  const [, at, option, slot, calendarWords, holiday] = match;
  const calendar = holiday ? new BankCalendar([holiday], 'working') : calendarWords ? everyDay : undefined;
  return { at, option: Number(option), settles: slot, ...(calendar ? { calendar } : {}) };
}

describe('BankCalendar (December 2022: Saturdays 3, 10, 17, 24, 31; Sundays 4, 11, 18, 25)', () => {
  it('working days exclude Sundays and the 2nd and 4th Saturdays, not the 1st, 3rd and 5th', () => {
    const day = (d: number) => working.isSettlementDay(ist(`2022-12-${String(d).padStart(2, '0')}T12:00`));
    expect([3, 10, 17, 24, 31].map(day)).toEqual([true, false, true, false, true]);
    expect([4, 11, 18, 25].map(day)).toEqual([false, false, false, false]);
    expect([5, 6, 7, 8, 9].map(day)).toEqual([true, true, true, true, true]);
  });

  it('excludes listed holidays, by India date', () => {
    const calendar = new BankCalendar(['2022-12-26'], 'working');
    expect(calendar.isSettlementDay(ist('2022-12-26T00:30'))).toBe(false);
    // 2022-12-25T19:00Z is already 26 Dec 00:30 in India.
    expect(calendar.isSettlementDay(Instant.fromDateTime(DateTime.fromISO('2022-12-25T19:00:00Z')))).toBe(false);
    expect(calendar.isSettlementDay(ist('2022-12-27T00:30'))).toBe(true);
  });

  it('with settlementDays "calendar" every day counts', () => {
    expect(everyDay.isSettlementDay(ist('2022-12-18T12:00'))).toBe(true);
    expect(new BankCalendar(['2022-12-10'], 'calendar').isSettlementDay(ist('2022-12-10T12:00'))).toBe(true);
  });
});

describe('schedule options', () => {
  it('lists ids 1-9 and 11-16, without 10', () => {
    expect(SCHEDULE_OPTIONS.map((o) => o.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16]);
    expect(isScheduleOption(10)).toBe(false);
    expect(isScheduleOption('1')).toBe(false);
    expect(isScheduleOption(16)).toBe(true);
  });

  it('the interface example: eligibility 2022-12-06 09:00 with option 1 settles 7 Dec 11:00 AM', () => {
    expect(settles('2022-12-06T09:00', 1)).toBe('2022-12-07 11:00 Wed');
  });

  it('the default example: max eligibility 17 Dec 4:00 PM settles 18 Dec 11:00 counting calendar days, 19 Dec on working days', () => {
    expect(settles('2022-12-17T16:00', 1, everyDay)).toBe('2022-12-18 11:00 Sun');
    expect(settles('2022-12-17T16:00', 1, working)).toBe('2022-12-19 11:00 Mon');
  });

  it('T+n skips 2nd and 4th Saturdays, Sundays and holidays', () => {
    expect(settles('2022-12-09T10:00', 1)).toBe('2022-12-12 11:00 Mon');
    expect(settles('2022-12-23T10:00', 1)).toBe('2022-12-26 11:00 Mon');
    expect(settles('2022-12-23T10:00', 1, new BankCalendar(['2022-12-26'], 'working'))).toBe('2022-12-27 11:00 Tue');
    expect(settles('2022-12-16T10:00', 1)).toBe('2022-12-17 11:00 Sat');
    expect(settles('2022-12-30T10:00', 1)).toBe('2022-12-31 11:00 Sat');
    // An eligibility on a non-working day counts from that date: T+1 is the next working day.
    expect(settles('2022-12-11T10:00', 1)).toBe('2022-12-12 11:00 Mon');
  });

  it('options 2, 13, 15, 16: T+2 11:00, T+1 09:00, T+3 11:00, T+7 11:00', () => {
    expect(settles('2022-12-06T09:00', 2)).toBe('2022-12-08 11:00 Thu');
    expect(settles('2022-12-06T09:00', 13)).toBe('2022-12-07 09:00 Wed');
    expect(settles('2022-12-06T09:00', 15)).toBe('2022-12-09 11:00 Fri');
    expect(settles('2022-12-06T09:00', 16)).toBe('2022-12-15 11:00 Thu');
    expect(settles('2022-12-06T09:00', 16, everyDay)).toBe('2022-12-13 11:00 Tue');
  });

  // Each option's rule and the eligibilities that show it (December 2022 calendar; working days unless a row says).
  // A row: "<eligibility, India time> on <option> settles <slot>", then "counting calendar days" or "with holiday <date>".
  const slotRules: { rule: string; rows: string[] }[] = [
    {
      rule: 'option 3: till 10:45 settles 11:15 the same day, till 16:45 at 17:15, later the next settlement day 11:15',
      rows: [
        '2022-12-06T10:45 on 3 settles 2022-12-06 11:15 Tue',
        '2022-12-06T10:45:01 on 3 settles 2022-12-06 17:15 Tue',
        '2022-12-06T16:45 on 3 settles 2022-12-06 17:15 Tue',
        '2022-12-06T16:46 on 3 settles 2022-12-07 11:15 Wed',
        '2022-12-10T09:00 on 3 settles 2022-12-12 11:15 Mon',
        '2022-12-09T20:00 on 3 settles 2022-12-12 11:15 Mon',
      ],
    },
    {
      rule: 'option 4: till 14:00 settles 15:00 the same day, else the next settlement day',
      rows: [
        '2022-12-06T14:00 on 4 settles 2022-12-06 15:00 Tue',
        '2022-12-06T14:00:01 on 4 settles 2022-12-07 15:00 Wed',
        '2022-12-24T10:00 on 4 settles 2022-12-26 15:00 Mon',
      ],
    },
    {
      rule: 'option 5: till 17:30 settles 18:00 the same day, else the next settlement day',
      rows: [
        '2022-12-06T17:30 on 5 settles 2022-12-06 18:00 Tue',
        '2022-12-06T17:31 on 5 settles 2022-12-07 18:00 Wed',
      ],
    },
    {
      rule: 'option 6: every hour 07:00 to 17:00 on settlement days, strictly after the eligibility',
      rows: [
        '2022-12-06T09:00 on 6 settles 2022-12-06 10:00 Tue',
        '2022-12-06T09:30 on 6 settles 2022-12-06 10:00 Tue',
        '2022-12-06T06:00 on 6 settles 2022-12-06 07:00 Tue',
        '2022-12-06T17:00 on 6 settles 2022-12-07 07:00 Wed',
        '2022-12-09T17:30 on 6 settles 2022-12-12 07:00 Mon',
      ],
    },
    {
      rule: 'option 7: 08:00, 11:00, 14:00, 17:00 on settlement days',
      rows: [
        '2022-12-06T08:00 on 7 settles 2022-12-06 11:00 Tue',
        '2022-12-06T16:59 on 7 settles 2022-12-06 17:00 Tue',
        '2022-12-06T17:00 on 7 settles 2022-12-07 08:00 Wed',
      ],
    },
    {
      rule: 'options 8, 9, 14 run 24x7 whatever the calendar says',
      rows: [
        '2022-12-11T09:00 on 8 settles 2022-12-11 10:00 Sun',
        '2022-12-11T23:30 on 8 settles 2022-12-12 00:00 Mon',
        '2022-12-10T09:00 on 9 settles 2022-12-10 12:00 Sat',
        '2022-12-11T22:00 on 9 settles 2022-12-12 00:00 Mon',
        '2022-12-11T09:00 on 14 settles 2022-12-11 09:15 Sun',
        '2022-12-11T09:07:30 on 14 settles 2022-12-11 09:15 Sun',
        '2022-12-31T23:50 on 14 settles 2023-01-01 00:00 Sun',
      ],
    },
    {
      rule: 'option 11: 11:00 on the first settlement day of each Monday-based week',
      rows: [
        '2022-12-05T10:59 on 11 settles 2022-12-05 11:00 Mon',
        '2022-12-06T09:00 on 11 settles 2022-12-12 11:00 Mon',
        '2022-12-06T09:00 on 11 settles 2022-12-13 11:00 Tue with holiday 2022-12-12',
      ],
    },
    {
      // 1 Jan 2023 is a Sunday; 1 Oct 2022 is the first Saturday of its month, a working day.
      rule: 'option 12: 11:00 on the first settlement day of each month',
      rows: [
        '2022-12-06T09:00 on 12 settles 2023-01-02 11:00 Mon',
        '2022-12-06T09:00 on 12 settles 2023-01-01 11:00 Sun counting calendar days',
        '2023-01-02T10:00 on 12 settles 2023-01-02 11:00 Mon',
        '2022-12-06T09:00 on 12 settles 2023-01-03 11:00 Tue with holiday 2023-01-02',
        '2022-09-30T12:00 on 12 settles 2022-10-01 11:00 Sat',
      ],
    },
  ];

  describe.each(slotRules)('$rule', ({ rows }) => {
    it.each(rows.map(slotRow))('eligibility $at on option $option settles $settles', ({ at, option, settles: expected, calendar }) => {
      expect(settles(at, option, calendar)).toBe(expected);
    });
  });
  it('answers in India time whatever the zone of the eligibility', () => {
    const result = predictSettlement(Instant.fromDateTime(DateTime.fromISO('2022-12-06T03:30:00Z')), 1, working);
    expect(result.toDateTime().toISO()).toBe('2022-12-07T11:00:00.000+05:30');
  });

  it('refuses an unknown option', () => {
    expect(() => predictSettlement(ist('2022-12-06T09:00'), 10, working)).toThrow(/scheduleOption: is 10/);
  });
});

/**
 * An independent reading of the options, for the property test: plain UTC arithmetic on India wall-clock minutes,
 * no luxon, no code shared with the implementation.
 */
const IST_OFFSET_MS = 330 * 60_000;
const DAY_MS = 86_400_000;
interface Wall { dayIndex: number; minute: number; ms: number }
const wall = (ms: number): Wall => {
  const local = ms + IST_OFFSET_MS;
  const dayIndex = Math.floor(local / DAY_MS);
  return { dayIndex, minute: Math.floor((local - dayIndex * DAY_MS) / 60_000), ms: local - dayIndex * DAY_MS };
};
const dateOf = (dayIndex: number) => new Date(dayIndex * DAY_MS);
const isoDate = (dayIndex: number) => dateOf(dayIndex).toISOString().slice(0, 10);
function independentWorkingDay(dayIndex: number, holidays: Set<string>, mode: 'working' | 'calendar'): boolean {
  if (mode === 'calendar') return true;
  const d = dateOf(dayIndex);
  const weekday = d.getUTCDay();
  if (weekday === 0) return false;
  if (weekday === 6 && [2, 4].includes(Math.ceil(d.getUTCDate() / 7))) return false;
  return !holidays.has(isoDate(dayIndex));
}
const hours = (list: number[]) => list.map((h) => h * 60);
const DAILY: Record<number, { minutes: number[]; anyDay: boolean }> = {
  3: { minutes: [675, 1035], anyDay: false },
  4: { minutes: [900], anyDay: false },
  5: { minutes: [1080], anyDay: false },
  6: { minutes: hours([7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]), anyDay: false },
  7: { minutes: hours([8, 11, 14, 17]), anyDay: false },
  8: { minutes: hours(Array.from({ length: 24 }, (_, i) => i)), anyDay: true },
  9: { minutes: hours([0, 3, 6, 9, 12, 15, 18, 21]), anyDay: true },
  14: { minutes: Array.from({ length: 96 }, (_, i) => i * 15), anyDay: true },
  11: { minutes: [660], anyDay: false },
  12: { minutes: [660], anyDay: false },
};
const T_PLUS: Record<number, { n: number; minute: number }> = {
  1: { n: 1, minute: 660 }, 2: { n: 2, minute: 660 }, 13: { n: 1, minute: 540 }, 15: { n: 3, minute: 660 }, 16: { n: 7, minute: 660 },
};

/** Whether `settlement` is a slot of `option` at all (time of day and kind of day). */
function isSlot(option: number, settlement: Wall, holidays: Set<string>, mode: 'working' | 'calendar'): boolean {
  if (settlement.ms % 60_000 !== 0) return false;
  const working = (i: number) => independentWorkingDay(i, holidays, mode);
  if (T_PLUS[option]) return settlement.minute === T_PLUS[option].minute && working(settlement.dayIndex);
  const daily = DAILY[option];
  if (!daily.minutes.includes(settlement.minute)) return false;
  if (daily.anyDay) return true;
  if (!working(settlement.dayIndex)) return false;
  if (option === 11 || option === 12) {
    const d = dateOf(settlement.dayIndex);
    const daysSinceStart = option === 11 ? (d.getUTCDay() + 6) % 7 : d.getUTCDate() - 1;
    for (let i = settlement.dayIndex - daysSinceStart; i < settlement.dayIndex; i += 1) if (working(i)) return false;
  }
  return true;
}

describe('property: a predicted settlement is after the eligibility and on a slot of its option', () => {
  const from = Date.parse('2022-01-01T00:00:00Z');
  const to = Date.parse('2026-12-31T00:00:00Z');
  const eligibility = fc.oneof(
    fc.integer({ min: from, max: to }),
    // Exactly on, or a second around, a quarter hour: where cut-offs and slots sit.
    fc.tuple(fc.integer({ min: from / 900_000, max: to / 900_000 }), fc.constantFrom(-1000, 0, 1000)).map(([q, d]) => q * 900_000 + d),
  );
  const holidayDays = fc.uniqueArray(fc.integer({ min: Math.floor(from / DAY_MS), max: Math.floor(to / DAY_MS) + 40 }), { maxLength: 200 });

  it('holds for every option, calendar mode and holiday list', () => {
    fc.assert(fc.property(
      eligibility, fc.constantFrom(...SCHEDULE_OPTIONS.map((o) => o.id)), fc.constantFrom('working' as const, 'calendar' as const), holidayDays,
      (eligibilityMs, option, mode, holidayIndexes) => {
        const holidays = new Set(holidayIndexes.map(isoDate));
        const result = predictSettlement(Instant.fromDateTime(DateTime.fromMillis(eligibilityMs)), option, new BankCalendar([...holidays], mode)).ms;
        expect(result).toBeGreaterThan(eligibilityMs);
        expect(isSlot(option, wall(result), holidays, mode)).toBe(true);
        const start = wall(eligibilityMs);
        if (T_PLUS[option]) {
          // Exactly n settlement days strictly after the eligibility's date, up to and including the result's date.
          let count = 0;
          for (let i = start.dayIndex + 1; i <= wall(result).dayIndex; i += 1) if (independentWorkingDay(i, holidays, mode)) count += 1;
          expect(count).toBe(T_PLUS[option].n);
        } else {
          // No earlier slot that would have taken this eligibility (options 3, 4, 5 close their intake before the slot).
          const cutoff: Record<number, number> = { 3: 30, 4: 60, 5: 30 };
          for (let t = Math.floor(eligibilityMs / 900_000) * 900_000 + 900_000; t < result; t += 900_000) {
            const takes = isSlot(option, wall(t), holidays, mode) && eligibilityMs <= t - (cutoff[option] ?? 0) * 60_000;
            expect(takes).toBe(false);
          }
        }
      },
    ), { numRuns: 400 });
  });
});
