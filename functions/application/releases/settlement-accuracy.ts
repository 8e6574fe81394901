/** Use cases: settlements against their predictions: the mismatch kept on the outcome with `config.drift_detected`, and the accuracy report. */
import { DateTime } from 'luxon';
import { GATEWAY_ZONE, formatInstant } from '../../domain/dates';
import type { Transition } from '../../domain/release-machine';
import { unpredictedBecause } from '../../domain/projection';
import { predictSettlement } from '../../domain/schedule-options';
import { calendarOf } from '../../domain/settings';
import type { Settings, SettlementMismatch, VendorRelease } from '../../domain/types';
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { describeError } from '../errors';
import type { Dependencies } from '../ports';
import { queryRange } from '../reads/query-outcomes';
import { inZone } from '../response-times';

const MINUTE_MS = 60_000;
const instant = (text: string): DateTime => DateTime.fromISO(text, { setZone: true });

/**
 * When the gateway settles a release, by Holdback's own reckoning: the predicted slot after the applied eligibility,
 * or, for a release Holdback never moved, the slot after its max eligibility (the gateway's default).
 */
export function predictedSettlementOf(release: VendorRelease, settings: Settings, scheduleOption = release.scheduleOption): DateTime {
  const before = release.settledFrom ?? release;
  if (before.appliedEligibility !== null) {
    if (before.predictedSettlement !== null && scheduleOption === release.scheduleOption) return instant(before.predictedSettlement);
    return predictSettlement(instant(before.appliedEligibility), scheduleOption, calendarOf(settings));
  }
  return predictSettlement(instant(release.maxEligibility), scheduleOption, calendarOf(settings));
}

/** Whole minutes from `predicted` to `settled` (negative: the gateway settled earlier). */
function minutesBetween(predicted: DateTime, settled: DateTime): number {
  return Math.round((settled.toMillis() - predicted.toMillis()) / MINUTE_MS);
}

/**
 * The settle transition with its check: a settlement at another minute than predicted keeps a `settlementMismatch`
 * on the release (so outcomes list it), and emits `config.drift_detected` saying what likely disagrees. The gateway's
 * own schedule option for the vendor (its vendor API) is asked only then, and named when the policy disagrees with it.
 */
export async function withSettlementCheck(deps: Dependencies, transition: Transition): Promise<Transition> {
  if (transition.kind !== 'write' || transition.release.settledAt === null) return transition;
  const release = transition.release;
  const settings = await deps.settings.get();
  const predicted = predictedSettlementOf(release, settings);
  const settled = instant(release.settledAt!);
  const difference = minutesBetween(predicted, settled);
  if (difference === 0) return { ...transition, release: { ...release, settlementMismatch: null } };

  const gatewayOption = await gatewayScheduleOption(deps, release.vendorId);
  const causes: string[] = [];
  if (gatewayOption !== null && gatewayOption !== release.scheduleOption) {
    const byGateway = predictedSettlementOf(release, settings, gatewayOption);
    causes.push(`the gateway settles vendor ${release.vendorId} by schedule option ${gatewayOption}, Holdback's policy says ${release.scheduleOption}`
      + (minutesBetween(byGateway, settled) === 0 ? ' (the gateway\'s option explains the settlement): update the policy' : ''));
  }
  const applied = (release.settledFrom ?? release).appliedEligibility !== null;
  if (!applied && difference < 0) {
    causes.push(`never moved, it settled before its max eligibility ${inZone(release.maxEligibility, GATEWAY_ZONE)}: the dashboard's Defer by Days is likely shorter than settings.deferByDays (${settings.deferByDays})`);
  } else if (!applied && difference > 0) {
    causes.push(`never moved, it settled after its max eligibility's slot: the dashboard's Defer by Days is likely longer than settings.deferByDays (${settings.deferByDays})`);
  }
  if (causes.length === 0) causes.push('check settings.holidays and settings.settlementDays against the gateway\'s calendar');
  const mismatch: SettlementMismatch = {
    predicted: formatInstant(predicted, GATEWAY_ZONE),
    settledAt: release.settledAt!,
    differenceMinutes: difference,
    message: `settled at ${release.settledAt}, ${Math.abs(difference)} minutes ${difference < 0 ? 'before' : 'after'} the predicted ${formatInstant(predicted, GATEWAY_ZONE)}: ${causes.join('; ')}`,
  };
  return {
    ...transition,
    release: { ...release, settlementMismatch: mismatch },
    effects: [
      ...transition.effects,
      { kind: 'publish', event: { type: 'config.drift_detected', detail: { orderId: release.orderId, vendorId: release.vendorId, message: mismatch.message } } },
    ],
  };
}

