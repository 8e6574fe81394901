/** Specification of instants, the gateway's two date forms and durations. */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  GATEWAY_ZONE, formatGatewayDate, formatInstant, parseDuration, parseEligibilityInput, parseGatewayDate, parseInstant,
} from '../../functions/domain/dates';
import { issuesOf } from './validation-issues';
import { utcSortKey } from '../../functions/adapters/dynamodb/item-keys';


describe('gateway date forms (India time)', () => {
  it('reads "2022-12-06 09:00:00" and the 12-hour form "2022-12-06 09:00:00 AM" as the same instant', () => {
    const plain = parseGatewayDate('2022-12-06 09:00:00');
    const twelve = parseGatewayDate('2022-12-06 09:00:00 AM');
    expect(plain?.toISO()).toBe('2022-12-06T09:00:00.000+05:30');
    expect(twelve?.toMillis()).toBe(plain?.toMillis());
  });

  it('reads PM, 12 AM (midnight) and 12 PM (noon)', () => {
    expect(parseGatewayDate('2022-12-02 04:00:00 PM')?.toISO()).toBe('2022-12-02T16:00:00.000+05:30');
    expect(parseGatewayDate('2022-12-02 12:00:00 AM')?.toISO()).toBe('2022-12-02T00:00:00.000+05:30');
    expect(parseGatewayDate('2022-12-02 12:30:00 pm')?.toISO()).toBe('2022-12-02T12:30:00.000+05:30');
  });

  it('refuses other shapes and impossible dates', () => {
    for (const text of ['2022-12-06T09:00:00', '2022-12-06 9:00:00', '2022-02-30 09:00:00', '2022-12-06 13:00:00 PM', '2022-12-06 00:10:00 AM', '']) {
      expect(parseGatewayDate(text)).toBeNull();
    }
  });

  it('formats any instant as "YYYY-MM-DD HH:MM:SS" on the India clock', () => {
    expect(formatGatewayDate(DateTime.fromISO('2022-12-06T03:30:00Z'))).toBe('2022-12-06 09:00:00');
    expect(formatGatewayDate(DateTime.fromISO('2022-12-17T16:00:00.750+05:30'))).toBe('2022-12-17 16:00:00');
  });
});

