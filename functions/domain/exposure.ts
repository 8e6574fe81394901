/**
 * Early-release exposure (contract 6.4): money released before its order's max eligibility while the order can still
 * be refunded or disputed, per vendor and currency; the cap a policy may set on it; how it falls day by day.
 */
import Decimal from './decimal';
import { DateTime } from 'luxon';
import { formatEpochMs } from './dates';
import { type Instant, wholeSecondAt } from './instant';
import { DEFAULT_RISK_WINDOW } from './settings';
import type { DecimalText, Settings, VendorPolicy } from './types';

/** One early release's money at risk: from its send until its risk window closes. */
export interface ExposureEntry {
  vendorId: string;
  currency: string;
  orderId: string;
  amount: DecimalText;
  /** When the order can no longer come back: risk window end, never after max eligibility (see riskClosesAtMs). */
  closesAt: Instant;
  /** When the release was claimed for its early send. */
  releasedAt: Instant;
}

/**
 * The instant the money of an early release stops being exposure: `riskWindow` after the delivery (after the payment
 * when no delivery is known), but never after max eligibility, since from then on the gateway would have settled the
 * money anyway and the early release adds no risk.
 */
export function riskClosesAtMs(input: { transactionTime: Instant; maxEligibility: Instant; deliveredAt: Instant | null; settings: Settings }): number {
  const from = input.deliveredAt ?? input.transactionTime;
  const closes = from.plus(input.settings.riskWindow ?? DEFAULT_RISK_WINDOW, 'riskWindow').ms;
  return Math.min(closes, input.maxEligibility.ms);
}

/** Whether a send of `eligibilityMs` releases money before max eligibility: only those are exposure. */
export function isEarly(eligibilityMs: number, maxEligibility: Instant): boolean {
  return eligibilityMs < maxEligibility.ms;
}

function closesMs(entry: ExposureEntry): number {
  return entry.closesAt.ms;
}

/** The exposure at `nowMs` of entries of one currency: those whose risk window is still open. */
export function exposureAt(entries: readonly ExposureEntry[], nowMs: number): Decimal {
  return entries.reduce((sum, e) => (closesMs(e) > nowMs ? sum.plus(e.amount) : sum), new Decimal(0));
}

/** One day of the exposure forecast: what is still at risk at the end of that India-time (settings zone) day. */
export interface ExposureDay {
  date: string;
  amount: DecimalText;
  /** Money whose risk window closes that day. */
  closing: DecimalText;
}

/** How the exposure of one currency falls day by day, from today until the last open risk window closes. */
export function exposureForecast(entries: readonly ExposureEntry[], nowMs: number, zone: string): ExposureDay[] {
  const open = entries.filter((e) => closesMs(e) > nowMs).sort((a, b) => closesMs(a) - closesMs(b));
  if (open.length === 0) return [];
  const closingByDay = new Map<string, Decimal>();
  for (const e of open) {
    const day = formatEpochMs(closesMs(e), zone).slice(0, 10);
    closingByDay.set(day, (closingByDay.get(day) ?? new Decimal(0)).plus(e.amount));
  }
  const days: ExposureDay[] = [];
  let remaining = exposureAt(open, nowMs);
  const last = formatEpochMs(closesMs(open[open.length - 1]), zone).slice(0, 10);
  for (let day = DateTime.fromMillis(nowMs, { zone }).startOf('day'); ; day = day.plus({ days: 1 })) {
    const date = day.toISODate()!;
    const closing = closingByDay.get(date) ?? new Decimal(0);
    remaining = remaining.minus(closing);
    days.push({ date, amount: remaining.toFixed(2), closing: closing.toFixed(2) });
    if (date >= last) return days;
  }
}

/** The cap in force for one currency, or null: a policy without `maxExposure` for it caps nothing. */
export function capOf(policy: Pick<VendorPolicy, 'maxExposure'> | null | undefined, currency: string): Decimal | null {
  const cap = policy?.maxExposure?.[currency];
  return cap === undefined ? null : new Decimal(cap);
}

/** Whether one more early release fits under the cap, and if not, when it will. */
export type CapCheck =
  | { fits: true; exposure: Decimal }
  | { fits: false; exposure: Decimal; cap: Decimal; amount: Decimal; exceededBy: Decimal; fitsAtMs: number | null; message: string };

/**
 * Checks `amount` against the cap, with `entries` the vendor's other open entries of `currency`. When it does not fit,
 * `fitsAtMs` is the first instant a risk window closes that leaves room for it (null: never, the amount alone is over
 * the cap), and the message gives the figures: exposure now, the cap, this release's amount, the currency, by how much
 * a cap lower than today's exposure is exceeded.
 */
