/** The one backoff: doubling from the first delay, capped, with its share of jitter. */
import { backoffDelayMs } from '../../kit/backoff';

const lowest = () => 0;
const highest = () => 0.999999;

test('full jitter: anywhere from 0 up to the doubling, capped ceiling (the gateway client: 200 ms first, 5 s cap)', () => {
  const gateway = { firstMs: 200, capMs: 5_000, jitter: 1 };
  expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, gateway, highest))).toEqual([199, 399, 799, 1599, 3199, 4999, 4999]);
  expect(backoffDelayMs(3, gateway, lowest)).toBe(0);
});

test('half and quarter jitter keep at least the rest of the delay (the audit store\'s faults; the local edge)', () => {
  expect(backoffDelayMs(1, { firstMs: 200, capMs: 1_600, jitter: 0.5 }, lowest)).toBe(100);
  expect(backoffDelayMs(3, { firstMs: 200, capMs: 1_600, jitter: 0.5 }, highest)).toBe(799);
  expect(backoffDelayMs(2, { firstMs: 1_000, capMs: 60_000, jitter: 0.25 }, lowest)).toBe(1_500);
});

test('a very late try does not overflow: the cap holds', () => {
  expect(backoffDelayMs(10_000, { firstMs: 1, capMs: 30_000, jitter: 0 })).toBe(30_000);
});
