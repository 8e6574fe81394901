/** Use case: re-enqueue releases whose schedule, message or invocation was lost, so a loss delays a release but never drops it. */
import { Instant } from '../../domain/instant';
import { APPLYING_DEADLINE_MS, isPending, waitsForExposure } from '../../domain/release';
import type { ReleaseCommand, VendorRelease } from '../../domain/types';
import { describeError } from '../errors';
import type { Dependencies } from '../ports';
import { storedInstant } from '../release-store';

export interface SweepOptions {
  /** Releases looked at per run; the next run takes the rest. */
  limit?: number;
}

export interface SweepResult {
  examined: number;
  /** Commands put on the release queue (the release function sends them; a duplicate finds nothing to do). */
  redriven: number;
  errors: number;
}

/**
 * A PLANNED or SCHEDULED release is overdue once its schedule or message had its chance (sendAt plus the grace an
 * APPLYING release gets); an APPLYING one once its deadline passed.
 */
function isOverdue(release: VendorRelease, now: Instant): boolean {
  if (!release.sendAt || !release.releaseKey) return false;
  const sendAt = release.sendAt.ms;
  if (isPending(release.state) || waitsForExposure(release)) return sendAt + APPLYING_DEADLINE_MS < now.ms;
  if (release.state === 'APPLYING') return sendAt < now.ms;
  return false;
}

/**
 * Never calls the gateway: everything due goes through the release queue, the one send path. `listDue` may list a
 * release whose send is in flight (a claim keeps its due key, see the order repository); isOverdue checks `sendAt`.
 */
export async function sweep(deps: Dependencies, options: SweepOptions = {}): Promise<SweepResult> {
  const limit = options.limit ?? 100;
  const now = deps.clock.now();
  const due = await deps.orders.listDue(storedInstant(now), limit);
  const commands: ReleaseCommand[] = due.filter((r) => isOverdue(r, now))
    .map((r) => ({ orderId: r.orderId, vendorId: r.vendorId, releaseKey: r.releaseKey! }));
  const result: SweepResult = { examined: due.length, redriven: 0, errors: 0 };
  if (commands.length > 0) {
    try {
      await deps.queue.enqueue(commands);
      result.redriven = commands.length;
    } catch (error) {
      result.errors = commands.length;
      deps.logger.error('sweep could not enqueue overdue releases; the next run tries again', { count: commands.length, error: describeError(error) });
    }
    deps.logger.info('sweep done', { ...result });
  }
  return result;
}
