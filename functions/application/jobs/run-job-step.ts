/**
 * Use case of the jobs function: one step of one job, as the job queue delivers it (at least once, in any order).
 * Order of writes, so that a crash or a timeout anywhere loses nothing and repeats nothing:
 *   1. read the step's items (a page of the index, or a part of an export, written) and record once that it was read: its count
 *      and the steps it opens become part of the job before those steps exist;
 *   2. enqueue the steps it opens (again on a delivery again: a step is recorded once, and its work is idempotent);
 *   3. do the items, each failure named with its release and reason, the others carrying on;
 *   4. record once that the step finished; the step that makes `finished` equal `expected` ends the job.
 */
import { describeError } from '../errors';
import type { Dependencies, JobKind, JobStep, StoredJob } from '../ports';
import { storedInstant } from '../release-store';
import type { StepWork } from '../release-walk';

export type JobStepResult = { outcome: 'done' | 'skipped'; reason?: string };

const ENDED = new Set(['succeeded', 'failed', 'cancelled']);
/** What routes export and verification steps to the function that runs them. */
const JOB_QUEUE_SETTING = 'HOLDBACK_EXPORT_JOB_QUEUE_URL names the export job queue';

/**
 * The work of one step, by the job's kind: each area's own (the release walk, config's preview, audit's export),
 * handed to the runner by the jobs function (handlers/job-steps/job-steps.ts), so that the runner imports no other area.
 */
export type JobSteps = Partial<Record<JobKind, (deps: Dependencies, job: StoredJob, step: JobStep) => Promise<StepWork>>>;

/** The runner of one step with the steps of every kind. */
export function jobStepRunner(steps: JobSteps) {
  return (deps: Dependencies, step: JobStep, attempt: { last: boolean } = { last: false }): Promise<JobStepResult> => runJobStep(deps, step, steps, attempt);
}

/** Runs one step; throws to have the queue deliver it again, except on its last attempt, when the job ends `failed`. */
async function runJobStep(deps: Dependencies, step: JobStep, steps: JobSteps, attempt: { last: boolean }): Promise<JobStepResult> {
  const job = await deps.jobs.get(step.jobId);
  if (!job) return { outcome: 'skipped', reason: `no job ${step.jobId}` };
  if (ENDED.has(job.state)) return { outcome: 'skipped', reason: `job ${job.jobId} is ${job.state}` };
  if (job.finished.includes(step.step)) return { outcome: 'skipped', reason: `step ${step.step} finished already` };
  const stepOf = steps[job.kind];
  if (!stepOf) {
    // Another function runs this kind. A step enqueued without its kind (before the kinds had queues of their own) goes
    // on to that function's queue, routed by its kind, nothing of the job recorded here; one routed by its kind already
    // reached the wrong function (no queue of its own configured), which fails it, saying so, rather than loop.
    if (step.kind !== undefined) throw new Error(`this function does not run ${job.kind} steps, and its queue has no function that does (${JOB_QUEUE_SETTING})`);
    await deps.jobQueue.enqueue([{ ...step, kind: job.kind }]);
    return { outcome: 'skipped', reason: `a ${job.kind} step is run by another function: sent on to its queue` };
  }
  try {
    const work = await stepOf(deps, job, step);
    await deps.jobs.stepRead(job.jobId, step.step, work.count, work.opened.map((s) => s.step));
    if (work.opened.length > 0) await deps.jobQueue.enqueue(work.opened.map((s) => ({ jobId: job.jobId, kind: job.kind, ...s })));
    const outcome = await work.run();
    const after = await deps.jobs.stepDone(job.jobId, step.step, outcome);
    if (after && isComplete(after)) {
      await deps.jobs.finish(job.jobId, { state: 'succeeded', at: storedInstant(deps.clock.now()), error: null, result: work.result?.() ?? after.result ?? null });
    }
    return { outcome: 'done' };
  } catch (error) {
    if (!attempt.last) throw error;
    const reason = `step ${step.step} failed on its last delivery: ${describeError(error)}`;
    deps.logger.error('job failed', { jobId: job.jobId, kind: job.kind, reason });
    await deps.jobs.finish(job.jobId, { state: 'failed', at: storedInstant(deps.clock.now()), error: reason, result: null });
    return { outcome: 'done', reason };
  }
}

/** Every step the job knows of has finished. */
function isComplete(job: StoredJob): boolean {
  const finished = new Set(job.finished);
  return job.expected.length > 0 && job.expected.every((s) => finished.has(s));
}
