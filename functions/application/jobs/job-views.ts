/** Use cases: one job (GET /jobs/{jobId}) and the jobs newest first (GET /jobs?state=&kind=&limit=&cursor=), contract 6.3. */
import { ValidationError, collectIssues, type ValidationIssue } from '../../domain/errors';
import { boundedCount, decodeCursor, encodeCursor } from '../cursor';
import { NotFoundError } from '../errors';
import { JOB_KINDS, JOB_STATES, type Dependencies, type JobKind, type JobState, type StoredJob } from '../ports';
import { inZone } from '../response-times';
import { JOB_ID_PATTERN } from './start-job';

/** A job as the API shows it: the contract's fields (times in the settings' zone) and the releases that failed by name. */
export type JobView = Omit<StoredJob, 'expected' | 'finished'>;

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
const CURSOR_LIST = 'jobs';

export async function listJobs(deps: Dependencies, params: Record<string, string | undefined>): Promise<{ items: JobView[]; nextCursor: string | null }> {
  const issues: ValidationIssue[] = [];
  const known = ['state', 'kind', 'limit', 'cursor'];
  for (const name of Object.keys(params)) {
    if (!known.includes(name)) issues.push({ field: name, problem: 'is not a parameter of GET /jobs', expected: `only ${known.join(', ')}` });
  }
  const { state, kind } = params;
  if (state !== undefined && !(JOB_STATES as readonly string[]).includes(state)) issues.push({ field: 'state', problem: `is ${JSON.stringify(state)}`, expected: `one of ${JOB_STATES.join(', ')}` });
  if (kind !== undefined && !(JOB_KINDS as readonly string[]).includes(kind)) issues.push({ field: 'kind', problem: `is ${JSON.stringify(kind)}`, expected: `one of ${JOB_KINDS.join(', ')}` });
  const limit = collectIssues(issues, () => boundedCount(params.limit, 'limit', JOB_LIMIT.min, JOB_LIMIT.max, JOB_LIMIT.default));
  const after = collectIssues(issues, () => decodeCursor(params.cursor, CURSOR_LIST));
  if (issues.length) throw new ValidationError(issues);
  const [page, settings] = await Promise.all([
    deps.jobs.list({ state: state as JobState | undefined, kind: kind as JobKind | undefined, limit: limit!, after: after ?? null }),
    deps.settings.get(),
  ]);
  return { items: page.items.map((job) => jobView(job, settings.timezone)), nextCursor: page.next ? encodeCursor(CURSOR_LIST, page.next) : null };
}
