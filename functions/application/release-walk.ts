/**
 * The jobs that walk a vendor's open releases (hold, unhold, a policy applied to open orders): one step per page of
 * the vendor's open-release index, each release planned again from what is stored now (the hold, the policy its open
 * orders follow, its events). Planning is idempotent: a release planned twice is written once, so a step delivered
 * again after a crash or a timeout changes nothing twice.
 *
 * A page is planned as a batch: the vendor's config read once for the page (not once a release), each order read and
 * its release written a few at a time, the schedule changes of different releases at once, the page's sends, events
 * and audit records each in one call, and the checks after the writes (the hold read again once, each written order's
 * events read again) before anything is left: an order whose write lost a race, missed an event or was planned from a
 * hold that changed is planned again through the one loop (planOrderReleases), as a release planned alone would be.
 */
import { plan, type Cause, type Effect, type Write } from '../domain/release';
import { describeError } from './errors';
import { planInputOf, planOrderReleases, runEffects, writeRelease } from './release-store';
import { VersionConflictError, type Dependencies, type JobFailure, type JobStep, type StoredJob } from './ports';

/**
 * Releases per step: a page of the index. At the jobs function's few hundred releases a second per step on AWS a page
 * takes a few seconds, far inside its 5 minutes; a kill or a timeout repeats at most that page (its writes changing
 * nothing twice).
 */
export const WALK_PAGE = 250;
/**
 * Orders of a page read, planned and written at once, and releases whose schedules are moved at once: with the job
 * queue's four steps at a time, 32 calls in flight, which keeps the table and the API's own requests their room.
 */
const WALK_PARALLEL = 8;

/** The step that reads page `n` of the vendor's open releases. */
export function walkStep(vendorId: string, n: number, after: string | null): Omit<JobStep, 'jobId'> {
  return { step: `${vendorId}:${n}`, vendorId, after };
}

/** Why a job plans the vendor's releases again, as the release's audit records it. */
function causeOf(job: StoredJob): Cause {
  const reason = typeof job.params.reason === 'string' ? job.params.reason : job.kind;
  if (job.kind === 'vendor_hold') return { kind: 'hold', actor: job.actor, reason };
  if (job.kind === 'vendor_unhold') return { kind: 'unhold', actor: job.actor, reason };
  return { kind: 'policy_replan', actor: job.actor, reason: `policy version ${String(job.params.version)}: ${reason}` };
}

export interface StepWork {
  /** Items this step adds to the job's total. */
  count: number;
  /** Steps this step opens (enqueued after it is recorded as read). */
  opened: Omit<JobStep, 'jobId'>[];
  /** Does the items; answers what was done and what failed, by name. */
  run(): Promise<{ done: number; failed: number; failures: JobFailure[] }>;
  /** The job's result, when this step's end ends it (an export's link); absent: null. */
  result?(): unknown;
}

/** Reads one page of the vendor's open releases and prepares planning each of them again. */
export async function walkPage(deps: Dependencies, job: StoredJob, step: JobStep): Promise<StepWork> {
  const vendorId = step.vendorId;
  if (!vendorId) throw new Error(`job step ${step.step} of ${job.jobId} names no vendor`);
  const page = await deps.reads.openOrderIds(vendorId, step.after ?? null, WALK_PAGE);
  const n = Number(step.step.slice(step.step.lastIndexOf(':') + 1));
  return {
    count: page.orderIds.length,
    opened: page.next === null ? [] : [walkStep(vendorId, n + 1, page.next)],
    run: () => planPage(deps, vendorId, page.orderIds, causeOf(job)),
  };
}

/** A release the page wrote, with the events it was planned from. */
interface PageWrite {
  orderId: string;
  transition: Write;
  events: Set<string>;
}

const isScheduleChange = (effect: Effect): boolean => effect.kind === 'schedule' || effect.kind === 'cancel_schedule';

/** Plans the vendor's release of each order of the page again (see the file's comment); each failure named, the others carrying on. */
export async function planPage(deps: Dependencies, vendorId: string, orderIds: readonly string[], cause: Cause): Promise<{ done: number; failed: number; failures: JobFailure[] }> {
  const failures = new Map<string, string>();
  const fail = (orderId: string, error: unknown) => failures.set(orderId, describeError(error));
  // Read consistently, as planOrderReleases reads it: a hold or an apply stored before the job started is seen.
  const config = await deps.config.forPlanning([vendorId]);
  const held = config.holds.get(vendorId)?.held ?? false;
  const written: PageWrite[] = [];
  /** Orders to plan again through the one loop: a write that lost a race, missed an event, or read a hold since changed. */
  const again = new Set<string>();
  await eachOrder(orderIds, async (orderId) => {
    const stored = await deps.orders.loadOrder(orderId);
    if (!stored.order || !stored.order.vendors.some((v) => v.vendorId === vendorId)) return;
    const transition = plan(planInputOf({ ...stored, order: stored.order }, vendorId, config, cause, deps.clock.now()));
    if (transition.kind === 'unchanged') return;
    try {
      await writeRelease(deps, transition);
      written.push({ orderId, transition, events: new Set(stored.events.map((e) => e.key)) });
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      again.add(orderId);
    }
  }, fail);
  // Each release's schedule changes in order, different releases' at once; then the page's sends, events and audit
  // records in one call each (runEffects logs what fails: the sweep re-drives a release stored with its sendAt).
  await eachOrder(written, (w) => runEffects(deps, w.transition.effects.filter(isScheduleChange)), fail, (w) => w.orderId);
  await runEffects(deps, written.flatMap((w) => w.transition.effects.filter((e) => !isScheduleChange(e))));
  // Write, then read (see confirmVendorHolds and recheckEvents in release-store.ts), the hold once for the page.
  const doubtful = written.filter((w) => w.transition.expectedVersion === null || w.transition.release.state === 'HELD');
  const [hold] = await Promise.all([
    doubtful.length > 0 ? deps.holds.get(vendorId) : Promise.resolve(null),
    eachOrder(written, async (w) => {
      const fresh = await deps.orders.loadOrder(w.orderId);
      if (fresh.events.some((e) => !w.events.has(e.key))) again.add(w.orderId);
    }, fail, (w) => w.orderId),
  ]);
  if (doubtful.length > 0 && (hold?.held ?? false) !== held) for (const w of doubtful) again.add(w.orderId);
  await eachOrder([...again].filter((orderId) => !failures.has(orderId)), async (orderId) => {
    await planOrderReleases(deps, orderId, { cause, vendorIds: [vendorId] });
  }, fail);
  const named: JobFailure[] = [...failures].map(([orderId, reason]) => ({ orderId, vendorId, reason }));
  return { done: orderIds.length - named.length, failed: named.length, failures: named };
}

/** Runs `work` for each item, WALK_PARALLEL at once; a failure is handed to `fail` with its order, the others carry on. */
async function eachOrder<T>(items: readonly T[], work: (item: T) => Promise<void>, fail: (orderId: string, error: unknown) => void, orderOf: (item: T) => string = String): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(WALK_PARALLEL, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      try {
        await work(item);
      } catch (error) {
        fail(orderOf(item), error);
      }
    }
  }));
}