/** The gateway's schedule option for the vendor, or null when the gateway has no vendor API, no such vendor, or no answer. */
async function gatewayScheduleOption(deps: Dependencies, vendorId: string): Promise<number | null> {
  if (!deps.gatewayOrders.fetchVendor) return null;
  try {
    return (await deps.gatewayOrders.fetchVendor(vendorId))?.scheduleOption ?? null;
  } catch (error) {
    deps.logger.warn('the gateway\'s vendor could not be read; the mismatch is reported without its schedule option', { vendorId, error: describeError(error) });
    return null;
  }
}

export interface AccuracyRow {
  scheduleOption: number;
  /** Settlements the gateway reported in the range (predicted or not). */
  settled: number;
  /** Of those, settled at the minute predicted before the settlement. */
  asPredicted: number;
  /** The largest difference between a settlement and its prediction, in whole minutes (0 when all were as predicted). */
  maxDifferenceMinutes: number;
  /** Settlements that had a prediction before they happened (applied, or left at max eligibility when planned). */
  predicted: number;
  /** Settlements with no prediction before them, by reason: never counted as predicted. */
  unpredicted: number;
  unpredictedReasons: { reason: string; count: number }[];
}

/**
 * Per schedule option, how the gateway's settlement reports in [from, to] (by settlement time) compare with Holdback's
 * predictions. Read from the settled index. Only a prediction made before the settlement counts: a release settled
 * with none (cancelled, held, waiting, not yet sent) is reported apart under `unpredicted`, with its reason.
 */
export async function predictionAccuracy(
  deps: Dependencies, query: { from?: string; to?: string },
): Promise<{ from: string; to: string; scheduleOptions: AccuracyRow[] }> {
  const range = accuracyRange(query);
  const settings = await deps.settings.get();
  const rows = new Map<number, AccuracyRow>();
  for await (const { release } of deps.reads.outcomes({ by: 'settled', from: range.from, to: range.to }, null)) {
    if (release.settledAt === null) continue;
    const row = rows.get(release.scheduleOption) ?? {
      scheduleOption: release.scheduleOption, settled: 0, asPredicted: 0, maxDifferenceMinutes: 0, predicted: 0, unpredicted: 0, unpredictedReasons: [],
    };
    rows.set(release.scheduleOption, row);
    row.settled += 1;
    const unpredicted = unpredictedBecause(release);
    if (unpredicted !== null) {
      row.unpredicted += 1;
      const known = row.unpredictedReasons.find((r) => r.reason === unpredicted);
      if (known) known.count += 1;
      else row.unpredictedReasons.push({ reason: unpredicted, count: 1 });
      continue;
    }
    row.predicted += 1;
    const predicted = release.settlementMismatch ? instant(release.settlementMismatch.predicted) : predictedSettlementOf(release, settings);
    const difference = Math.abs(minutesBetween(predicted, instant(release.settledAt)));
    if (difference === 0) row.asPredicted += 1;
    row.maxDifferenceMinutes = Math.max(row.maxDifferenceMinutes, difference);
  }
  return {
    from: inZone(range.from, settings.timezone),
    to: inZone(range.to, settings.timezone),
    scheduleOptions: [...rows.values()].sort((a, b) => a.scheduleOption - b.scheduleOption),
  };
}

/** Both bounds are required (a report over all time would read every settlement); each is read as GET /outcomes reads it. */
function accuracyRange(query: { from?: string; to?: string }): { from: string; to: string } {
  const issues: ValidationIssue[] = [];
  const range = queryRange(query, issues, true);
  if (issues.length > 0) throw new ValidationError(issues);
  return { from: range.from!, to: range.to! };
}
