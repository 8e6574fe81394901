/** Specification of settings and policy input validation, and of the default policy. */
import { issuesOf } from './validation-issues';
import { DEFAULT_SETTINGS, calendarOf, defaultPolicy, validatePolicyInput, validateSettings } from '../../functions/domain/settings';
import { DateTime } from 'luxon';
import { Instant } from '../../functions/domain/instant';


describe('settings', () => {
  it('defaults: Defer by Days 15, India time, option 1, no holidays, working days, lead PT1H', () => {
    expect(DEFAULT_SETTINGS).toEqual({
      deferByDays: 15, timezone: 'Asia/Kolkata', defaultScheduleOption: 1, holidays: [], settlementDays: 'working', releaseLead: 'PT1H',
      retryBudget: 'P1D', riskWindow: 'P7D', holdWarning: 'P2D', approvals: {},
    });
  });

  it('riskWindow and holdWarning (contract 6.4): ISO durations PT0S to P365D, each bad one named; settings saved without them read P7D and P2D', () => {
    expect(validateSettings({ riskWindow: 'P30D', holdWarning: 'PT12H' })).toMatchObject({ riskWindow: 'P30D', holdWarning: 'PT12H' });
    const { riskWindow: _r, holdWarning: _h, ...older } = DEFAULT_SETTINGS;
    expect(validateSettings({}, older)).toMatchObject({ riskWindow: 'P7D', holdWarning: 'P2D' });
    expect(issuesOf(() => validateSettings({ riskWindow: 'P400D', holdWarning: 'two days' })).map((i) => i.field)).toEqual(['riskWindow', 'holdWarning']);
  });

  it('maxExposure on a policy: currency codes to decimal text; a number, a bad currency or a negative amount is named', () => {
    const policy = { scheduleOption: 1, release: { kind: 'immediate' }, actor: 'a', reason: 'r' };
    expect(validatePolicyInput({ ...policy, maxExposure: { USD: '10.5', INR: '50000.00' } }).maxExposure).toEqual({ INR: '50000.00', USD: '10.5' });
    expect(validatePolicyInput(policy)).not.toHaveProperty('maxExposure');
    const issues = issuesOf(() => validatePolicyInput({ ...policy, maxExposure: { INR: 50000, inr: '1.00', EUR: '-5', GBP: '99999999999.00' } }));
    expect(issues.map((i) => i.field)).toEqual(['maxExposure.INR', 'maxExposure.inr', 'maxExposure.EUR', 'maxExposure.GBP']);
    expect(issues[0].problem).toMatch(/JSON number 50000: amounts are decimal text/);
    expect(issuesOf(() => validatePolicyInput({ ...policy, maxExposure: '50000' }))[0]).toMatchObject({ field: 'maxExposure', expected: expect.stringContaining('{"INR": "50000.00"}') });
  });

  it('retryBudget: how long "Order ID does not exist" is retried, PT0S to P365D; settings saved without it read the default', () => {
    expect(validateSettings({ retryBudget: 'PT6H' }).retryBudget).toBe('PT6H');
    const { retryBudget: _, ...older } = DEFAULT_SETTINGS;
    expect(validateSettings({}, older).retryBudget).toBe('P1D');
    expect(issuesOf(() => validateSettings({ retryBudget: 'P400D' }))).toEqual([expect.objectContaining({ field: 'retryBudget', problem: expect.stringContaining('longer than 365 days') })]);
    expect(issuesOf(() => validateSettings({ retryBudget: 'soon' }))[0].field).toBe('retryBudget');
  });

  it('accepts a full body', () => {
    const body = { deferByDays: 30, timezone: 'Europe/Berlin', defaultScheduleOption: 16, holidays: ['2022-12-26'], settlementDays: 'calendar', releaseLead: 'PT0S', retryBudget: 'PT12H', riskWindow: 'P14D', holdWarning: 'P1D' };
    expect(validateSettings(body)).toEqual({ ...body, approvals: {} });
  });

  it('merges a partial body over the settings in force, dropping any extra fields of the base', () => {
    const base = { ...DEFAULT_SETTINGS, deferByDays: 20, version: 3, actor: 'a', reason: 'r', at: '2022-12-01T00:00:00Z' };
    expect(validateSettings({ holidays: ['2022-12-26'] }, base)).toEqual({ ...DEFAULT_SETTINGS, deferByDays: 20, holidays: ['2022-12-26'] });
  });

  it('names every bad field, the problem and what to send', () => {
    const issues = issuesOf(() => validateSettings({
      deferByDays: 366, timezone: 'India/Delhi', defaultScheduleOption: 10, holidays: ['2022-12-26', '2022-12-26', '26/12/2022'],
      settlementDays: 'banking', releaseLead: '1 hour', colour: 'blue',
    }));
    expect(issues.map((i) => i.field)).toEqual([
      'colour', 'deferByDays', 'timezone', 'defaultScheduleOption', 'holidays[1]', 'holidays[2]', 'settlementDays', 'releaseLead',
    ]);
    expect(issues[0]).toEqual({ field: 'colour', problem: 'is not a known field', expected: expect.stringContaining('deferByDays') });
    expect(issues[1]).toEqual({ field: 'deferByDays', problem: 'is 366, not a whole number of days from 0 to 365', expected: "the dashboard's Defer by Days, e.g. 15" });
    expect(issues[4].problem).toBe('repeats 2022-12-26');
    expect(issuesOf(() => validateSettings({ deferByDays: 1.5 }))[0].field).toBe('deferByDays');
    expect(issuesOf(() => validateSettings({ releaseLead: '-PT1H' }))[0].problem).toContain('negative');
    expect(issuesOf(() => validateSettings([]))[0]).toMatchObject({ field: 'body', problem: 'is [], not a JSON object' });
  });

  it('the message joins the issues as "<field>: <problem>; send <expected>"', () => {
    expect(() => validateSettings({ settlementDays: 'banking' }))
      .toThrow('settlementDays: is "banking"; send "working" (bank working days) or "calendar" (every day)');
  });

  it('calendarOf builds the bank calendar of the settings', () => {
    const calendar = calendarOf({ ...DEFAULT_SETTINGS, holidays: ['2022-12-26'] });
    expect(calendar.isSettlementDay(Instant.fromDateTime(DateTime.fromISO('2022-12-26T12:00:00+05:30')))).toBe(false);
  });
});

