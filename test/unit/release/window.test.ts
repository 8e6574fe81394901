/** Specification of the eligibility window and clamps (gateway-facts section 1's numbers). */
import { DateTime } from 'luxon';
import { Instant } from '../../../functions/domain/instant';
import { clampEligibility, maxEligibility, nextGatewayMinute } from '../../../functions/domain/release/plan';

const ist = (text: string) => Instant.fromDateTime(DateTime.fromISO(text, { zone: 'Asia/Kolkata' }));
const transactionTime = ist('2022-12-02T16:00:00');
const window = { transactionTime, maxEligibility: maxEligibility(transactionTime, 15) };

describe('window', () => {
  it('ends Defer by Days after the transaction: 2 Dec 2022 4:00 PM + 15 days = 17 Dec 4:00 PM', () => {
    expect(window.maxEligibility.toDateTime().toISO()).toBe('2022-12-17T16:00:00.000+05:30');
    expect(maxEligibility(transactionTime, 0).ms).toBe(transactionTime.ms);
  });

  it('the next gateway minute is the first whole minute at least 30 s after now (still future when the PUT lands)', () => {
    expect(nextGatewayMinute(ist('2022-12-05T10:00:00')).toDateTime().toISO()).toBe('2022-12-05T10:01:00.000+05:30');
    expect(nextGatewayMinute(ist('2022-12-05T10:00:00.001')).toDateTime().toISO()).toBe('2022-12-05T10:01:00.000+05:30');
    expect(nextGatewayMinute(ist('2022-12-05T10:00:29.999')).toDateTime().toISO()).toBe('2022-12-05T10:01:00.000+05:30');
    // Chosen at 10:00:30 or later, 10:01 could pass before the gateway processes the PUT.
    expect(nextGatewayMinute(ist('2022-12-05T10:00:30')).toDateTime().toISO()).toBe('2022-12-05T10:02:00.000+05:30');
    expect(nextGatewayMinute(ist('2022-12-05T10:00:59.999')).toDateTime().toISO()).toBe('2022-12-05T10:02:00.000+05:30');
  });
});

describe('clampEligibility', () => {
  const now = ist('2022-12-03T12:00:00');

  it('keeps a future target inside the window as it is', () => {
    const result = clampEligibility(ist('2022-12-06T09:00:00'), window, now);
    expect(result).toEqual({ eligibility: ist('2022-12-06T09:00:00'), clamp: null });
  });

  it('clamps a target after max eligibility to max, recording it', () => {
    const result = clampEligibility(ist('2022-12-20T09:00:00'), window, now);
    expect(result.eligibility?.toDateTime().toISO()).toBe('2022-12-17T16:00:00.000+05:30');
    expect(result).toMatchObject({
      clamp: { requested: '2022-12-20T09:00:00+05:30', clampedTo: '2022-12-17T16:00:00+05:30', reason: 'after_max_eligibility' },
    });
  });

  it('clamps a target before the transaction to the transaction time', () => {
    const result = clampEligibility(ist('2022-12-01T09:00:00'), window, ist('2022-12-02T10:00:00'));
    expect(result).toMatchObject({ clamp: { clampedTo: '2022-12-02T16:00:00+05:30', reason: 'before_transaction' } });
  });

  it('moves a past target to the next gateway minute', () => {
    const result = clampEligibility(ist('2022-12-03T09:00:00'), window, ist('2022-12-03T12:00:20'));
    expect(result.eligibility?.toDateTime().toISO()).toBe('2022-12-03T12:01:00.000+05:30');
    expect(result).toMatchObject({ clamp: { requested: '2022-12-03T09:00:00+05:30', reason: 'in_the_past' } });
  });

  it('moves a target before the transaction, already past, into the future', () => {
    const result = clampEligibility(ist('2022-12-01T09:00:00'), window, now);
    expect(result).toMatchObject({ clamp: { clampedTo: '2022-12-03T12:01:00+05:30', reason: 'in_the_past' } });
  });

  it('reports a closed window once the next gateway minute is after max eligibility', () => {
    expect(clampEligibility(ist('2022-12-10T09:00:00'), window, ist('2022-12-17T16:00:00'))).toEqual({ eligibility: null, reason: 'window_closed' });
    // At 15:59:00 the next gateway minute is max eligibility itself, still inside the window; from 15:59:30 it is not.
    expect(clampEligibility(ist('2022-12-10T09:00:00'), window, ist('2022-12-17T15:59:00')).eligibility?.toDateTime().toISO()).toBe('2022-12-17T16:00:00.000+05:30');
    expect(clampEligibility(ist('2022-12-10T09:00:00'), window, ist('2022-12-17T15:59:30'))).toEqual({ eligibility: null, reason: 'window_closed' });
  });

  it('sends whole seconds', () => {
    const result = clampEligibility(ist('2022-12-06T09:00:00.400'), window, now);
    expect(result.eligibility?.toDateTime().toISO()).toBe('2022-12-06T09:00:01.000+05:30');
  });

  it('the window\'s ends and the next gateway minute themselves are not clamps', () => {
    expect(clampEligibility(window.maxEligibility, window, now)).toEqual({ eligibility: window.maxEligibility, clamp: null });
    const earliest = nextGatewayMinute(now);
    expect(clampEligibility(earliest, window, now)).toEqual({ eligibility: earliest, clamp: null });
  });

  it('in a window with sub-second ends, rounds up at the transaction and down at max, and says so on the clamp', () => {
    const tx = ist('2022-12-02T16:00:00.400');
    const fractional = { transactionTime: tx, maxEligibility: maxEligibility(tx, 15) };
    const early = clampEligibility(ist('2022-12-01T09:00:00'), fractional, ist('2022-12-02T15:00:00'));
    expect(early.eligibility?.toDateTime().toISO()).toBe('2022-12-02T16:00:01.000+05:30');
    expect(early).toMatchObject({ clamp: { clampedTo: '2022-12-02T16:00:01+05:30', reason: 'before_transaction' } });
    const late = clampEligibility(ist('2022-12-20T09:00:00'), fractional, now);
    expect(late.eligibility?.toDateTime().toISO()).toBe('2022-12-17T16:00:00.000+05:30');
    expect(late).toMatchObject({ clamp: { clampedTo: '2022-12-17T16:00:00+05:30', reason: 'after_max_eligibility' } });
  });
});
