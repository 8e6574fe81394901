/**
 * Use case: held money the gateway settles anyway soon (contract 6.4). At this gateway a hold only stops an early
 * release: at max eligibility the gateway settles whatever Holdback holds. Every HELD release whose settlement after
 * its max eligibility falls within the settings' `holdWarning` is an alert (the overview, GET /alerts/held-settling,
 * and the HeldSettlingSoon metric on AWS).
 */
import { INDIA_TIME, formatEpochMs } from '../../domain/dates';
import { DAY_MS, wholeSecondAt } from '../../domain/instant';
import { landingOf, moneyOf, CurrencyTotals } from '../../domain/projection';
import { DEFAULT_HOLD_WARNING, calendarOf } from '../../domain/settings';
import type { HoldReason, HoldSource } from '../../domain/types';
import { DEFAULT_HOLD_SOURCE } from '../../domain/hold-sources';
import { nextGatewayMinuteMs } from '../../domain/release/plan';
import type { Dependencies } from '../ports';
import { inZone } from '../response-times';
import { LONGEST_SETTLEMENT_DAYS, knownVendorPages } from './read-vendors';
import { vendorHoldSources } from '../release-views';


export interface HeldSettling {
  orderId: string;
  vendorId: string;
  amount: string;
  currency: string;
  holdReason: HoldReason | null;
  holdSource: HoldSource;
  maxEligibility: string;
  /** When the gateway settles it anyway: the settlement after its max eligibility. */
  settlesAnywayAt: string;
}

export interface HeldSettlingReport {
  holdWarning: string;
  /** Held money settling until this instant is listed. */
  until: string;
  /** Soonest first, at most `limit` of them (the answer stays far below Lambda's 6 MB); `count` and `totals` cover all. */
  items: HeldSettling[];
  /** Held releases settling within the warning, listed or not. */
  count: number;
  /** Of those, how many `limit` left out of `items`. */
  omitted: number;
  /** Per currency, never added across currencies. */
  totals: { currency: string; count: number; amount: string }[];
}

/** Held releases listed in one answer by default and at most (`?limit=`); the count and the totals cover every one. */
export const HELD_SETTLING_LISTED = { min: 0, default: 200, max: 1000 };

/** Every held release that the gateway settles anyway within `holdWarning`, soonest first (one vendor's, or every vendor's). */
export async function heldSettlingSoon(deps: Dependencies, vendorId?: string, limit: number = HELD_SETTLING_LISTED.default): Promise<HeldSettlingReport> {
  const settings = await deps.settings.get();
  const now = deps.clock.now();
  const warning = settings.holdWarning ?? DEFAULT_HOLD_WARNING;
  const untilMs = now.plus(warning, 'holdWarning').ms;
  const calendar = calendarOf(settings);
  const earliestMs = nextGatewayMinuteMs(now.ms);
  // Open releases by max eligibility: a settlement within the warning has its max eligibility before its end.
  const range = { from: now.plusMs(-LONGEST_SETTLEMENT_DAYS * DAY_MS).in(INDIA_TIME).wholeSecond(), to: wholeSecondAt(untilMs, INDIA_TIME) };
  const items: HeldSettling[] = [];
  const totals = new CurrencyTotals<'held'>();
  const readVendor = async (id: string): Promise<void> => {
    const held = [];
    for await (const row of deps.reads.openReleases(id, range)) if (row.release.state === 'HELD') held.push(row);
    if (held.length === 0) return;
    const sources = await vendorHoldSources(deps, held.map((r) => r.release));
    for (const { release, order } of held) {
      const landing = landingOf(release, calendar, earliestMs);
      if (landing === null || landing.settlesMs > untilMs) continue;
      const { amount, currency } = moneyOf(release, order?.currency);
      totals.add('held', currency, amount);
      items.push({
        orderId: release.orderId, vendorId: release.vendorId, amount: amount.toFixed(2), currency, holdReason: release.holdReason ?? null,
        holdSource: release.holdReason === 'dispute' ? 'dispute' : sources.get(release.vendorId) ?? DEFAULT_HOLD_SOURCE,
        maxEligibility: inZone(release.maxEligibility, settings.timezone)!, settlesAnywayAt: formatEpochMs(landing.settlesMs, settings.timezone),
      });
    }
  };
  if (vendorId !== undefined) {
    await readVendor(vendorId);
  } else {
    for await (const page of knownVendorPages(deps, 100)) for (const id of page) await readVendor(id);
  }
  items.sort((a, b) => Date.parse(a.settlesAnywayAt) - Date.parse(b.settlesAnywayAt) || (a.orderId < b.orderId ? -1 : 1));
  return {
    holdWarning: warning,
    until: formatEpochMs(untilMs, settings.timezone),
    items: items.slice(0, limit),
    count: items.length,
    omitted: Math.max(0, items.length - limit),
    totals: totals.currencies().map((currency) => ({ currency, ...totals.get('held', currency) })),
  };
}