describe('vendor policy input', () => {
  const valid = { scheduleOption: 1, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'finance@example.com', reason: 'trusted vendor' };

  it('accepts the four rules', () => {
    expect(validatePolicyInput(valid)).toEqual(valid);
    expect(validatePolicyInput({ ...valid, release: { kind: 'at_max' } }).release).toEqual({ kind: 'at_max' });
    expect(validatePolicyInput({ ...valid, release: { kind: 'immediate' } }).release).toEqual({ kind: 'immediate' });
    expect(validatePolicyInput({ ...valid, release: { kind: 'after_payment', delay: 'P3D' } }).release).toEqual({ kind: 'after_payment', delay: 'P3D' });
  });

  it('needs a positive delay for the delayed rules and no extra keys', () => {
    expect(issuesOf(() => validatePolicyInput({ ...valid, release: { kind: 'after_payment' } }))[0]).toMatchObject({ field: 'release.delay', problem: 'is missing' });
    expect(issuesOf(() => validatePolicyInput({ ...valid, release: { kind: 'after_payment', delay: 'PT0S' } }))[0]).toMatchObject({ field: 'release.delay', problem: 'is "PT0S", a zero duration' });
    expect(issuesOf(() => validatePolicyInput({ ...valid, release: { kind: 'immediate', delay: 'P1D' } }))[0]).toMatchObject({ field: 'release.delay', problem: 'is not a known field' });
    expect(issuesOf(() => validatePolicyInput({ ...valid, release: { kind: 'soon' } }))[0]).toMatchObject({ field: 'release.kind', problem: 'is "soon", not a release rule' });
  });

  it('needs a known schedule option, an actor and a reason of at most 200 characters', () => {
    const issues = issuesOf(() => validatePolicyInput({ scheduleOption: 10, release: { kind: 'at_max' }, actor: ' ', reason: 'x'.repeat(201) }));
    expect(issues.map((i) => [i.field, i.problem])).toEqual([
      ['scheduleOption', 'is 10, not a schedule option'], ['actor', 'is " ", not a non-empty text'], ['reason', 'has 201 characters'],
    ]);
    expect(issues[0].expected).toContain('1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16');
  });

  it('the default policy is at_max with the default schedule option, version 0', () => {
    expect(defaultPolicy('vendor_a', { ...DEFAULT_SETTINGS, defaultScheduleOption: 3 })).toEqual({
      vendorId: 'vendor_a', version: 0, scheduleOption: 3, release: { kind: 'at_max' }, actor: 'system', reason: 'default policy', at: null,
    });
  });
});
