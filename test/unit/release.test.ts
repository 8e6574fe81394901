/** Specification of the release state machine (contract sections 4 and 5) with the gateway documents' numbers. */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { parseGatewayDate } from '../../functions/domain/dates';
import { parseOrderEvent } from '../../functions/domain/order-events';
import {
  BACKOFF_CAP_SECONDS, answer as answerOf, manualRelease, planRelease, prepareSend, retryDelaySeconds, retryFailed, settle, vendorFacts,
  type VendorFacts,
} from '../../functions/domain/release';
import { DEFAULT_SETTINGS, defaultPolicy } from '../../functions/domain/settings';
import type { Attempt, GatewayAnswer, OrderEvent, OrderRecord, ReleaseRule, Settings, VendorPolicy, VendorRelease } from '../../functions/domain/types';
import { SEND_MARGIN_MS, maxEligibility } from '../../functions/domain/release/plan';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const ist = (text: string) => Instant.fromDateTime(DateTime.fromISO(text, { zone: 'Asia/Kolkata' }));
const settings: Settings = DEFAULT_SETTINGS;
const NO_FACTS: VendorFacts = { deliveredAt: null, disputeOpen: false, lastResolution: null, cancelledAt: null };

function orderAt(transactionTime: Instant, deferByDays = 15): OrderRecord {
  return {
    orderId: 'order_1001',
    transactionTime: transactionTime.in('Asia/Kolkata').wholeSecond(),
    maxEligibility: maxEligibility(transactionTime, deferByDays).in('Asia/Kolkata').wholeSecond(),
    deferByDays,
    currency: 'INR',
    vendors: [{ vendorId: 'vendor_a', amount: '1250.50' }, { vendorId: 'vendor_b', amount: '300.00' }],
    recordedAt: transactionTime.in('Asia/Kolkata').wholeSecond(),
  };
}
// The documented example: 2 Dec 2022 4:00 PM, Defer by Days 15, max eligibility 17 Dec 4:00 PM.
const order = orderAt(ist('2022-12-02T16:00:00'));

function policyOf(release: ReleaseRule, scheduleOption = 1, version = 1): VendorPolicy {
  return { vendorId: 'vendor_a', version, scheduleOption, release, actor: 'finance', reason: 'test', at: at('2022-12-01T00:00:00+05:30') };
}

function plan(release: ReleaseRule, now: string, facts: VendorFacts = NO_FACTS, current: VendorRelease | null = null, extra: Partial<Settings> = {}) {
  return planRelease({ order, vendorId: 'vendor_a', amount: '1250.50', policy: policyOf(release), settings: { ...settings, ...extra }, facts, now: ist(now), current });
}

const event = (detailType: string, detail: object) => parseOrderEvent(detailType, { orderId: 'order_1001', ...detail });
const delivered = (at: string, vendorIds?: string[]) => event('order.delivered', { deliveredAt: at, ...(vendorIds ? { vendorIds } : {}) });
const opened = (at: string) => event('order.dispute_opened', { openedAt: at });
const closed = (at: string, resolution: string) => event('order.dispute_closed', { closedAt: at, resolution });
const cancelled = (at: string) => event('order.cancelled', { cancelledAt: at });
const facts = (...events: OrderEvent[]) => vendorFacts(events, 'vendor_a');

