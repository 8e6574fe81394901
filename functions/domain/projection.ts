/**
 * Where each release's money lands: the one projection that previews, the forecast, the overview, the vendor page and
 * the order view all use, so that a preview applied and the forecast after it agree day by day and currency by currency.
 */
import Decimal from './decimal';
import type { BankCalendar } from './calendar';
import { Instant } from './instant';
import { StoredDataDefect } from './errors';
import { predictSettlement } from './schedule-options';
import type { DecimalText, ReleaseState, VendorRelease } from './types';

/** Where a release's money lands, in epoch milliseconds; `firm` when the gateway was asked (APPLIED), else projected. */
export interface Landing {
  eligibilityMs: number;
  settlesMs: number;
  firm: boolean;
}

/** States sent (or being sent) at their target: the money goes with the target (or the next gateway minute, if passed). */
const SENT_AT_TARGET: readonly ReleaseState[] = ['PLANNED', 'SCHEDULED', 'APPLYING'];

/** The fields of a release the projection reads. */
export type ProjectedRelease = Pick<
  VendorRelease,
  'state' | 'targetEligibility' | 'maxEligibility' | 'appliedEligibility' | 'predictedSettlement' | 'scheduleOption'
>;

/**
 * The one rule: APPLIED lands at its predicted settlement (firm). PLANNED, SCHEDULED and APPLYING at the settlement
 * after their target (a passed target goes with `earliestMs`, the next minute the gateway accepts, never past the max
 * eligibility). WAITING (for a delivery or under an exposure cap), HELD (a dispute or a vendor hold), AT_MAX and FAILED
 * at the settlement after their max eligibility: that is where the gateway settles them if nothing else happens
 * (Holdback cannot stop a settlement). CANCELLED and SETTLED land nowhere (a cancelled order's money is refunded;
 * a settled one has landed).
 */
export function landingOf(release: ProjectedRelease, calendar: BankCalendar, earliestMs: number): Landing | null {
  if (release.state === 'CANCELLED' || release.state === 'SETTLED') return null;
  const maxMs = release.maxEligibility.ms;
  if (release.state === 'APPLIED') {
    const applied = release.appliedEligibility === null ? maxMs : release.appliedEligibility.ms;
    const settlesMs = release.predictedSettlement !== null
      ? release.predictedSettlement.ms
      : predictSettlement(Instant.at(applied), release.scheduleOption, calendar).ms;
    return { eligibilityMs: applied, settlesMs, firm: true };
  }
  let eligibilityMs = maxMs;
  if (SENT_AT_TARGET.includes(release.state) && release.targetEligibility !== null) {
    const targetMs = release.targetEligibility.ms;
    eligibilityMs = Math.min(Math.max(targetMs, earliestMs), maxMs);
  }
  return { eligibilityMs, settlesMs: predictSettlement(Instant.at(eligibilityMs), release.scheduleOption, calendar).ms, firm: false };
}

/**
 * A release's money: its amount and currency, never guessed. A release written before it kept its currency takes its
 * order's (`orderCurrency`); one with neither, or without an amount, is a defect of the stored data, reported naming
 * the release.
 */
export function moneyOf(
  release: Pick<VendorRelease, 'orderId' | 'vendorId' | 'amount' | 'currency'>, orderCurrency?: string | null,
): { amount: Decimal; currency: string } {
  const currency = release.currency ?? orderCurrency ?? null;
  const name = `release ${release.orderId}/${release.vendorId}`;
  if (typeof currency !== 'string' || currency === '') throw new StoredDataDefect(`${name} has no currency stored, nor has its order`);
  if (typeof release.amount !== 'string' || !/^\d+(\.\d+)?$/.test(release.amount)) {
    throw new StoredDataDefect(`${name} has no decimal amount stored (found ${JSON.stringify(release.amount ?? null)})`);
  }
  return { amount: new Decimal(release.amount), currency };
}

/** Count and amount of a bucket, as the API sends them. */
export interface CountAndAmount {
  count: number;
  amount: DecimalText;
}

/** Sums per key and currency, never across currencies: the building block of every total Holdback answers. */
export class CurrencyTotals<K extends string> {
  private readonly totals = new Map<string, { key: K; currency: string; count: number; amount: Decimal }>();

  add(key: K, currency: string, amount: Decimal): void {
    const id = `${key}\u0000${currency}`;
    const total = this.totals.get(id) ?? { key, currency, count: 0, amount: new Decimal(0) };
    total.count += 1;
    total.amount = total.amount.plus(amount);
    this.totals.set(id, total);
  }

  get(key: K, currency: string): CountAndAmount {
    const total = this.totals.get(`${key}\u0000${currency}`);
    return { count: total?.count ?? 0, amount: (total?.amount ?? new Decimal(0)).toFixed(2) };
  }

  /** Every currency seen, sorted. */
  currencies(): string[] {
    return [...new Set([...this.totals.values()].map((t) => t.currency))].sort();
  }
}

/**
 * Why a settled release had no prediction before its settlement (null: it had one, made when it was applied, or at
 * planning for one left at max eligibility). A prediction worked out after the settlement is no prediction: the
 * accuracy report and the CSV's mismatch column count only those made before.
 */
export function unpredictedBecause(release: Pick<VendorRelease, 'state' | 'settledFrom' | 'predictedSettlement'>): string | null {
  const before = release.state === 'SETTLED' ? release.settledFrom : null;
  if (!before) return release.state === 'SETTLED' ? 'settled with no record of what it was before' : null;
  if (before.predictedSettlement !== null) return null;
  switch (before.state) {
    case 'CANCELLED': return 'settled although its order was cancelled: nothing was sent, so nothing was predicted';
    case 'PLANNED': case 'SCHEDULED': return 'settled before Holdback sent its eligibility';
    case 'APPLYING': return 'settled while its eligibility was being sent, before the answer was recorded';
    case 'WAITING': return 'settled while waiting for an event (a delivery): nothing was predicted';
    case 'HELD': return 'settled while held (a dispute or a vendor hold): nothing was predicted';
    case 'FAILED': return 'settled after the gateway refused its eligibility: nothing was predicted';
    default: return `settled from ${before.state} with no prediction stored`;
  }
}
