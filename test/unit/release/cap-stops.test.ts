/**
 * A policy preview's cap simulation (contract 6.4) kept as it goes: the same stops, in the same order with the same
 * figures, as sending each planned release against every entry still open (checkCap over all of them), and bounded
 * messages with a count of every stop.
 */
import Decimal from '../../../functions/domain/decimal';
import { capStops, checkCap, type ExposureEntry, type PlannedEarlyRelease } from '../../../functions/domain/exposure';
import { formatEpochMs } from '../../../functions/domain/dates';
import { wholeSecondAt } from '../../../functions/domain/instant';
import { at } from '../../times';

const T0 = Date.parse('2022-12-02T10:30:00Z');
const HOUR = 3_600_000;
const ZONE = 'Asia/Kolkata';

/** The simulation as its definition says: every send checked against every entry so far (n squared). */
function reference(planned: PlannedEarlyRelease[], entries: ExposureEntry[], cap: (c: string) => Decimal | null) {
  const going = [...entries];
  const stops: { orderId: string; message: string }[] = [];
  for (const p of [...planned].sort((a, b) => a.sendMs - b.sendMs || (a.orderId < b.orderId ? -1 : 1))) {
    const check = checkCap({ entries: going.filter((e) => e.currency === p.currency), cap: cap(p.currency), amount: p.amount, currency: p.currency, nowMs: p.sendMs, zone: ZONE });
    if (check.fits) going.push({ vendorId: p.vendorId, currency: p.currency, orderId: p.orderId, amount: p.amount, closesAt: wholeSecondAt(p.closesMs, 'UTC'), releasedAt: wholeSecondAt(p.sendMs, 'UTC') });
    else stops.push({ orderId: p.orderId, message: check.message });
  }
  return stops;
}

test('the same stops and figures as checking every send against every open entry, in two currencies', () => {
  // A fixed pseudo-random walk (no Math.random: the test is the same every run).
  let seed = 7;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const entries: ExposureEntry[] = Array.from({ length: 20 }, (_, i) => ({
    vendorId: 'v', currency: i % 3 === 0 ? 'USD' : 'INR', orderId: `open_${i}`, amount: (100 + Math.floor(next() * 900)).toFixed(2),
    closesAt: wholeSecondAt(T0 + Math.floor(next() * 72) * HOUR, 'UTC'), releasedAt: wholeSecondAt(T0 - HOUR, 'UTC'),
  }));
  const planned: PlannedEarlyRelease[] = Array.from({ length: 400 }, (_, i) => {
    const sendMs = T0 + Math.floor(next() * 240) * HOUR;
    return { orderId: `o_${String(i).padStart(4, '0')}`, vendorId: 'v', currency: i % 4 === 0 ? 'USD' : 'INR', amount: (50 + Math.floor(next() * 700)).toFixed(2), sendMs, closesMs: sendMs + (1 + Math.floor(next() * 96)) * HOUR };
  });
  const cap = (c: string) => (c === 'INR' ? new Decimal('5000.00') : new Decimal('1500.00'));
  const expected = reference(planned, entries, cap);
  expect(expected.length).toBeGreaterThan(20);
  const { stops, count } = capStops(planned, entries, cap, ZONE);
  expect(count).toBe(expected.length);
  expect(stops.map((s) => ({ orderId: s.orderId, message: s.message }))).toEqual(expected);

  // Listed up to a bound, counted all.
  const bounded = capStops(planned, entries, cap, ZONE, 5);
  expect(bounded).toEqual({ stops: stops.slice(0, 5), count: expected.length });
  // No cap: nothing stops.
  expect(capStops(planned, entries, () => null, ZONE)).toEqual({ stops: [], count: 0 });
});
