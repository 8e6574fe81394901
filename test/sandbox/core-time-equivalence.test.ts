/** Sandbox core: the integer-arithmetic India time, settlement slots and rate-limit window give the luxon versions' answers. */
import fc from 'fast-check';
import { DateTime, FixedOffsetZone } from 'luxon';
import { registerEligibility } from '../../sandbox/eligibility';
import type { Router, RouteHandler, SandboxContext, SandboxRequest } from '../../sandbox/http';
import { isBankWorkingDay, nextSettlementSlot } from '../../sandbox/schedule';
import { maxEligibility } from '../../sandbox/settlement';
import { createState, settlementKey } from '../../sandbox/state';
import { isoIst, parseIstWallTime } from '../../sandbox/time';

/* ---- The oracle: the luxon implementation the sandbox had before (copied verbatim, names prefixed "old"). ---- */

const OLD_IST = FixedOffsetZone.instance(330);

function oldIsBankWorkingDay(day: DateTime, holidays: ReadonlySet<string>): boolean {
  if (day.weekday === 7) return false;
  if (day.weekday === 6) {
    const nth = Math.ceil(day.day / 7);
    if (nth === 2 || nth === 4) return false;
  }
  return !holidays.has(day.toISODate() as string);
}

const OLD_TPLUS: Readonly<Record<number, { days: number; hour: number }>> = {
  1: { days: 1, hour: 11 }, 2: { days: 2, hour: 11 }, 13: { days: 1, hour: 9 }, 15: { days: 3, hour: 11 }, 16: { days: 7, hour: 11 },
};
const oldHours = (list: number[]) => list.map((h) => ({ cutoff: h * 60, at: h * 60 }));
const oldRange = (from: number, to: number, step: number): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
};
const OLD_DAILY: Readonly<Record<number, { everyDay: boolean; slots: Array<{ cutoff: number; at: number }> }>> = {
  3: { everyDay: false, slots: [{ cutoff: 10 * 60 + 45, at: 11 * 60 + 15 }, { cutoff: 16 * 60 + 45, at: 17 * 60 + 15 }] },
  4: { everyDay: false, slots: [{ cutoff: 14 * 60, at: 15 * 60 }] },
  5: { everyDay: false, slots: [{ cutoff: 17 * 60 + 30, at: 18 * 60 }] },
  6: { everyDay: false, slots: oldHours(oldRange(7, 17, 1)) },
  7: { everyDay: false, slots: oldHours(oldRange(8, 17, 3)) },
  8: { everyDay: true, slots: oldHours(oldRange(0, 23, 1)) },
  9: { everyDay: true, slots: oldHours(oldRange(0, 21, 3)) },
  14: { everyDay: true, slots: oldRange(0, 23 * 60 + 45, 15).map((m) => ({ cutoff: m, at: m })) },
};
const OLD_SEARCH_DAYS = 800;

function oldFirstWorkingDayOf(from: DateTime, unit: 'week' | 'month', holidays: ReadonlySet<string>): DateTime | null {
  for (let day = from.startOf(unit); day.hasSame(from, unit); day = day.plus({ days: 1 })) {
    if (oldIsBankWorkingDay(day, holidays)) return day;
  }
  return null;
}

function oldNextSettlementSlot(option: number, eligibilityMs: number, holidayList: readonly string[]): number {
  const holidays = new Set(holidayList);
  const eligible = DateTime.fromMillis(eligibilityMs, { zone: OLD_IST });
  const startDay = eligible.startOf('day');
  const tplus = OLD_TPLUS[option];
  if (tplus) {
    let day = startDay;
    for (let counted = 0; counted < tplus.days;) {
      day = day.plus({ days: 1 });
      if (oldIsBankWorkingDay(day, holidays)) counted += 1;
    }
    return day.set({ hour: tplus.hour }).toMillis();
  }
  const daily = OLD_DAILY[option];
  for (let i = 0; i < OLD_SEARCH_DAYS; i++) {
    const day = startDay.plus({ days: i });
    if (daily) {
      if (!daily.everyDay && !oldIsBankWorkingDay(day, holidays)) continue;
      for (const slot of daily.slots) {
        if (day.plus({ minutes: slot.cutoff }).toMillis() > eligibilityMs) return day.plus({ minutes: slot.at }).toMillis();
      }
      continue;
    }
    const unit = option === 11 ? 'week' : option === 12 ? 'month' : null;
    if (unit === null) throw new RangeError(`unknown schedule option ${option}`);
    const first = oldFirstWorkingDayOf(day, unit, holidays);
    if (first !== null && first.hasSame(day, 'day')) {
      const at = day.set({ hour: 11 }).toMillis();
      if (at > eligibilityMs) return at;
    }
  }
  throw new RangeError(`no settlement slot of option ${option} within ${OLD_SEARCH_DAYS} days`);
}

