/** Use case: re-drive releases whose schedule or invocation was lost, so a loss delays a release but never drops it. */
import type { DateTime } from 'luxon';
import { parseInstant } from '../domain/dates';
import type { VendorRelease } from '../domain/types';
import { describeError } from './errors';
import type { Dependencies } from './ports';
import { APPLYING_DEADLINE_MS, releaseVendor } from './release-vendor';
import { commandOf, isPending, storedInstant } from './release-writes';

export interface SweepOptions {
  /** Releases looked at per run; the next run takes the rest. */
  limit?: number;
  /** Gateway calls in flight at once. */
  concurrency?: number;
}

export interface SweepResult {
  examined: number;
  redriven: number;
  /** Outcome name → count (applied, rescheduled, failed, skipped...). */
  outcomes: Record<string, number>;
  errors: number;
}

/**
 * A PLANNED or SCHEDULED release is overdue once its schedule had its chance (sendAt plus the grace an APPLYING release
 * gets); an APPLYING one once its deadline passed.
 */
function isOverdue(release: VendorRelease, now: DateTime): boolean {
  if (!release.sendAt || !release.releaseKey) return false;
  const sendAt = parseInstant(release.sendAt, 'sendAt').toMillis();
  if (isPending(release.state)) return sendAt + APPLYING_DEADLINE_MS < now.toMillis();
  if (release.state === 'APPLYING') return sendAt < now.toMillis();
  return false;
}

export async function sweep(deps: Dependencies, options: SweepOptions = {}): Promise<SweepResult> {
  const limit = options.limit ?? 100;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const now = deps.clock.now();
  const due = await deps.orders.listDue(storedInstant(now), limit);
  const overdue = due.filter((r) => isOverdue(r, now));
  const result: SweepResult = { examined: due.length, redriven: 0, outcomes: {}, errors: 0 };

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < overdue.length) {
      const release = overdue[next++];
      const command = commandOf(release)!;
      try {
        const outcome = await releaseVendor(deps, command);
        result.redriven += 1;
        result.outcomes[outcome.outcome] = (result.outcomes[outcome.outcome] ?? 0) + 1;
      } catch (error) {
        result.errors += 1;
        deps.logger.error('sweep could not re-drive a release', { orderId: release.orderId, vendorId: release.vendorId, error: describeError(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, overdue.length) }, worker));
  if (result.redriven > 0 || result.errors > 0) deps.logger.info('sweep done', { ...result });
  return result;
}
