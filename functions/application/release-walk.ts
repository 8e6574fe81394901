/**
 * The jobs that walk a vendor's open releases (hold, unhold, a policy applied to open orders): one step per page of
 * the vendor's open-release index, each release planned again from what is stored now (the hold, the policy its open
 * orders follow, its events). Planning is idempotent: a release planned twice is written once, so a step delivered
 * again after a crash or a timeout changes nothing twice.
 */
import type { Cause } from '../domain/release';
import { describeError } from './errors';
import { planOrderReleases } from './release-store';
import type { Dependencies, JobFailure, JobStep, StoredJob } from './ports';

/** Releases per step: a page of the index, planned a few at a time, well inside the jobs function's timeout. */
export const WALK_PAGE = 100;
/** Releases of one step planned at once (each is a few reads and one conditional write). */
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
  const cause = causeOf(job);
  return {
    count: page.orderIds.length,
    opened: page.next === null ? [] : [walkStep(vendorId, n + 1, page.next)],
    run: async () => {
      const failures: JobFailure[] = [];
      let done = 0;
      const queue = [...page.orderIds];
      await Promise.all(Array.from({ length: WALK_PARALLEL }, async () => {
        for (let orderId = queue.shift(); orderId !== undefined; orderId = queue.shift()) {
          try {
            await planOrderReleases(deps, orderId, { cause, vendorIds: [vendorId] });
            done += 1;
          } catch (error) {
            failures.push({ orderId, vendorId, reason: describeError(error) });
          }
        }
      }));
      return { done, failed: failures.length, failures };
    },
  };
}
