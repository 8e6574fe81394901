/** Starting a job (contract 6.3): one item written and one message sent, whatever the size of the work behind it. */
import { randomBytes } from 'node:crypto';
import type { Dependencies, JobKind, JobStep, StoredJob } from './ports';
import { storedInstant } from './release-store';

/** `job_<13-digit epoch ms>_<10 base-36 characters>`: unguessable, and text order is creation order. */
export const JOB_ID_PATTERN = /^job_\d{13}_[0-9a-z]{10}$/;

/**
 * The time part is the system's (the order jobs were really created in, also where a local clock was moved or
 * frozen), and rises by a millisecond at least from one job of this process to the next, so that the list's order is
 * the order of creation.
 */
let lastIdMs = 0;
export function newJobId(): string {
  lastIdMs = Math.max(Date.now(), lastIdMs + 1);
  const random = [...randomBytes(10)].map((b) => (b % 36).toString(36)).join('');
  return `job_${String(lastIdMs).padStart(13, '0')}_${random}`;
}

/**
 * Stores the job (`queued`) and enqueues its first step; the steps it opens carry it on. A job whose first step could
 * not be enqueued is ended `failed` with the reason, so no job waits for a message that never comes.
 */
export async function startJob(
  deps: Pick<Dependencies, 'jobs' | 'jobQueue' | 'clock' | 'logger'>,
  start: { kind: JobKind; actor: string; params: Record<string, unknown>; first: Omit<JobStep, 'jobId'> },
): Promise<StoredJob> {
  const now = deps.clock.now();
  const job: StoredJob = {
    jobId: newJobId(), kind: start.kind, state: 'queued', total: 0, done: 0, failed: 0, actor: start.actor,
    createdAt: storedInstant(now), finishedAt: null, error: null, result: null, params: start.params, failures: [],
    expected: [start.first.step], finished: [],
  };
  await deps.jobs.create(job);
  try {
    await deps.jobQueue.enqueue([{ jobId: job.jobId, kind: job.kind, ...start.first }]);
  } catch (error) {
    const reason = `the job queue refused its first step: ${error instanceof Error ? error.message : String(error)}`;
    await deps.jobs.finish(job.jobId, { state: 'failed', at: storedInstant(deps.clock.now()), error: reason, result: null });
    deps.logger.error('job not started', { jobId: job.jobId, kind: job.kind, reason });
    return { ...job, state: 'failed', error: reason, finishedAt: storedInstant(deps.clock.now()) };
  }
  return job;
}
