/** Sandbox core: settlement slots of every schedule option on India's bank working days (December 2022 calendar). */
import { DateTime } from 'luxon';
import { isBankWorkingDay, nextSettlementSlot } from '../../sandbox/schedule';
import { isoIst } from '../../sandbox/time';

const at = (ist: string): number => DateTime.fromISO(ist, { zone: 'Asia/Kolkata' }).toMillis();
const slot = (option: number, eligibility: string, holidays: string[] = []): string => isoIst(nextSettlementSlot(option, at(eligibility), holidays));

describe('bank working days', () => {
  it('excludes Sundays, the 2nd and 4th Saturdays and listed holidays', () => {
    const day = (d: string) => DateTime.fromISO(d, { zone: 'Asia/Kolkata' });
    const none = new Set<string>();
    expect(isBankWorkingDay(day('2022-12-03'), none)).toBe(true); // 1st Saturday
    expect(isBankWorkingDay(day('2022-12-10'), none)).toBe(false); // 2nd Saturday
    expect(isBankWorkingDay(day('2022-12-17'), none)).toBe(true); // 3rd Saturday
    expect(isBankWorkingDay(day('2022-12-24'), none)).toBe(false); // 4th Saturday
    expect(isBankWorkingDay(day('2022-12-31'), none)).toBe(true); // 5th Saturday
    expect(isBankWorkingDay(day('2022-12-18'), none)).toBe(false); // Sunday
    expect(isBankWorkingDay(day('2022-12-07'), new Set(['2022-12-07']))).toBe(false);
  });
});

/** [option, eligibility (India time), expected slot, bank holidays]. */
type SlotCase = [number, string, string, string[]?];

/** One table of cases per family of options, each case checked against nextSettlementSlot. */
function slotCases(title: string, cases: SlotCase[]): void {
  describe(title, () => {
    it.each(cases)('option %i, eligible %s → %s (holidays %j)', (option, eligibility, expected, holidays = []) => {
      expect(slot(option, eligibility, holidays)).toBe(expected);
    });
  });
}

slotCases('T+n options count working days after the eligibility date', [
  [1, '2022-12-06T09:00', '2022-12-07T11:00:00+05:30'], // the interface's example
  [1, '2022-12-17T16:00', '2022-12-19T11:00:00+05:30'], // the 18th is a Sunday
  [1, '2022-12-09T10:00', '2022-12-12T11:00:00+05:30'], // 2nd Saturday and Sunday skipped
  [1, '2022-12-06T09:00', '2022-12-08T11:00:00+05:30', ['2022-12-07']],
  [2, '2022-12-08T12:00', '2022-12-12T11:00:00+05:30'],
  [13, '2022-12-06T09:00', '2022-12-07T09:00:00+05:30'],
  [15, '2022-12-06T09:00', '2022-12-09T11:00:00+05:30'],
  [16, '2022-12-06T09:00', '2022-12-15T11:00:00+05:30'],
]);

slotCases('cut-off options', [
  [3, '2022-12-06T10:44', '2022-12-06T11:15:00+05:30'],
  [3, '2022-12-06T10:45', '2022-12-06T17:15:00+05:30'],
  [3, '2022-12-06T16:45', '2022-12-07T11:15:00+05:30'],
  [3, '2022-12-10T09:00', '2022-12-12T11:15:00+05:30'],
  [4, '2022-12-06T13:59', '2022-12-06T15:00:00+05:30'],
  [4, '2022-12-06T14:00', '2022-12-07T15:00:00+05:30'],
  [5, '2022-12-06T17:29', '2022-12-06T18:00:00+05:30'],
  [5, '2022-12-06T17:30', '2022-12-07T18:00:00+05:30'],
]);

slotCases('hourly and 24x7 options settle at the first slot strictly after eligibility', [
  [6, '2022-12-06T06:10', '2022-12-06T07:00:00+05:30'],
  [6, '2022-12-06T12:30', '2022-12-06T13:00:00+05:30'],
  [6, '2022-12-06T17:00', '2022-12-07T07:00:00+05:30'],
  [6, '2022-12-10T09:00', '2022-12-12T07:00:00+05:30'],
  [7, '2022-12-06T08:00', '2022-12-06T11:00:00+05:30'],
  [7, '2022-12-06T17:30', '2022-12-07T08:00:00+05:30'],
  [8, '2022-12-10T09:00', '2022-12-10T10:00:00+05:30'],
  [8, '2022-12-06T23:30', '2022-12-07T00:00:00+05:30'],
  [9, '2022-12-11T04:00', '2022-12-11T06:00:00+05:30'],
  [9, '2022-12-11T22:00', '2022-12-12T00:00:00+05:30'],
  [14, '2022-12-11T10:07', '2022-12-11T10:15:00+05:30'],
  [14, '2022-12-11T10:15', '2022-12-11T10:30:00+05:30'],
]);

slotCases('weekly and monthly options', [
  [11, '2022-12-05T09:00', '2022-12-05T11:00:00+05:30'],
  [11, '2022-12-06T09:00', '2022-12-12T11:00:00+05:30'],
  [11, '2022-12-06T09:00', '2022-12-13T11:00:00+05:30', ['2022-12-12']],
  [12, '2022-12-01T10:00', '2022-12-01T11:00:00+05:30'],
  [12, '2022-12-06T09:00', '2023-01-02T11:00:00+05:30'],
]);
