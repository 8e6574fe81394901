/** The release machine's one table, its typed reasons and its write stamps (issue 21 item 2). */
import { DateTime } from 'luxon';
import { storedRelease, toRelease } from '../../functions/adapters/dynamodb/release-reads';
import {
  MANUAL_FROM, TRANSITIONS, checkMove, waitsForExposure, checkSettlement, isFinal, isPending, isSentOrFinal, isUnsent, plan, reasonCodeOf, reasonText,
  settle, type PlanInput, type Reason,
} from '../../functions/domain/release';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import { FINAL_STATES, RELEASE_STATES, type OrderRecord, type ReleaseState, type VendorRelease } from '../../functions/domain/types';
import { maxEligibility } from '../../functions/domain/release/plan';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const ist = (text: string) => Instant.fromDateTime(DateTime.fromISO(text, { zone: 'Asia/Kolkata' }));
const paidAt = ist('2022-12-02T16:00:00');
const order: OrderRecord = {
  orderId: 'order_1001', transactionTime: paidAt.in('Asia/Kolkata').wholeSecond(),
  maxEligibility: maxEligibility(paidAt, 15).in('Asia/Kolkata').wholeSecond(), deferByDays: 15, currency: 'INR',
  vendors: [{ vendorId: 'vendor_a', amount: '1250.50' }], recordedAt: paidAt.in('Asia/Kolkata').wholeSecond(),
};

function input(now: string, current: VendorRelease | null, extra: Partial<PlanInput> = {}): PlanInput {
  return {
    order, vendorId: 'vendor_a', amount: '1250.50', settings: DEFAULT_SETTINGS, hold: null, now: ist(now), current,
    policy: { vendorId: 'vendor_a', version: 1, scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, actor: 'finance', reason: 'test', at: null },
    facts: { deliveredAt: null, disputeOpen: false, lastResolution: null, cancelledAt: null },
    keyOf: (_o, _v, version) => `rel-${version}`, cause: { kind: 'payment', actor: 'marketplace' }, ...extra,
  };
}

function written(transition: ReturnType<typeof plan>): VendorRelease {
  if (transition.kind !== 'write') throw new Error(`expected a write, got ${transition.kind}`);
  return transition.release;
}

describe('the TRANSITIONS table and the predicates read off it', () => {
  it('pending, final, plannable and "manual release from" are the states the contract names', () => {
    expect(RELEASE_STATES.filter(isPending)).toEqual(['PLANNED', 'SCHEDULED']);
    expect(RELEASE_STATES.filter(isFinal)).toEqual([...FINAL_STATES]);
    expect(RELEASE_STATES.filter((s) => !isSentOrFinal(s))).toEqual(['PLANNED', 'SCHEDULED', 'WAITING', 'HELD']);
    expect(MANUAL_FROM).toEqual(['PLANNED', 'SCHEDULED', 'WAITING', 'AT_MAX', 'FAILED']);
  });

  it('every state has a row, and nothing leaves SETTLED', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...RELEASE_STATES].sort());
    expect(TRANSITIONS.SETTLED).toEqual({});
  });

  it('an AT_MAX is open to a new rule only when its rule put it there (by code, whatever its words say)', () => {
    const atMax = (reasonCode: VendorRelease['reasonCode'], reason: string) => ({ state: 'AT_MAX' as ReleaseState, reasonCode, reason });
    expect(isUnsent(atMax('at_max_rule', 'window closed'))).toBe(true);
    expect(isUnsent(atMax('window_closed', 'rule at_max: no update'))).toBe(false);
    expect(isUnsent(atMax('customer_won', 'rule at_max: no update'))).toBe(false);
  });

  it('a move outside the table is refused, never stored', () => {
    expect(() => checkMove('SETTLED', 'settle', 'SETTLED')).toThrow(/SETTLED --settle--> SETTLED is not in the TRANSITIONS table/);
    expect(() => checkMove('APPLIED', 'answer', 'FAILED')).toThrow(/not in the TRANSITIONS table/);
    expect(() => checkMove('APPLYING', 'answer', 'FAILED')).not.toThrow();
  });
});

