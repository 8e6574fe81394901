/** Use case: the accuracy report of settlements against their predictions (the mismatch itself is the machine's, settle.ts). */
import type { Instant } from '../../domain/instant';
import { minutesBetween, predictedSettlementOf } from '../../domain/release';
import { unpredictedBecause } from '../../domain/projection';
import { ValidationError, type ValidationIssue } from '../../domain/errors';
import type { Dependencies } from '../ports';
import { queryRange } from '../outcome-rows';
import { inZone } from '../response-times';


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
    const predicted = release.settlementMismatch ? release.settlementMismatch.predicted : predictedSettlementOf(release, settings);
    const difference = Math.abs(minutesBetween(predicted, release.settledAt));
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
function accuracyRange(query: { from?: string; to?: string }): { from: Instant; to: Instant } {
  const issues: ValidationIssue[] = [];
  const range = queryRange(query, issues, true);
  if (issues.length > 0) throw new ValidationError(issues);
  return { from: range.from!, to: range.to! };
}
