/** Use cases: settlements against their predictions: the mismatch kept on the outcome with `config.drift_detected`, and the accuracy report. */
import { DateTime } from 'luxon';
import {
  checkSettlement, minutesBetween, predictedSettlementOf, settledOffPrediction, type Transition,
} from '../../domain/release';
import { unpredictedBecause } from '../../domain/projection';
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import { describeError } from '../errors';
import type { Dependencies } from '../ports';
import { queryRange } from '../reads/query-outcomes';
import { inZone } from '../response-times';

const instant = (text: string): DateTime => DateTime.fromISO(text, { setZone: true });

/**
 * The settle transition with its check (the domain's checkSettlement): the gateway's own schedule option for the
 * vendor (its vendor API) is asked only when the settlement is off its prediction.
 */
export async function withSettlementCheck(deps: Dependencies, transition: Transition): Promise<Transition> {
  if (transition.kind !== 'write' || transition.release.settledAt === null) return transition;
  const settings = await deps.settings.get();
  const gatewayOption = settledOffPrediction(transition, settings) ? await gatewayScheduleOption(deps, transition.release.vendorId) : null;
  return checkSettlement(transition, settings, gatewayOption);
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