function oldParseIstWallTime(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const formats: Array<[RegExp, string]> = [
    [/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'yyyy-MM-dd HH:mm:ss'],
    [/^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2} ?(AM|PM|am|pm)$/, 'yyyy-MM-dd h:mm:ss a'],
  ];
  for (const [shape, format] of formats) {
    if (!shape.test(text)) continue;
    const normalised = format.endsWith(' a') ? text.replace(/ ?(AM|PM|am|pm)$/, (m) => ` ${m.trim().toUpperCase()}`) : text;
    const dt = DateTime.fromFormat(normalised, format, { zone: OLD_IST, locale: 'en-US' });
    if (dt.isValid) return dt.toMillis();
  }
  return null;
}

const oldIsoIst = (ms: number): string =>
  DateTime.fromMillis(ms, { zone: OLD_IST }).startOf('second').toISO({ suppressMilliseconds: true, includeOffset: true }) as string;

const oldMaxEligibility = (paymentTimeMs: number, deferByDays: number): number =>
  DateTime.fromMillis(paymentTimeMs, { zone: OLD_IST }).plus({ days: deferByDays }).toMillis();

/* ---- Generators ---- */

/** A value or the error message: both implementations must agree on which, and on what. */
function outcome(run: () => number): { value: number } | { error: string } {
  try {
    return { value: run() };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const DAY = 86_400_000;
const OFFSET = 330 * 60_000;
const ALL_OPTIONS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16];
const dayText = (dayNumber: number): string => new Date(dayNumber * DAY).toISOString().slice(0, 10);
/** India days 1990-01-01 .. 2100-12-31 (leap centuries, month and year ends included). */
const indiaDay = fc.integer({ min: Date.UTC(1990, 0, 1) / DAY, max: Date.UTC(2100, 11, 31) / DAY });
/** Minutes of the day where slots and cut-offs sit (every quarter hour covers them all), or any minute. */
const slotMinute = fc.oneof(fc.integer({ min: 0, max: 95 }).map((q) => q * 15), fc.integer({ min: 0, max: 1439 }));
/** An instant on or one millisecond around a slot boundary, or anywhere in the day. */
const eligibilityInstant = fc.tuple(indiaDay, fc.oneof(
  fc.tuple(slotMinute, fc.constantFrom(-1, 0, 1)).map(([minute, delta]) => minute * 60_000 + delta),
  fc.integer({ min: 0, max: DAY - 1 }),
)).map(([day, msOfDay]) => day * DAY - OFFSET + msOfDay);
/** Holidays near the eligibility (single days and runs, so whole weeks can be closed), plus texts that never match. */
const holidaysAround = (eligibilityMs: number) => {
  const start = Math.floor((eligibilityMs + OFFSET) / DAY);
  return fc.tuple(
    fc.array(fc.integer({ min: -10, max: 70 }), { maxLength: 12 }),
    fc.array(fc.tuple(fc.integer({ min: -7, max: 40 }), fc.integer({ min: 1, max: 35 })), { maxLength: 2 }),
    fc.array(fc.constantFrom('2022-12-7', 'not a date', '2022-02-30', '+002022-12-07', '', `${dayText(start + 1)} `), { maxLength: 2 }),
  ).map(([days, runs, noise]) => [
    ...days.map((d) => dayText(start + d)),
    ...runs.flatMap(([from, length]) => Array.from({ length }, (_, i) => dayText(start + from + i))),
    ...noise,
  ]);
};

describe('settlement slots equal the luxon algorithm', () => {
  it('for every schedule option (working-day and 24x7), instant and holiday list', () => {
    const option = fc.oneof({ weight: 15, arbitrary: fc.constantFrom(...ALL_OPTIONS) }, { weight: 1, arbitrary: fc.constantFrom(0, 10, 17) });
    const input = fc.tuple(option, eligibilityInstant).chain(([opt, ms]) => fc.tuple(fc.constant(opt), fc.constant(ms), holidaysAround(ms)));
    fc.assert(fc.property(input, ([opt, ms, holidays]) => {
      expect(outcome(() => nextSettlementSlot(opt, ms, holidays))).toEqual(outcome(() => oldNextSettlementSlot(opt, ms, holidays)));
    }), { numRuns: 1500 });
  });

  it('when holidays leave no working day for the whole search (and T+n looks beyond it)', () => {
    const start = Date.UTC(2022, 11, 6) / DAY;
    const holidays = Array.from({ length: 830 }, (_, i) => dayText(start + i));
    const ms = start * DAY - OFFSET + 9 * 3_600_000;
    // Monthly is left out of the oracle here only for time (it rescans a month per day): its answer is the same error.
    for (const option of ALL_OPTIONS.filter((o) => o !== 12)) {
      expect(outcome(() => nextSettlementSlot(option, ms, holidays))).toEqual(outcome(() => oldNextSettlementSlot(option, ms, holidays)));
    }
    expect(outcome(() => nextSettlementSlot(3, ms, holidays))).toEqual({ error: 'RangeError: no settlement slot of option 3 within 800 days' });
    expect(outcome(() => nextSettlementSlot(12, ms, holidays))).toEqual({ error: 'RangeError: no settlement slot of option 12 within 800 days' });
  });

  it('when the same holiday array is changed in place between calls', () => {
    const holidays = ['2022-12-07'];
    const ms = Date.parse('2022-12-06T09:00:00+05:30');
    expect(isoIst(nextSettlementSlot(1, ms, holidays))).toBe('2022-12-08T11:00:00+05:30');
    holidays[0] = '2022-12-08';
    expect(nextSettlementSlot(1, ms, holidays)).toBe(oldNextSettlementSlot(1, ms, holidays));
    expect(isoIst(nextSettlementSlot(1, ms, holidays))).toBe('2022-12-07T11:00:00+05:30');
  });

  it('bank working days of DateTimes in any zone agree', () => {
    const zone = fc.constantFrom('Asia/Kolkata', 'UTC', 'America/New_York', 'Pacific/Kiritimati');
    fc.assert(fc.property(indiaDay, fc.integer({ min: 0, max: DAY - 1 }), zone, fc.integer({ min: -3, max: 3 }), (day, msOfDay, z, near) => {
      const dt = DateTime.fromMillis(day * DAY + msOfDay, { zone: z });
      const holidays = new Set([dt.plus({ days: near }).toISODate() as string]);
      expect(isBankWorkingDay(dt, holidays)).toBe(oldIsBankWorkingDay(dt, holidays));
    }), { numRuns: 1000 });
  });
});

describe('India wall-time parsing equals luxon fromFormat', () => {
  const digits = (n: number, width: number) => String(n).padStart(width, '0');
  const wallTime = fc.record({
    year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 99, 100, 1900, 2000, 2024, 2100, 9999)),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.oneof(fc.integer({ min: 0, max: 61 }), fc.constant(0)),
    second: fc.oneof(fc.integer({ min: 0, max: 61 }), fc.constant(0)),
    twelveHour: fc.boolean(),
    oneDigitHour: fc.boolean(),
    meridiem: fc.constantFrom(' AM', ' PM', 'AM', 'pm', ' am', ' Pm', '  PM'),
    pad: fc.constantFrom('', ' ', '\t', '\u00a0'),
  }).map((w) => {
    const date = `${digits(w.year, 4)}-${digits(w.month, 2)}-${digits(w.day, 2)}`;
    const hour = w.twelveHour && w.oneDigitHour ? String(w.hour) : digits(w.hour, 2);
    return `${w.pad}${date} ${hour}:${digits(w.minute, 2)}:${digits(w.second, 2)}${w.twelveHour ? w.meridiem : ''}${w.pad}`;
  });

  it('for generated date texts, valid and not', () => {
    fc.assert(fc.property(wallTime, (text) => {
      expect(parseIstWallTime(text)).toBe(oldParseIstWallTime(text));
    }), { numRuns: 5000 });
  });

  it('for any other value', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.anything()), (value) => {
      expect(parseIstWallTime(value)).toBe(oldParseIstWallTime(value));
    }), { numRuns: 1000 });
  });

  it('keeps the documented examples', () => {
    expect(isoIst(parseIstWallTime('2022-12-17 16:00:00') as number)).toBe('2022-12-17T16:00:00+05:30');
    expect(isoIst(parseIstWallTime('2022-12-17 04:00:00 PM') as number)).toBe('2022-12-17T16:00:00+05:30');
    expect(isoIst(parseIstWallTime('2022-12-17 12:30:00 am') as number)).toBe('2022-12-17T00:30:00+05:30');
    expect(isoIst(parseIstWallTime('2022-12-17 24:00:00') as number)).toBe('2022-12-18T00:00:00+05:30');
    expect(parseIstWallTime('2023-02-29 10:00:00')).toBeNull();
  });
});

