/** The domain's preview: candidates from the planner, day totals in decimal, the digest a previewId stands for. */
import { DateTime } from 'luxon';
import {
  factsOfUnsentRelease, presentPreview, previewDigest, previewReleases, totalsPerDay, type PreviewContext, type ReleasePreview,
} from '../../functions/domain/preview';
import { planRelease } from '../../functions/domain/release';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import type { OrderRecord, ReleaseRule, VendorPolicy, VendorRelease } from '../../functions/domain/types';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const NOW = Instant.fromDateTime(DateTime.fromISO('2022-12-02T16:05:00+05:30', { setZone: true }));
// The gateway's documented example: paid 2 Dec 2022 16:00, Defer by Days 15.
const ORDER: OrderRecord = {
  orderId: 'order_1001', transactionTime: at('2022-12-02T16:00:00+05:30'), maxEligibility: at('2022-12-17T16:00:00+05:30'), deferByDays: 15,
  currency: 'INR', vendors: [{ vendorId: 'vendor_a', amount: '1250.50' }], recordedAt: at('2022-12-02T16:00:00+05:30'),
};
const policy = (release: ReleaseRule, version = 1): VendorPolicy => ({
  vendorId: 'vendor_a', version, scheduleOption: 1, release, actor: 'finance@example.com', reason: 'test', at: null,
});
const NO_FACTS = { deliveredAt: null, disputeOpen: false, lastResolution: null, cancelledAt: null };

function stored(release: ReleaseRule): VendorRelease {
  return { ...planRelease({ order: ORDER, vendorId: 'vendor_a', amount: '1250.50', policy: policy(release), settings: DEFAULT_SETTINGS, facts: NO_FACTS, now: NOW, current: null }), version: 1 };
}

const same = { current: DEFAULT_SETTINGS, candidate: DEFAULT_SETTINGS };

/** One release previewed and shown as the API shows it. */
function preview(release: VendorRelease, context: Omit<PreviewContext, 'now'>) {
  const [one] = previewReleases([release], factsOfUnsentRelease, () => null, { ...context, now: NOW });
  return presentPreview(one, context.settings);
}

test("a candidate policy is planned by the domain's planner: 6 Dec 09:00 settles 7 Dec 11:00 (the gateway's example)", () => {
  const release = stored({ kind: 'at_max' });
  const previewed = preview(release, { policy: policy({ kind: 'after_payment', delay: 'P3DT17H' }, 2), settings: same });
  expect(previewed).toMatchObject({
    state: 'AT_MAX',
    current: { targetEligibility: '2022-12-17T16:00:00+05:30', predictedSettlement: '2022-12-19T11:00:00+05:30' },
    candidate: { targetEligibility: '2022-12-06T09:00:00+05:30', predictedSettlement: '2022-12-07T11:00:00+05:30' },
    moves: true,
    refusal: null,
  });
});

test('a target that has passed is predicted from the next gateway minute, as it would be sent', () => {
  const release = stored({ kind: 'at_max' });
  const previewed = preview(release, { policy: policy({ kind: 'immediate' }, 2), settings: same });
  // Sent 16:07 (the first whole minute 30 s after 16:05); option 1 settles the next working day, Saturday 3 Dec.
  expect(previewed.candidate).toEqual({ targetEligibility: '2022-12-02T16:00:00+05:30', predictedSettlement: '2022-12-03T11:00:00+05:30' });
});

test('a smaller Defer by Days: the candidate is clamped to the new max, and the current target is what the gateway would refuse', () => {
  const release = stored({ kind: 'after_payment', delay: 'P10D' });
  const previewed = preview(release, { policy: null, settings: { current: DEFAULT_SETTINGS, candidate: { ...DEFAULT_SETTINGS, deferByDays: 5 } } });
  expect(previewed.current.targetEligibility).toBe('2022-12-12T16:00:00+05:30');
  expect(previewed.candidate.targetEligibility).toBe('2022-12-07T16:00:00+05:30');
  expect(previewed.refusal).toMatch(/max eligibility 2022-12-07T16:00:00\+05:30 of Defer by Days 5/);
});

test('a vendor hold is not a dispute', () => {
  const release: VendorRelease = { ...stored({ kind: 'immediate' }), state: 'HELD', holdReason: 'vendor_hold' };
  expect(factsOfUnsentRelease(release).disputeOpen).toBe(false);
  expect(factsOfUnsentRelease({ ...release, holdReason: 'dispute' }).disputeOpen).toBe(true);
});

test('day totals add amounts as decimals, per India day and currency, and leave out releases with no settlement', () => {
  const ms = (iso: string | null) => (iso === null ? null : DateTime.fromISO(iso).toMillis());
  const row = (amount: string, current: string | null, candidate: string | null, currency = 'INR'): ReleasePreview => ({
    release: { ...stored({ kind: 'immediate' }), amount, currency }, moves: true, dropped: false, refusedPastMs: null,
    current: { targetMs: null, settlesMs: ms(current) }, candidate: { targetMs: null, settlesMs: ms(candidate) },
  });
  expect(totalsPerDay([
    row('0.10', '2022-12-07T11:00:00+05:30', '2022-12-06T23:59:00+05:30'),
    // 18:45 UTC on 6 Dec is 00:15 on 7 Dec in India.
    row('0.20', '2022-12-06T18:45:00Z', null),
    // Another currency on the same day: its own entry, never added to the rupees.
    row('5.00', '2022-12-07T11:00:00+05:30', null, 'USD'),
  ])).toEqual([
    { date: '2022-12-06', currency: 'INR', current: { count: 0, amount: '0.00' }, candidate: { count: 1, amount: '0.10' } },
    { date: '2022-12-07', currency: 'INR', current: { count: 2, amount: '0.30' }, candidate: { count: 0, amount: '0.00' } },
    { date: '2022-12-07', currency: 'USD', current: { count: 1, amount: '5.00' }, candidate: { count: 0, amount: '0.00' } },
  ]);
});

test('a release stored without its currency is reported naming it, never totalled as INR', () => {
  const release = stored({ kind: 'immediate' });
  const row: ReleasePreview = { release: { ...release, currency: undefined }, moves: false, dropped: false, refusedPastMs: null, current: { targetMs: null, settlesMs: 0 }, candidate: { targetMs: null, settlesMs: 0 } };
  expect(() => totalsPerDay([row])).toThrow(`release ${release.orderId}/vendor_a has no currency stored, nor has its order`);
});

test('the digest covers the versions, the change and the mark of the releases (the ends of the open index)', () => {
  const digest = (releases: string, version: number | string = 1, change: unknown = { scheduleOption: 1 }) =>
    previewDigest({ scope: 'policy:v', releases, versions: { policy: version, hold: 'none' }, change });
  expect(digest('a|b')).toBe(digest('a|b'));
  expect(digest('a|c')).not.toBe(digest('a|b'));
  expect(digest('a|b', 2)).not.toBe(digest('a|b'));
  expect(digest('a|b', 1, { scheduleOption: 2 })).not.toBe(digest('a|b'));
});
