/** The one exponential backoff of Holdback's retries and the local edge's: a delay doubling per try, capped, with jitter. */

export interface Backoff {
  /** The delay before the first retry, before jitter. */
  firstMs: number;
  /** The largest delay, before jitter. */
  capMs: number;
  /** The random share of the delay: 1 is AWS's "full jitter" (anywhere up to the delay), 0.5 half of it, 0 none. */
  jitter: number;
}

/** The wait before retry `n` (from 1): `firstMs * 2^(n-1)` up to `capMs`, of which the `jitter` share is random. */
export function backoffDelayMs(n: number, { firstMs, capMs, jitter }: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, firstMs * 2 ** Math.min(Math.max(n - 1, 0), 30));
  return Math.floor(ceiling * (1 - jitter + random() * jitter));
}
