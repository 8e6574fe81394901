/** Use cases: one job (GET /jobs/{jobId}) and the jobs newest first (GET /jobs?state=&kind=&limit=&cursor=), contract 6.3. */
import { ValidationError } from '../domain/errors';
import { encodeCursor } from './cursor';
import { NotFoundError } from './errors';
import { type Dependencies, type JobKind, type JobState, type StoredJob } from './ports';
import { inZone, type Shown } from './response-times';
import { JOB_ID_PATTERN } from './start-job';

/** A job as the API shows it: the contract's fields (times in the settings' zone) and the releases that failed by name. */
export type JobView = Omit<Shown<StoredJob, 'createdAt' | 'finishedAt'>, 'expected' | 'finished'>;

export function jobView(job: StoredJob, zone: string): JobView {
  return {
    jobId: job.jobId, kind: job.kind, state: job.state, total: job.total, done: job.done, failed: job.failed, actor: job.actor,
    createdAt: inZone(job.createdAt, zone), finishedAt: job.finishedAt ? inZone(job.finishedAt, zone) : null,
    error: job.error, result: job.result ?? null, params: job.params, failures: job.failures,
  };
}

export function requireJobId(jobId: string): void {
  if (!JOB_ID_PATTERN.test(jobId)) {
    throw new ValidationError([{ field: 'jobId', problem: `is ${JSON.stringify(jobId.slice(0, 60))}, not a job id`, expected: 'the jobId of an answer that started a job, e.g. "job_1669975200000_k3v9x0q2m1"' }]);
  }
}

export async function getJob(deps: Dependencies, jobId: string): Promise<JobView> {
  requireJobId(jobId);
  const [job, settings] = await Promise.all([deps.jobs.get(jobId), deps.settings.get()]);
  if (!job) throw new NotFoundError(`job ${jobId} does not exist; GET /jobs lists every job`);
  return jobView(job, settings.timezone);
}

export const JOB_LIMIT = { min: 1, max: 100, default: 20 } as const;
/** The list its cursors belong to (the route's cursor parameter reads them). */
export const JOB_CURSOR_LIST = 'jobs';

/** The jobs newest first; the query as the route's schema read it (`after`: the decoded cursor). */
export async function listJobs(
  deps: Dependencies, query: { state?: JobState; kind?: JobKind; limit?: number; after?: string | null },
): Promise<{ items: JobView[]; nextCursor: string | null }> {
  const { state, kind, limit = JOB_LIMIT.default, after = null } = query;
  const [page, settings] = await Promise.all([
    deps.jobs.list({ state, kind, limit, after }),
    deps.settings.get(),
  ]);
  return { items: page.items.map((job) => jobView(job, settings.timezone)), nextCursor: page.next ? encodeCursor(JOB_CURSOR_LIST, page.next) : null };
}