describe('typed reasons', () => {
  const examples: [ReleaseState, Reason][] = [
    ['SCHEDULED', { code: 'planned', why: 'rule after_payment P3D', target: 't', clamp: '', timing: 'due now' }],
    ['SCHEDULED', { code: 'retrying', why: 'Settlement for the order is in progress', send: 2, at: 't' }],
    ['WAITING', { code: 'waiting_delivery', why: 'rule after_delivery P2D' }],
    ['HELD', { code: 'vendor_hold', actor: 'finance', at: 't', why: 'audit' }],
    ['HELD', { code: 'dispute' }],
    ['AT_MAX', { code: 'at_max_rule', rule: { kind: 'at_max' }, max: 't' }],
    ['AT_MAX', { code: 'window_closed' }],
    ['AT_MAX', { code: 'customer_won' }],
    ['CANCELLED', { code: 'cancelled', at: 't' }],
    ['APPLIED', { code: 'applied', eligibility: 't', send: 1 }],
    ['APPLIED', { code: 'applied_from_recon', eligibility: 't', send: 1, why: 'had no clear answer' }],
    ['FAILED', { code: 'gateway_refused', message: 'Vendor ID does not exist' }],
    ['FAILED', { code: 'gave_up', sends: 3, why: 'Order ID does not exist', since: 't', budget: 'P1D' }],
    ['FAILED', { code: 'window_closes', max: 't', why: 'x' }],
    ['FAILED', { code: 'window_closed_retrying', max: 't', sends: 2, last: null }],
    ['SETTLED', { code: 'settled', at: 't', state: 'APPLIED', before: null }],
    ['SETTLED', { code: 'settled_cancelled', at: 't', before: 'order cancelled before the release was sent' }],
  ];
  it.each(examples)('a release stored with only the words of a %s reason gets its code back at the item mapping', (state, reason) => {
    expect(reasonCodeOf({ state, reason: reasonText(reason), holdReason: reason.code === 'vendor_hold' ? 'vendor_hold' : null })).toBe(reason.code);
  });

  it('a retry stored before codes existed still keeps its backoff when replanned (the code derived at the edge)', () => {
    const scheduled = written(plan(input('2022-12-02T16:05:00', null)));
    const retrying: VendorRelease = {
      ...scheduled, sends: 1, sendAt: at('2022-12-05T18:00:00+05:30'),
      reasonCode: 'retrying', reason: 'retrying: Settlement for the order is in progress; send 2 at 2022-12-05T18:00:00+05:30',
    };
    const old = storedRelease(retrying);
    delete old.reasonCode;
    const read = toRelease({ pk: 'ORDER#order_1001', sk: 'VENDOR#vendor_a', ...old });
    expect(read.reasonCode).toBe('retrying');
    // A hold and unhold replans it: the retry's later send time stands (the rule alone would send at 5 Dec 15:00).
    expect(plan({ ...input('2022-12-03T10:00:00', read), cause: { kind: 'unhold', actor: 'finance' } }).release.sendAt).toEqual('2022-12-05T18:00:00+05:30');
    // The words alone do not make a retry: the same release coded as planned is moved back to its rule's time.
    const planned = written(plan({ ...input('2022-12-03T10:00:00', { ...read, reasonCode: 'planned' }), cause: { kind: 'unhold', actor: 'finance' } }));
    expect(planned.sendAt).toEqual('2022-12-05T15:00:00+05:30');
  });
});

describe('one zone for write stamps', () => {
  it('updatedAt and audit records are stamped in India time whatever the settings\' zone (answers re-zone at the edge)', () => {
    const utc = { ...DEFAULT_SETTINGS, timezone: 'UTC' };
    const transition = plan({ ...input('2022-12-02T16:05:00', null), settings: utc });
    const release = written(transition);
    expect(release.updatedAt).toEqual('2022-12-02T16:05:00+05:30');
    expect(release.sendAt).toEqual('2022-12-05T09:30:00Z');
    const audits = transition.kind === 'write' ? transition.effects.filter((e) => e.kind === 'audit') : [];
    expect(audits.map((e) => e.kind === 'audit' && e.entry.at)).toEqual(['2022-12-02T16:05:00+05:30']);
    const settled = written(settle(release, Instant.fromDateTime(DateTime.fromISO('2022-12-06T05:30:00Z', { setZone: true })), ist('2022-12-06T11:01:00')));
    expect(settled).toMatchObject({ settledAt: '2022-12-06T11:00:00+05:30', updatedAt: '2022-12-06T11:01:00+05:30' });
  });
});

describe('the settlement against its prediction, inside the machine', () => {
  const applied = (): VendorRelease => ({
    ...written(plan(input('2022-12-02T16:05:00', null))), state: 'APPLIED', reasonCode: 'applied',
    appliedEligibility: at('2022-12-06T09:00:00+05:30'), predictedSettlement: at('2022-12-07T11:00:00+05:30'),
  });

  it('settled at the minute predicted: no mismatch, no event', () => {
    const checked = checkSettlement(settle(applied(), ist('2022-12-07T11:00:00'), ist('2022-12-07T11:05:00')), DEFAULT_SETTINGS, null);
    expect(checked).toMatchObject({ kind: 'write', release: { state: 'SETTLED', settlementMismatch: null }, effects: [] });
  });

  it('settled a day late on option 1 where the gateway settles by option 2: the mismatch names the option and emits config.drift_detected', () => {
    const checked = checkSettlement(settle(applied(), ist('2022-12-08T11:00:00'), ist('2022-12-08T11:05:00')), DEFAULT_SETTINGS, 2);
    expect(checked.kind).toBe('write');
    if (checked.kind !== 'write') return;
    expect(checked.release.settlementMismatch).toMatchObject({ predicted: '2022-12-07T11:00:00+05:30', differenceMinutes: 1440 });
    expect(checked.release.settlementMismatch?.message).toMatch(/the gateway settles vendor vendor_a by schedule option 2, Holdback's policy says 1/);
    expect(checked.effects).toEqual([expect.objectContaining({ kind: 'publish', event: expect.objectContaining({ type: 'config.drift_detected' }) })]);
  });
});

describe('the exposure-cap wait (contract 6.4) in the table', () => {
  const at = Instant.parse('2022-12-05T16:00:00+05:30', 'sendAt');
  it('only a WAITING release whose reason is exposure_cap, with a send time, is claimed again', () => {
    expect(waitsForExposure({ state: 'WAITING', reasonCode: 'exposure_cap', sendAt: at })).toBe(true);
    expect(waitsForExposure({ state: 'WAITING', reasonCode: 'exposure_cap', sendAt: null })).toBe(false);
    expect(waitsForExposure({ state: 'WAITING', reasonCode: 'waiting_delivery', sendAt: at })).toBe(false);
    // A claimed release has a deadline in sendAt: it is taken over after it, never treated as a cap's wait.
    for (const state of RELEASE_STATES.filter((s) => s !== 'WAITING')) {
      expect(waitsForExposure({ state, reasonCode: 'exposure_cap', sendAt: at })).toBe(false);
    }
  });

  it('the wait is not a pending send of its own (isPending stays the unguarded claims)', () => {
    expect(isPending('WAITING')).toBe(false);
    expect(() => checkMove('APPLYING', 'exposure_wait', 'WAITING')).not.toThrow();
    expect(() => checkMove('WAITING', 'claim', 'APPLYING')).not.toThrow();
  });
});