describe('India ISO text and Defer by Days equal luxon', () => {
  it('formats any instant as luxon did (second precision, long years, invalid instants)', () => {
    const instant = fc.oneof(
      fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.constantFrom(-62167219200000 - OFFSET, -62167219200000 - OFFSET - 1, 253402300799999 - OFFSET, 253402300800000 - OFFSET, NaN, -1, -1000.5, 0.5, -OFFSET - 1000.5, -OFFSET - 0.5, -OFFSET - 86_400_000.25),
      fc.double({ min: -1e13, max: 1e13, noNaN: true }),
    );
    fc.assert(fc.property(instant, (ms) => {
      expect(isoIst(ms)).toBe(oldIsoIst(ms));
    }), { numRuns: 5000 });
  });

  it('adds Defer by Days as luxon did', () => {
    const state = createState();
    fc.assert(fc.property(fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }), fc.integer({ min: 0, max: 365 }), (ms, days) => {
      state.merchant.deferByDays = days;
      expect(maxEligibility(state, ms)).toBe(oldMaxEligibility(ms, days));
    }), { numRuns: 2000 });
  });
});

describe('eligibility rate-limit window equals filtering the whole window', () => {
  afterEach(() => jest.restoreAllMocks());

  /** The handler as registered (a router stand-in records it), on a state with one paid order and vendor. */
  function eligibilityHandler(limit: number): RouteHandler {
    const state = createState();
    state.rateLimits.eligibilityPerMinute = limit;
    const now = Date.parse('2022-12-06T09:00:00+05:30');
    state.orders.set('o1', { order_id: 'o1', status: 'PAID', payment_time: isoIst(now) } as never);
    state.settlements.set(settlementKey('o1', 'v1'), {
      order_id: 'o1', vendor_id: 'v1', amount: '1.00', eligibility: isoIst(now), scheduled_at: isoIst(now + 30 * DAY),
      status: 'PENDING', settled_at: null, settlement_id: null, eligibility_updates: 0,
    });
    const ctx = { state, clock: { nowMs: () => now, at: () => ({ cancel: () => undefined }) }, config: { clientId: 'id', clientSecret: 'secret', baseUrl: '', log: () => undefined } } as unknown as SandboxContext;
    let handler: RouteHandler | null = null;
    registerEligibility({ put: (_pattern: string, h: RouteHandler) => { handler = h; } } as unknown as Router, ctx);
    return handler as unknown as RouteHandler;
  }

  const request = { params: { order_id: 'o1', vendor_id: 'v1' }, body: { settlementEligibilityDateUpdate: 'not a date' }, header: (name: string) => ({ 'x-client-id': 'id', 'x-client-secret': 'secret' } as Record<string, string>)[name] } as unknown as SandboxRequest;

  it('answers the same status and x-ratelimit headers for any sequence of real-time instants, including clock steps back', () => {
    // Forward steps (some landing exactly on the 60-second edge), and now and then a step back.
    const steps = fc.array(fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 20_000 }) },
      { weight: 2, arbitrary: fc.constantFrom(0, 20_000, 30_000, 59_999, 60_000, 60_001) },
      { weight: 1, arbitrary: fc.integer({ min: -90_000, max: 90_000 }) },
    ), { minLength: 1, maxLength: 60 });
    fc.assert(fc.property(fc.integer({ min: 1, max: 8 }), steps, (limit, deltas) => {
      const handler = eligibilityHandler(limit);
      let window: number[] = [];
      let t = 1_700_000_000_000;
      const nowSpy = jest.spyOn(Date, 'now');
      for (const delta of deltas) {
        t += delta;
        nowSpy.mockReturnValue(t);
        // The old algorithm: filter the whole window, answer 429 when full, else record this request.
        window = window.filter((w) => w > t - 60_000);
        const full = window.length >= limit;
        const expected = full
          ? { status: 429, retry: String(Math.max(1, Math.ceil((window[0] + 60_000 - t) / 1000))), remaining: '0' }
          : { status: 400, retry: '0', remaining: String(limit - window.length - 1) };
        if (!full) window.push(t);
        const reply = handler(request) as { status: number; headers: Record<string, string> };
        expect({ status: reply.status, retry: reply.headers['x-ratelimit-retry'], remaining: reply.headers['x-ratelimit-remaining'] }).toEqual(expected);
      }
      nowSpy.mockRestore();
    }), { numRuns: 300 });
  });
});