describe('planRelease: the four rules', () => {
  it('at_max sends nothing: AT_MAX at max eligibility 17 Dec 4:00 PM, settling 19 Dec 11:00 on working days', () => {
    const release = plan({ kind: 'at_max' }, '2022-12-02T16:05:00');
    expect(release).toMatchObject({
      state: 'AT_MAX', targetEligibility: '2022-12-17T16:00:00+05:30', sendAt: null,
      predictedSettlement: '2022-12-19T11:00:00+05:30', policyVersion: 1, scheduleOption: 1,
      reason: 'rule at_max: no update, the gateway settles from max eligibility 2022-12-17T16:00:00+05:30',
    });
  });

  it('the default policy is at_max too', () => {
    const release = planRelease({ order, vendorId: 'vendor_b', amount: '300.00', policy: defaultPolicy('vendor_b', settings), settings, facts: NO_FACTS, now: ist('2022-12-02T16:05:00'), current: null });
    expect(release).toMatchObject({ state: 'AT_MAX', policyVersion: 0 });
  });

  it('immediate: due at once, sent with the next gateway minute', () => {
    const release = plan({ kind: 'immediate' }, '2022-12-02T16:05:10');
    expect(release).toMatchObject({ state: 'PLANNED', targetEligibility: '2022-12-02T16:00:00+05:30', sendAt: '2022-12-02T16:05:10+05:30', clamp: null });
    const send = prepareSend(release, ist('2022-12-02T16:05:10'));
    expect(send).toMatchObject({
      request: '2022-12-02 16:06:00',
      clamp: { requested: '2022-12-02T16:00:00+05:30', clampedTo: '2022-12-02T16:06:00+05:30', reason: 'in_the_past' },
    });
  });

  it('after_payment P3D: SCHEDULED to send one lead (PT1H) before 5 Dec 4:00 PM, with eligibility 5 Dec 4:00 PM', () => {
    const release = plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-02T16:05:00');
    expect(release).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T16:00:00+05:30', sendAt: '2022-12-05T15:00:00+05:30', clamp: null });
    const send = prepareSend(release, ist('2022-12-05T15:00:00'));
    expect('eligibility' in send && { ...send, eligibility: send.eligibility.toDateTime().toISO() })
      .toEqual({ eligibility: '2022-12-05T16:00:00.000+05:30', request: '2022-12-05 16:00:00', clamp: null });
  });

  it('a target later than max eligibility is clamped to it, and the clamp recorded', () => {
    const release = plan({ kind: 'after_payment', delay: 'P20D' }, '2022-12-02T16:05:00');
    expect(release).toMatchObject({
      state: 'SCHEDULED', targetEligibility: '2022-12-17T16:00:00+05:30', sendAt: '2022-12-17T15:00:00+05:30',
      clamp: { requested: '2022-12-22T16:00:00+05:30', clampedTo: '2022-12-17T16:00:00+05:30', reason: 'after_max_eligibility' },
    });
  });

  it('a send whose lead moment has passed goes at once, still with its target', () => {
    const release = plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-05T15:30:00');
    expect(release).toMatchObject({ state: 'PLANNED', sendAt: '2022-12-05T15:30:00+05:30' });
    expect(prepareSend(release, ist('2022-12-05T15:30:00'))).toMatchObject({ request: '2022-12-05 16:00:00', clamp: null });
  });

  it('after_delivery P2D waits for the delivery, then targets delivery + 2 days', () => {
    expect(plan({ kind: 'after_delivery', delay: 'P2D' }, '2022-12-02T16:05:00')).toMatchObject({ state: 'WAITING', targetEligibility: null, sendAt: null });
    const release = plan({ kind: 'after_delivery', delay: 'P2D' }, '2022-12-03T10:05:00', facts(delivered('2022-12-03T10:00:00+05:30')));
    expect(release).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T10:00:00+05:30', sendAt: '2022-12-05T09:00:00+05:30' });
  });

  it('a delivery that arrived before the payment is a fact waiting for the order', () => {
    // Arrival order: delivered, then paid. Only the facts matter once the order exists.
    const early = facts(delivered('2022-12-03T10:00:00+05:30'), event('order.paid', { transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_a', amount: 1 }] }));
    expect(plan({ kind: 'after_delivery', delay: 'P2D' }, '2022-12-03T11:00:00', early)).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T10:00:00+05:30' });
    // A delivery stamped before the payment clamps to the transaction time.
    const before = plan({ kind: 'after_delivery', delay: 'PT1H' }, '2022-12-02T15:00:00', facts(delivered('2022-12-02T12:00:00+05:30')));
    expect(before).toMatchObject({ state: 'PLANNED', targetEligibility: '2022-12-02T16:00:00+05:30', clamp: { reason: 'before_transaction' } });
  });

  it('a delivery for another vendor does not count', () => {
    expect(plan({ kind: 'after_delivery', delay: 'P2D' }, '2022-12-03T11:00:00', facts(delivered('2022-12-03T10:00:00+05:30', ['vendor_b'])))).toMatchObject({ state: 'WAITING' });
  });

  it('once the window has closed nothing can be sent: AT_MAX "window closed"', () => {
    expect(plan({ kind: 'immediate' }, '2022-12-17T16:00:00')).toMatchObject({ state: 'AT_MAX', reason: 'window closed', sendAt: null });
    expect(plan({ kind: 'after_delivery', delay: 'P2D' }, '2022-12-18T10:00:00')).toMatchObject({ state: 'AT_MAX', reason: 'window closed' });
  });
});

describe('planRelease: disputes and cancellations', () => {
  const rule: ReleaseRule = { kind: 'after_delivery', delay: 'P2D' };
  const delivery = delivered('2022-12-03T10:00:00+05:30');

  it('a dispute opened before the release is due holds it, keeping the target', () => {
    const scheduled = plan(rule, '2022-12-03T11:00:00', facts(delivery));
    const held = plan(rule, '2022-12-04T09:00:00', facts(delivery, opened('2022-12-04T09:00:00+05:30')), scheduled);
    expect(held).toMatchObject({ state: 'HELD', targetEligibility: '2022-12-05T10:00:00+05:30', sendAt: null, reason: 'dispute open' });
  });

  it('a dispute opened while the release is due but not sent holds it too', () => {
    const due = plan(rule, '2022-12-05T09:30:00', facts(delivery));
    expect(due.state).toBe('PLANNED');
    expect(plan(rule, '2022-12-05T09:31:00', facts(delivery, opened('2022-12-05T09:31:00+05:30')), due).state).toBe('HELD');
  });

  it('a dispute opened before any delivery holds with no target yet', () => {
    expect(plan(rule, '2022-12-03T09:00:00', facts(opened('2022-12-03T09:00:00+05:30')))).toMatchObject({ state: 'HELD', targetEligibility: null });
  });

  it('merchant_won resumes the rule; customer_won ends at max eligibility', () => {
    const disputed = [delivery, opened('2022-12-04T09:00:00+05:30')];
    const held = plan(rule, '2022-12-04T09:00:00', facts(...disputed));
    const resumed = plan(rule, '2022-12-04T12:00:00', facts(...disputed, closed('2022-12-04T12:00:00+05:30', 'merchant_won')), held);
    expect(resumed).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T10:00:00+05:30', sendAt: '2022-12-05T09:00:00+05:30' });
    expect(resumed.reason).toBe('rule after_delivery P2D: target 2022-12-05T10:00:00+05:30; sent at 2022-12-05T09:00:00+05:30 (releaseLead PT1H before the target)');
    const lost = plan(rule, '2022-12-04T12:00:00', facts(...disputed, closed('2022-12-04T12:00:00+05:30', 'customer_won')), held);
    expect(lost).toMatchObject({ state: 'AT_MAX', targetEligibility: '2022-12-17T16:00:00+05:30', reason: 'dispute closed customer_won: no early release' });
  });

  it('a customer who won once keeps the release at max, even after a later dispute closes merchant_won', () => {
    const f = facts(delivery, opened('2022-12-04T09:00:00+05:30'), closed('2022-12-04T12:00:00+05:30', 'customer_won'),
      opened('2022-12-05T09:00:00+05:30'), closed('2022-12-05T12:00:00+05:30', 'merchant_won'));
    expect(f.lastResolution).toBe('customer_won');
    expect(plan(rule, '2022-12-05T12:00:00', f).state).toBe('AT_MAX');
  });

  it('a cancellation before the send drops the release', () => {
    const scheduled = plan(rule, '2022-12-03T11:00:00', facts(delivery));
    expect(plan(rule, '2022-12-04T11:00:00', facts(delivery, cancelled('2022-12-04T11:00:00+05:30')), scheduled))
      .toMatchObject({ state: 'CANCELLED', sendAt: null, reason: expect.stringMatching(/^order cancelled before the release was sent \(cancelled at /) });
  });

  it('at_max ignores a cancellation, whether it arrives before or after the payment', () => {
    const atMax: ReleaseRule = { kind: 'at_max' };
    const paidFirst = plan(atMax, '2022-12-02T16:05:00');
    const cancelledLater = plan(atMax, '2022-12-03T09:00:00', facts(cancelled('2022-12-03T09:00:00+05:30')), paidFirst);
    const cancelledFirst = plan(atMax, '2022-12-03T09:00:00', facts(cancelled('2022-12-03T09:00:00+05:30')));
    expect(cancelledLater).toBe(paidFirst);
    expect(cancelledFirst).toMatchObject({ state: 'AT_MAX', targetEligibility: '2022-12-17T16:00:00+05:30', reason: expect.stringMatching(/^rule at_max/) });
  });

  it('once sent (APPLYING) or final, events change nothing: the same record comes back', () => {
    const scheduled = plan(rule, '2022-12-03T11:00:00', facts(delivery));
    const later = facts(delivery, opened('2022-12-05T09:30:00+05:30'), cancelled('2022-12-05T09:40:00+05:30'));
    for (const state of ['APPLYING', 'APPLIED', 'AT_MAX', 'CANCELLED', 'FAILED', 'SETTLED'] as const) {
      const current = { ...scheduled, state };
      expect(plan(rule, '2022-12-05T10:00:00', later, current)).toBe(current);
    }
  });

  it('replanning with nothing new gives back the current record itself', () => {
    const scheduled = plan(rule, '2022-12-03T11:00:00', facts(delivery));
    expect(plan(rule, '2022-12-04T08:00:00', facts(delivery, delivery), scheduled)).toBe(scheduled);
    const due = plan(rule, '2022-12-05T09:30:00', facts(delivery));
    expect(plan(rule, '2022-12-05T09:45:00', facts(delivery), due)).toBe(due);
  });

  it('the policy pinned on the record wins over a newer policy', () => {
    const scheduled = plan(rule, '2022-12-03T11:00:00', facts(delivery));
    const replanned = planRelease({
      order, vendorId: 'vendor_a', amount: '1250.50', policy: policyOf({ kind: 'immediate' }, 8, 2), settings,
      facts: facts(delivery), now: ist('2022-12-03T12:00:00'), current: scheduled,
    });
    expect(replanned).toBe(scheduled);
    expect(replanned).toMatchObject({ policyVersion: 1, rule, scheduleOption: 1 });
  });
});

describe('vendorFacts: events folded by their own times', () => {
  const events = [
    delivered('2022-12-03T10:00:00+05:30'),
    opened('2022-12-04T09:00:00+05:30'),
    closed('2022-12-04T12:00:00+05:30', 'merchant_won'),
    delivered('2022-12-03T18:00:00+05:30', ['vendor_a']),
    opened('2022-12-06T09:00:00+05:30'),
  ];

  it('the latest delivery counts, and the last dispute is open', () => {
    expect(facts(...events)).toEqual({ deliveredAt: Instant.fromDateTime(DateTime.fromISO('2022-12-03T18:00:00+05:30', { setZone: true })), disputeOpen: true, lastResolution: 'merchant_won', cancelledAt: null });
  });

  it('any arrival order and any duplicates give the same facts and the same plan', () => {
    const expected = facts(...events);
    const rule: ReleaseRule = { kind: 'after_delivery', delay: 'P2D' };
    const expectedPlan = plan(rule, '2022-12-06T10:00:00', expected);
    fc.assert(fc.property(
      fc.shuffledSubarray([...events, ...events, ...events], { minLength: 15, maxLength: 15 }).chain((all) => fc.shuffledSubarray(all, { minLength: 15 })),
      (shuffled) => {
        const f = facts(...shuffled);
        expect(f).toEqual(expected);
        expect(plan(rule, '2022-12-06T10:00:00', f)).toEqual(expectedPlan);
      },
    ), { numRuns: 100 });
  });

  it('a close that arrives before its open still ends closed', () => {
    expect(facts(closed('2022-12-04T12:00:00+05:30', 'merchant_won'), opened('2022-12-04T09:00:00+05:30')).disputeOpen).toBe(false);
  });

  it('a dispute opened and closed at the same instant ends closed, in either arrival order', () => {
    const open = opened('2022-12-04T09:00:00+05:30');
    const close = closed('2022-12-04T03:30:00Z', 'merchant_won');
    expect(facts(open, close)).toMatchObject({ disputeOpen: false, lastResolution: 'merchant_won' });
    expect(facts(close, open)).toMatchObject({ disputeOpen: false, lastResolution: 'merchant_won' });
  });
});

describe('answer', () => {
  const due = plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-05T15:00:00');
  const applying: VendorRelease = { ...due, state: 'APPLYING', releaseKey: 'rel-1', version: 4 };
  const keyOf = (_o: string, _v: string, version: number) => `rel-${version}`;
  const sent = Instant.fromDateTime(parseGatewayDate('2022-12-06 09:00:00')!);
  const attempt = (message: string, status = 'ERROR'): Attempt => ({
    at: at('2022-12-05T15:00:00+05:30'), request: '2022-12-06 09:00:00', httpStatus: 400, status, subCode: status === 'OK' ? '200' : '400', message,
  });
  const answer = (message: string, status = 'ERROR'): { attempts: Attempt[]; final: GatewayAnswer } => ({
    attempts: [attempt(message, status)],
    final: { kind: 'response', httpStatus: status === 'OK' ? 200 : 400, status, subCode: status === 'OK' ? '200' : '400', message },
  });
  /** The machine's write as the old shape: the release, the events it publishes, and when it sends again (null: never). */
  const apply = (release: VendorRelease, result: { attempts: Attempt[]; final: GatewayAnswer }, now = '2022-12-05T15:00:00', extra: Partial<Settings> = {}) => {
    const write = answerOf({ release, sent, request: '2022-12-06 09:00:00', result, settings: { ...settings, ...extra }, now: ist(now), keyOf });
    const events = write.effects.flatMap((e) => (e.kind === 'publish' ? [e.event] : []));
    const next = write.effects.find((e) => e.kind === 'schedule' || e.kind === 'enqueue');
    const retryAt = !next ? null : next.kind === 'schedule' ? next.at : ist(now);
    // The next send goes on with the written release, as the store would hand it back.
    return { release: { ...write.release, state: write.release.state === 'SCHEDULED' ? 'APPLYING' as const : write.release.state }, written: write.release, events, retryAt, write };
  };

  it('applied: eligibility 2022-12-06 09:00 on option 1 predicts 7 Dec 11:00 and emits vendor.release_applied', () => {
    const { release, events, retryAt } = apply(applying, answer('Updated vendor settlement eligibility date', 'OK'));
    expect(release).toMatchObject({
      state: 'APPLIED', appliedEligibility: '2022-12-06T09:00:00+05:30', predictedSettlement: '2022-12-07T11:00:00+05:30',
      sendAt: null, sends: 1, version: 5, releaseKey: null,
      reason: 'applied: eligibility 2022-12-06T09:00:00+05:30 accepted by the gateway at send 1',
    });
    expect(release.attempts).toHaveLength(1);
    expect(events).toEqual([{ type: 'vendor.release_applied', detail: { orderId: 'order_1001', vendorId: 'vendor_a', eligibility: '2022-12-06T09:00:00+05:30', predictedSettlement: '2022-12-07T11:00:00+05:30' } }]);
    expect(retryAt).toBeNull();
  });

  it('event times use the settings\' timezone', () => {
    const { events } = apply(applying, answer('Updated vendor settlement eligibility date', 'OK'), '2022-12-05T15:00:00', { timezone: 'UTC' });
    expect(events[0].detail).toMatchObject({ eligibility: '2022-12-06T03:30:00Z', predictedSettlement: '2022-12-07T05:30:00Z' });
  });

  it('terminal: FAILED with the gateway\'s reason and vendor.release_failed retryable false', () => {
    const { release, events } = apply(applying, answer('Vendor ID does not exist'));
    expect(release).toMatchObject({ state: 'FAILED', reason: 'Vendor ID does not exist', sendAt: null });
    expect(events).toEqual([{ type: 'vendor.release_failed', detail: { orderId: 'order_1001', vendorId: 'vendor_a', reason: 'Vendor ID does not exist', retryable: false } }]);
  });

  it('beyond max_eligibity_date: config.drift_detected plus vendor.release_failed', () => {
    const message = 'Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date';
    const { release, events } = apply(applying, answer(message));
    expect(release.state).toBe('FAILED');
    expect(events.map((e) => e.type)).toEqual(['config.drift_detected', 'vendor.release_failed']);
    expect(events[0].detail).toEqual({ orderId: 'order_1001', vendorId: 'vendor_a', message });
  });

  it('retryable: SCHEDULED again after a doubling backoff (60 s after the first send), no event', () => {
    const { release, written, events, retryAt } = apply(applying, answer('Settlement for the order is in progress'));
    expect(written).toMatchObject({
      state: 'SCHEDULED', sendAt: '2022-12-05T15:01:00+05:30', sends: 1, releaseKey: 'rel-5',
      reason: 'retrying: Settlement for the order is in progress; send 2 at 2022-12-05T15:01:00+05:30',
    });
    expect(retryAt?.ms).toBe(ist('2022-12-05T15:01:00').ms);
    expect(events).toEqual([]);
    const second = apply(release, answer('Settlement for the order is in progress'));
    expect(second.release).toMatchObject({ sends: 2, sendAt: '2022-12-05T15:02:00+05:30' });
    expect(second.release.attempts).toHaveLength(2);
  });

  it('backoff doubles from 30 s up to 30 min, and honours the gateway\'s retry-after', () => {
    expect([1, 2, 3, 5, 6, 11].map((n) => retryDelaySeconds(n))).toEqual([60, 120, 240, 960, 1800, 1800]);
    const limited: { attempts: Attempt[]; final: GatewayAnswer } = { attempts: [], final: { kind: 'response', httpStatus: 429, status: 'ERROR', subCode: '429', message: 'Too many requests', retryAfterSeconds: 300 } };
    expect(apply(applying, limited).release.sendAt).toEqual('2022-12-05T15:05:00+05:30');
  });

  /** A PUT that got no answer, as the client reports it: one TIMEOUT attempt. */
  const timeoutAt = (at: string): { attempts: Attempt[]; final: GatewayAnswer } => ({
    attempts: [{ at: Instant.parse(at, 'at'), request: '2022-12-06 09:00:00', httpStatus: null, status: 'TIMEOUT', subCode: null, message: 'no answer' }],
    final: { kind: 'timeout', message: 'no answer' },
  });

  it('an answer that leaves open whether the PUT applied is retried at once twice in a row (the claim reads the recon first), then backs off', () => {
    const first = apply(applying, timeoutAt('2022-12-05T15:00:00+05:30'));
    expect(first.written).toMatchObject({ state: 'SCHEDULED', sendAt: '2022-12-05T15:00:00+05:30' });
    expect(first.written.reason).toContain("it may have been applied: the gateway's order recon is read before anything is sent again");
    const second = apply(first.release, timeoutAt('2022-12-05T15:00:00+05:30'));
    expect(second.written.sendAt).toEqual('2022-12-05T15:00:00+05:30');
    const third = apply(second.release, timeoutAt('2022-12-05T15:00:00+05:30'));
    expect(third.written.sendAt).toEqual('2022-12-05T15:04:00+05:30');
    // A clean answer in between starts the count again.
    const clean = apply(second.release, answer('Settlement for the order is in progress'));
    expect(apply(clean.release, timeoutAt('2022-12-05T15:00:00+05:30')).written.sendAt).toEqual('2022-12-05T15:00:00+05:30');
  });

  it('a retryable answer never gives up while the window is open: 3.5 hours of faults, retried at least every 30 min', () => {
    const timeout = { attempts: [], final: { kind: 'response' as const, httpStatus: 400, status: 'ERROR', subCode: '400', message: 'Settlement for the order is in progress' } };
    let release = applying;
    let now = ist('2022-12-05T15:00:00');
    const end = now.plusMs(3.5 * 3_600_000);
    while (now.ms < end.ms) {
      const { written, retryAt } = apply(release, timeout, now.toDateTime().toISO()!);
      expect(written.state).toBe('SCHEDULED');
      expect(retryAt!.ms - now.ms).toBeLessThanOrEqual(BACKOFF_CAP_SECONDS * 1000);
      release = { ...written, state: 'APPLYING' };
      now = retryAt!;
    }
    // 60 s, 2, 4, 8, 16 min, then every 30 min: 11 sends in 3.5 hours, none of them final.
    expect(release.sends).toBe(11);
    // The gateway recovers: applied, with 12 days of the window left.
    expect(apply(release, answer('Updated vendor settlement eligibility date', 'OK'), now.toISO()!).written.state).toBe('APPLIED');
  });

  it('the window closing ends the retries: the last one goes just before it, then FAILED (final)', () => {
    const timeout = { attempts: [], final: { kind: 'response' as const, httpStatus: 400, status: 'ERROR', subCode: '400', message: 'Settlement for the order is in progress' } };
    const last = apply({ ...applying, sends: 20 }, timeout, '2022-12-17T15:50:00');
    expect(last.written).toMatchObject({ state: 'SCHEDULED', sendAt: '2022-12-17T15:58:00+05:30' });
    const { written, events } = apply({ ...last.release, sends: 21 }, timeout, '2022-12-17T15:58:00');
    expect(written).toMatchObject({ state: 'FAILED', reason: 'window closes at 2022-12-17T16:00:00+05:30 before another send: Settlement for the order is in progress' });
    expect(events[0]).toMatchObject({ type: 'vendor.release_failed', detail: { retryable: false } });
  });

  it('"Order ID does not exist" is retried within the retry budget (default P1D from its first answer), then FAILED', () => {
    const first = apply(applying, answer('Order ID does not exist'), '2022-12-05T15:00:00');
    expect(first.written).toMatchObject({ state: 'SCHEDULED', orderNotFoundSince: '2022-12-05T15:00:00+05:30' });
    // The gateway learns of the order 5 minutes later: the next answer is applied.
    expect(apply(first.release, answer('Updated vendor settlement eligibility date', 'OK'), '2022-12-05T15:05:00').written.state).toBe('APPLIED');
    const late = apply(first.release, answer('Order ID does not exist'), '2022-12-06T14:59:00');
    expect(late.written.state).toBe('SCHEDULED');
    expect(apply(late.release, answer('Order ID does not exist'), '2022-12-06T15:00:00').written)
      .toMatchObject({ state: 'FAILED', reason: expect.stringMatching(/^gave up after 3 sends: Order ID does not exist since 2022-12-05T15:00:00\+05:30 \(retry budget P1D\)/) });
    // A shorter budget from the settings.
    expect(apply(first.release, answer('Order ID does not exist'), '2022-12-05T15:10:00', { retryBudget: 'PT10M' }).written.state).toBe('FAILED');
  });

  it('"in the past" is retried at once (no backoff), and the next send recomputes a future time', () => {
    const { written: release, retryAt, write } = apply(applying, answer('Eligibility time specified is in the past. Specify a new time'), '2022-12-06T09:00:30');
    expect(release.state).toBe('SCHEDULED');
    expect(retryAt?.ms).toBe(ist('2022-12-06T09:00:30').ms);
    expect(release.sendAt).toEqual('2022-12-06T09:00:30+05:30');
    // Due at once: enqueued, not scheduled.
    expect(write.effects.filter((e) => e.kind === 'enqueue')).toHaveLength(1);
    const send = prepareSend({ ...release, targetEligibility: at('2022-12-06T09:00:00+05:30') }, ist('2022-12-06T09:01:20'));
    expect(send).toMatchObject({ request: '2022-12-06 09:02:00', clamp: { reason: 'in_the_past' } });
  });

  it('a replan with a longer releaseLead moves a first send (not a retry) earlier', () => {
    const scheduled = plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-02T16:05:00');
    expect(scheduled.sendAt).toEqual('2022-12-05T15:00:00+05:30');
    const replanned = plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-03T10:00:00', NO_FACTS, scheduled, { releaseLead: 'PT6H' });
    expect(replanned).toMatchObject({ state: 'SCHEDULED', sendAt: '2022-12-05T10:00:00+05:30', targetEligibility: '2022-12-05T16:00:00+05:30' });
  });

  it('a send after a clamped target has passed keeps the rule\'s original request on the clamp', () => {
    // Delivered at 12:00, before the 16:00 payment: delivery + PT1H = 13:00 was clamped to the transaction time.
    const release = plan({ kind: 'after_delivery', delay: 'PT1H' }, '2022-12-02T15:00:00', facts(delivered('2022-12-02T12:00:00+05:30')));
    expect(release.clamp).toMatchObject({ requested: '2022-12-02T13:00:00+05:30', reason: 'before_transaction' });
    expect(prepareSend(release, ist('2022-12-02T16:30:00'))).toMatchObject({
      request: '2022-12-02 16:31:00',
      clamp: { requested: '2022-12-02T13:00:00+05:30', clampedTo: '2022-12-02T16:31:00+05:30', reason: 'in_the_past' },
    });
  });

  it('a replan does not hurry a retry', () => {
    const { written } = apply(applying, answer('Settlement for the order is in progress'), '2022-12-05T15:30:00');
    const pending = written;
    expect(plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-05T15:30:10', NO_FACTS, pending)).toBe(pending);
  });
});

describe('property: a send is inside the window and strictly in the future', () => {
  const hour = 3_600_000;
  const rule = fc.oneof(
    fc.constant<ReleaseRule>({ kind: 'at_max' }),
    fc.constant<ReleaseRule>({ kind: 'immediate' }),
    fc.integer({ min: 1, max: 400 * 24 }).map<ReleaseRule>((h) => ({ kind: 'after_payment', delay: `PT${h}H` })),
    fc.integer({ min: 1, max: 400 * 24 * 60 }).map<ReleaseRule>((m) => ({ kind: 'after_delivery', delay: `PT${m}M` })),
  );

  it('for any transaction time, Defer by Days 0..365, rule, delivery, lead and now', () => {
    fc.assert(fc.property(
      fc.integer({ min: Date.parse('2022-01-01T00:00:00Z') / 1000, max: Date.parse('2027-01-01T00:00:00Z') / 1000 }),
      fc.integer({ min: 0, max: 365 }),
      rule,
      fc.option(fc.integer({ min: -5 * 24 * hour, max: 400 * 24 * hour })),
      fc.integer({ min: -24 * hour, max: 400 * 24 * hour }),
      fc.integer({ min: 0, max: 48 * 60 }),
      (txSeconds, deferByDays, release, deliveryOffset, nowOffset, leadMinutes) => {
        const tx = DateTime.fromMillis(txSeconds * 1000, { zone: 'Asia/Kolkata' });
        const record = orderAt(Instant.fromDateTime(tx), deferByDays);
        const now = Instant.fromDateTime(tx.plus({ milliseconds: nowOffset }));
        const f: VendorFacts = { ...NO_FACTS, deliveredAt: deliveryOffset === null ? null : Instant.fromDateTime(tx.plus({ milliseconds: deliveryOffset })) };
        const planned = planRelease({
          order: record, vendorId: 'vendor_a', amount: '1.00', policy: policyOf(release), settings: { ...settings, releaseLead: `PT${leadMinutes}M` },
          facts: f, now, current: null,
        });
        if (planned.state !== 'PLANNED' && planned.state !== 'SCHEDULED') return;
        const max = maxEligibility(Instant.fromDateTime(tx), deferByDays);
        for (const at of [now, planned.sendAt!]) {
          const send = prepareSend(planned, at);
          if ('skip' in send) {
            // Skipped only when the earliest time the gateway will still accept (margin included) is past max.
            expect(at.toDateTime().plus({ milliseconds: SEND_MARGIN_MS }).startOf('minute').plus({ minutes: 1 }).toMillis() > max.ms).toBe(true);
            continue;
          }
          const sentAt = parseGatewayDate(send.request)!;
          expect(sentAt.toMillis()).toBe(send.eligibility.ms);
          expect(sentAt >= tx && sentAt.toMillis() <= max.ms).toBe(true);
          expect(sentAt.toMillis() > at.ms).toBe(true);
          // ... and far enough ahead to still be in the future when the gateway processes the PUT.
          expect(sentAt.toMillis() - at.ms).toBeGreaterThanOrEqual(SEND_MARGIN_MS);
        }
      },
    ), { numRuns: 500 });
  });
});

describe('manual release and retry: which states allow them (contract 6, issue 10.2)', () => {
  const base = plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-02T16:05:00');
  const keyOf = (_o: string, _v: string, version: number) => `rel-${version}`;
  const input = (current: VendorRelease) => ({
    order, vendorId: 'vendor_a', amount: '1250.50', policy: policyOf({ kind: 'after_payment', delay: 'P3D' }), settings, facts: NO_FACTS,
    hold: null, now: ist('2022-12-02T16:10:00'), current, keyOf, cause: { kind: 'manual_release' as const, actor: 'finance' },
  });
  const request = (override = false) => ({ actor: 'finance', reason: 'goods received', at: null, override });

  it.each(['PLANNED', 'SCHEDULED', 'WAITING', 'AT_MAX', 'FAILED'] as const)('%s: released as soon as the gateway accepts', (state) => {
    const result = manualRelease(input({ ...base, state, version: 3 }), request());
    expect(result).toMatchObject({ kind: 'write', expectedVersion: 3, release: { state: 'PLANNED', version: 4, manual: { actor: 'finance', at: null, override: false } } });
  });

  it.each(['APPLYING', 'APPLIED', 'CANCELLED', 'SETTLED'] as const)('%s: refused naming the state', (state) => {
    expect(manualRelease(input({ ...base, state }), request(true))).toMatchObject({ kind: 'refused', state, message: expect.stringContaining(`is ${state}`) });
  });

  it('HELD: refused without override, released with it', () => {
    const held = { ...base, state: 'HELD' as const, holdReason: 'dispute' as const };
    expect(manualRelease(input(held), request())).toMatchObject({ kind: 'refused', message: expect.stringContaining('"override": true') });
    const disputed = { ...input(held), facts: { ...NO_FACTS, disputeOpen: true } };
    expect(manualRelease(disputed, request(true))).toMatchObject({ kind: 'write', release: { state: 'PLANNED' } });
  });

  it('after the window closed: refused, nothing can move', () => {
    const late = { ...input({ ...base, state: 'FAILED' as const }), now: ist('2022-12-17T16:00:00') };
    expect(manualRelease(late, request())).toMatchObject({ kind: 'refused', message: expect.stringContaining('window closed at 2022-12-17T16:00:00+05:30') });
    expect(retryFailed(late, request())).toMatchObject({ kind: 'refused' });
  });

  it('retry: only FAILED, planned again under its rule with a fresh budget', () => {
    expect(retryFailed(input({ ...base, state: 'APPLIED' }), request())).toMatchObject({ kind: 'refused', state: 'APPLIED' });
    const failed = { ...base, state: 'FAILED' as const, sends: 4, orderNotFoundSince: at('2022-12-02T16:06:00+05:30'), reason: 'gave up' };
    expect(retryFailed(input(failed), request())).toMatchObject({ kind: 'write', release: { state: 'SCHEDULED', orderNotFoundSince: null, sendAt: '2022-12-05T15:00:00+05:30' } });
  });
});

describe('settle', () => {
  it('keeps what the release was before it settled, and cancels a pending schedule', () => {
    const scheduled = { ...plan({ kind: 'after_payment', delay: 'P3D' }, '2022-12-02T16:05:00'), releaseKey: 'rel-1', version: 1 };
    const result = settle(scheduled, ist('2022-12-03T11:00:00'), ist('2022-12-03T11:00:05'));
    expect(result).toMatchObject({
      kind: 'write', expectedVersion: 1,
      release: { state: 'SETTLED', settledAt: '2022-12-03T11:00:00+05:30', settledFrom: { state: 'SCHEDULED', appliedEligibility: null }, releaseKey: null, sendAt: null },
    });
    expect(result.kind === 'write' && result.effects[0]).toEqual({ kind: 'cancel_schedule', releaseKey: 'rel-1' });
    expect(settle(result.release, ist('2022-12-03T11:00:00'), ist('2022-12-03T11:01:00')).kind).toBe('unchanged');
  });

  it('a release retrying after a timeout whose date the recon holds settles from APPLIED, its attempt confirmed', () => {
    const timedOut: Attempt = { at: at('2022-12-02T16:05:00+05:30'), request: '2022-12-02 16:06:00', httpStatus: null, status: 'TIMEOUT', subCode: null, message: 'no answer within 5000 ms' };
    const retrying: VendorRelease = { ...plan({ kind: 'immediate' }, '2022-12-02T16:05:00'), state: 'SCHEDULED', attempts: [timedOut], sends: 1, releaseKey: 'rel-2', version: 2 };
    const recon = { gatewayEligibility: at('2022-12-02T16:06:00+05:30'), at: at('2022-12-03T11:00:05+05:30'), settings };
    const result = settle(retrying, ist('2022-12-03T11:00:00'), ist('2022-12-03T11:00:05'), recon);
    expect(result).toMatchObject({
      kind: 'write',
      release: {
        state: 'SETTLED', appliedEligibility: '2022-12-02T16:06:00+05:30', sends: 1,
        settledFrom: { state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30', predictedSettlement: '2022-12-03T11:00:00+05:30' },
        attempts: [{
          ...timedOut, status: 'OK', confirmedFromRecon: { at: recon.at, eligibility: recon.gatewayEligibility },
          message: "no answer within 5000 ms; confirmed from the gateway's order recon at 2022-12-03T11:00:05+05:30: eligibility 2022-12-02T16:06:00+05:30 held",
        }],
      },
    });
    // A recon holding another date (the gateway's default, max eligibility) confirms nothing.
    const other = settle(retrying, ist('2022-12-18T11:00:00'), ist('2022-12-18T11:00:05'), { ...recon, gatewayEligibility: at('2022-12-17T16:00:00+05:30') });
    expect(other).toMatchObject({ release: { settledFrom: { state: 'SCHEDULED', appliedEligibility: null }, attempts: [timedOut] } });
  });
});