describe('instants', () => {
  it('parses ISO 8601 with an offset or Z, keeping the offset', () => {
    expect(parseInstant('2022-12-02T16:00:00+05:30', 'x').toISO()).toBe('2022-12-02T16:00:00.000+05:30');
    expect(parseInstant('2022-12-02T10:30:00Z', 'x').toMillis()).toBe(parseInstant('2022-12-02T16:00:00+05:30', 'x').toMillis());
  });

  it('reads Z, negative and non-hour offsets and milliseconds exactly as luxon\'s ISO parser does', () => {
    const cases: [string, string][] = [
      ['2022-12-02T10:30:00Z', '2022-12-02T10:30:00.000Z'],
      ['2022-12-02T05:30:00-05:00', '2022-12-02T05:30:00.000-05:00'],
      ['2022-12-02T09:59:00-00:30', '2022-12-02T09:59:00.000-00:30'],
      ['2022-12-31T23:30:00-01:00', '2022-12-31T23:30:00.000-01:00'],
      ['2022-12-02T16:00:00.5+05:30', '2022-12-02T16:00:00.500+05:30'],
      ['2022-12-02T16:15:00.123+05:45', '2022-12-02T16:15:00.123+05:45'],
      ['2024-02-29T10:00:00Z', '2024-02-29T10:00:00.000Z'],
    ];
    for (const [text, iso] of cases) {
      const dt = parseInstant(text, 'x');
      expect(dt.toISO()).toBe(iso);
      expect(dt.toMillis()).toBe(Date.parse(text));
    }
  });

  it('refuses impossible dates that Date.parse would roll over', () => {
    for (const text of ['2022-02-29T10:00:00Z', '2022-02-30T10:00:00+05:30', '2022-04-31T10:00:00-03:00', '2022-12-32T10:00:00Z', '2022-12-02T23:60:00Z']) {
      expect(issuesOf(() => parseInstant(text, 'deliveredAt'))[0]).toMatchObject({ field: 'deliveredAt', problem: `is "${text}", not a real date and time` });
    }
  });

  it('refuses an offset no zone uses (beyond -12:00..+14:00), naming the field and the range (issue 15.5)', () => {
    for (const text of ['2022-12-02T16:00:00+99:00', '2022-12-02T16:00:00+14:15', '2022-12-02T16:00:00-12:30', '2022-12-02T16:00+23:00']) {
      expect(issuesOf(() => parseInstant(text, 'deliveredAt'))).toEqual([{
        field: 'deliveredAt', problem: expect.stringContaining('is no UTC offset in use'), expected: expect.stringContaining('an offset from -12:00 to +14:00'),
      }]);
    }
    expect(parseInstant('2022-12-02T16:00:00+14:00', 'x').toMillis()).toBe(Date.parse('2022-12-02T02:00:00Z'));
    expect(parseInstant('2022-12-02T16:00:00-12:00', 'x').toMillis()).toBe(Date.parse('2022-12-03T04:00:00Z'));
  });

  it('property: any "YYYY-MM-DDTHH:MM:SS[.sss](Z|±HH:MM)" text parses to what luxon\'s ISO parser gives, or is refused where luxon refuses or the offset is in no use', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    const text = fc.record({
      year: fc.integer({ min: 1970, max: 2099 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }),
      hour: fc.integer({ min: 0, max: 23 }), minute: fc.integer({ min: 0, max: 59 }), second: fc.integer({ min: 0, max: 59 }),
      fraction: fc.constantFrom('', '.5', '.05', '.123'),
      offset: fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 15, 30, 45))
        .map(([sign, h, m]) => `${sign}${two(h)}:${two(m)}`)),
    }).map((t) => `${t.year}-${two(t.month)}-${two(t.day)}T${two(t.hour)}:${two(t.minute)}:${two(t.second)}${t.fraction}${t.offset}`);
    fc.assert(fc.property(text, (iso) => {
      const expected = DateTime.fromISO(iso, { setZone: true });
      if (!expected.isValid) {
        expect(() => parseInstant(iso, 'x')).toThrow(/not a real date/);
        return;
      }
      if (expected.offset < -12 * 60 || expected.offset > 14 * 60) {
        expect(() => parseInstant(iso, 'x')).toThrow(/is no UTC offset in use/);
        return;
      }
      const dt = parseInstant(iso, 'x');
      expect(dt.toISO()).toBe(expected.toISO());
      expect(dt.toMillis()).toBe(expected.toMillis());
    }), { numRuns: 2000 });
  });

  it('property: the gateway form read as India time is the instant luxon gives in Asia/Kolkata; UTC sort keys are luxon\'s UTC text', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    const parts = fc.record({
      year: fc.integer({ min: 1970, max: 2099 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }),
      hour: fc.integer({ min: 0, max: 23 }), minute: fc.integer({ min: 0, max: 59 }), second: fc.integer({ min: 0, max: 59 }),
    });
    fc.assert(fc.property(parts, (t) => {
      const text = `${t.year}-${two(t.month)}-${two(t.day)} ${two(t.hour)}:${two(t.minute)}:${two(t.second)}`;
      const expected = DateTime.fromObject(t, { zone: 'Asia/Kolkata' });
      expect(parseGatewayDate(text)?.toMillis()).toBe(expected.toMillis());
      const iso = expected.toISO()!;
      expect(utcSortKey(iso, 'x')).toBe(DateTime.fromISO(iso, { setZone: true }).toUTC().toISO());
    }), { numRuns: 500 });
  });

  it('refuses a time without an offset, naming the field and what to send', () => {
    const [issue] = issuesOf(() => parseInstant('2022-12-02T16:00:00', 'detail.transactionTime'));
    expect(issue.field).toBe('detail.transactionTime');
    expect(issue.problem).toContain('not an ISO 8601 time with an offset');
    expect(issue.expected).toContain('2022-12-02T16:00:00+05:30');
    expect(issuesOf(() => parseInstant(undefined, 'openedAt'))[0].problem).toBe('is missing');
    expect(issuesOf(() => parseInstant('2022-13-02T16:00:00Z', 'openedAt'))[0].problem).toContain('not a real date');
  });

  it('formats with the zone offset, whole seconds, no milliseconds', () => {
    const dt = DateTime.fromISO('2022-12-02T10:30:00.123Z');
    expect(formatInstant(dt, GATEWAY_ZONE)).toBe('2022-12-02T16:00:00+05:30');
    expect(formatInstant(dt, 'Europe/Berlin')).toBe('2022-12-02T11:30:00+01:00');
  });

  it('takes an eligibility in either gateway form or ISO 8601', () => {
    const expected = DateTime.fromISO('2022-12-06T09:00:00+05:30').toMillis();
    expect(parseEligibilityInput('2022-12-06 09:00:00', 'eligibility').ms).toBe(expected);
    expect(parseEligibilityInput('2022-12-06 09:00:00 AM', 'eligibility').ms).toBe(expected);
    expect(parseEligibilityInput('2022-12-06T03:30:00Z', 'eligibility').ms).toBe(expected);
    const [issue] = issuesOf(() => parseEligibilityInput('tomorrow', 'eligibility'));
    expect(issue).toMatchObject({ field: 'eligibility', problem: 'is "tomorrow", not a date and time' });
    expect(issue.expected).toContain('YYYY-MM-DD HH:MM:SS');
  });
});

describe('durations', () => {
  it('parses ISO 8601 durations', () => {
    expect(parseDuration('P3D', 'delay').as('hours')).toBe(72);
    expect(parseDuration('PT1H', 'releaseLead').as('minutes')).toBe(60);
    expect(parseDuration('PT0S', 'releaseLead').toMillis()).toBe(0);
  });

  it('refuses text that is not a duration and negative durations', () => {
    expect(issuesOf(() => parseDuration('3 days', 'release.delay'))[0]).toMatchObject({ field: 'release.delay', problem: 'is "3 days", not an ISO 8601 duration' });
    expect(issuesOf(() => parseDuration('-P1D', 'releaseLead'))[0].problem).toContain('negative');
    expect(issuesOf(() => parseDuration(5, 'releaseLead'))[0].problem).toContain('a number');
  });
});