export function checkCap(input: { entries: readonly ExposureEntry[]; cap: Decimal | null; amount: DecimalText; currency: string; nowMs: number; zone: string }): CapCheck {
  const exposure = exposureAt(input.entries, input.nowMs);
  const amount = new Decimal(input.amount);
  if (input.cap === null || exposure.plus(amount).lte(input.cap)) return { fits: true, exposure };
  const cap = input.cap;
  let fitsAtMs: number | null = null;
  if (amount.lte(cap)) {
    let remaining = exposure;
    for (const e of input.entries.filter((x) => closesMs(x) > input.nowMs).sort((a, b) => closesMs(a) - closesMs(b))) {
      remaining = remaining.minus(e.amount);
      if (remaining.plus(amount).lte(cap)) { fitsAtMs = closesMs(e); break; }
    }
  }
  const exceededBy = exposure.minus(cap);
  const over = exceededBy.gt(0) ? `; the cap is already exceeded by ${exceededBy.toFixed(2)} ${input.currency}` : '';
  const when = fitsAtMs !== null
    ? `; it fits when a risk window closes at ${formatEpochMs(fitsAtMs, input.zone)}`
    : amount.gt(cap) ? '; this release alone is over the cap: it goes at max eligibility' : '';
  return {
    fits: false, exposure, cap, amount, exceededBy: exceededBy.gt(0) ? exceededBy : new Decimal(0), fitsAtMs,
    message: `exposure_cap: exposure now ${exposure.toFixed(2)} ${input.currency} plus this release's ${amount.toFixed(2)} ${input.currency} would pass the policy's maxExposure ${cap.toFixed(2)} ${input.currency}${over}${when}`,
  };
}

/** An early release a preview would send, as the cap simulation needs it. */
export interface PlannedEarlyRelease {
  orderId: string;
  vendorId: string;
  currency: string;
  amount: DecimalText;
  /** When its send would claim it (its candidate target, or now when that has passed). */
  sendMs: number;
  /** When its risk window would close. */
  closesMs: number;
}

/** A release a preview shows the cap would stop: it would wait (exposure_cap) instead of going early. */
export interface CapStop {
  orderId: string;
  vendorId: string;
  currency: string;
  amount: DecimalText;
  message: string;
}

/**
 * Which of `planned` the cap would stop, sending them in time order against today's open `entries` and those that go
 * before them (each leaves the exposure when its risk window closes). What previews show (contract 6.4). The exposure
 * of each currency is kept as it goes (the open entries by closing time, and their sum), so that 100,000 planned
 * releases cost n log n, not n squared; each stop's message (the figures, and when it would fit) is made for the
 * first `listed` stops only, and `count` counts every one.
 */
export function capStops(
  planned: readonly PlannedEarlyRelease[], entries: readonly ExposureEntry[], cap: (currency: string) => Decimal | null, zone: string,
  listed = Number.POSITIVE_INFINITY,
): { stops: CapStop[]; count: number } {
  const open = new Map<string, { heap: OpenEntry[]; sum: Decimal }>();
  const exposureOf = (currency: string) => {
    let state = open.get(currency);
    if (!state) {
      state = { heap: [], sum: new Decimal(0) };
      open.set(currency, state);
    }
    return state;
  };
  const add = (entry: ExposureEntry, closes: number) => {
    const state = exposureOf(entry.currency);
    const amount = new Decimal(entry.amount);
    heapPush(state.heap, { closes, amount, entry });
    state.sum = state.sum.plus(amount);
  };
  for (const e of entries) add(e, closesMs(e));
  const stops: CapStop[] = [];
  let count = 0;
  for (const p of [...planned].sort((a, b) => a.sendMs - b.sendMs || (a.orderId < b.orderId ? -1 : 1))) {
    const state = exposureOf(p.currency);
    // Entries whose risk window has closed by this send leave the exposure (sends come in time order).
    while (state.heap.length > 0 && state.heap[0].closes <= p.sendMs) state.sum = state.sum.minus(heapPop(state.heap).amount);
    const limit = cap(p.currency);
    if (limit === null || state.sum.plus(p.amount).lte(limit)) {
      add({ vendorId: p.vendorId, currency: p.currency, orderId: p.orderId, amount: p.amount, closesAt: wholeSecondAt(p.closesMs, 'UTC'), releasedAt: wholeSecondAt(p.sendMs, 'UTC') }, p.closesMs);
      continue;
    }
    count += 1;
    if (stops.length >= listed) continue;
    const check = checkCap({ entries: state.heap.map((o) => o.entry), cap: limit, amount: p.amount, currency: p.currency, nowMs: p.sendMs, zone });
    stops.push({ orderId: p.orderId, vendorId: p.vendorId, currency: p.currency, amount: p.amount, message: check.fits ? '' : check.message });
  }
  return { stops, count };
}

/** An entry still open, by the instant its risk window closes. */
interface OpenEntry {
  closes: number;
  amount: Decimal;
  entry: ExposureEntry;
}

/** A binary min-heap on `closes`: the entry that closes first is at [0]. */
function heapPush(heap: OpenEntry[], item: OpenEntry): void {
  heap.push(item);
  for (let i = heap.length - 1; i > 0;) {
    const parent = (i - 1) >> 1;
    if (heap[parent].closes <= heap[i].closes) break;
    [heap[parent], heap[i]] = [heap[i], heap[parent]];
    i = parent;
  }
}

function heapPop(heap: OpenEntry[]): OpenEntry {
  const top = heap[0];
  const last = heap.pop()!;
  if (heap.length > 0) {
    heap[0] = last;
    for (let i = 0; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && heap[left].closes < heap[least].closes) least = left;
      if (right < heap.length && heap[right].closes < heap[least].closes) least = right;
      if (least === i) break;
      [heap[least], heap[i]] = [heap[i], heap[least]];
      i = least;
    }
  }
  return top;
}
