/**
 * Use case: POST /jobs/{jobId}/cancel. The job ends `cancelled` at once; each step still queued then sees it and is
 * skipped (runJobStep reads the job first). A step already running finishes its page: every release is planned and
 * written whole, one conditional write each, so a cancelled job leaves each release either planned under the change or
 * as it was, both states the contract allows. A hold or a policy applied stays in force from its own answer.
 */
import { ValidationError, isRecord, type ValidationIssue } from '../../domain/errors';
import { ConflictError, NotFoundError } from '../errors';
import type { Dependencies } from '../ports';
import { storedInstant } from '../release-store';
import { getJob, requireJobId, type JobView } from '../job-views';

const TEXT_MAX = 200;

export async function cancelJob(deps: Dependencies, jobId: string, body: unknown): Promise<JobView> {
  requireJobId(jobId);
  const given = body === undefined || body === null ? {} : body;
  const issues: ValidationIssue[] = [];
  if (!isRecord(given)) throw new ValidationError([{ field: 'body', problem: 'is not a JSON object', expected: '{"actor": "finance@example.com", "reason": "started by mistake"}, or no body' }]);
  const text = (field: 'actor' | 'reason', fallback: string): string => {
    const value = given[field];
    if (value === undefined) return fallback;
    if (typeof value === 'string' && value.trim() !== '' && value.length <= TEXT_MAX) return value.trim();
    issues.push({ field, problem: `is ${JSON.stringify(value)?.slice(0, 60)}, not a text of 1 to ${TEXT_MAX} characters`, expected: field === 'actor' ? 'who cancels, e.g. "finance@example.com", or leave it out' : 'why, e.g. "started by mistake", or leave it out' });
    return fallback;
  };
  const actor = text('actor', 'api');
  const reason = text('reason', 'no reason given');
  for (const key of Object.keys(given)) {
    if (key !== 'actor' && key !== 'reason') issues.push({ field: key, problem: 'is not a field of a cancel', expected: 'only actor and reason' });
  }
  if (issues.length) throw new ValidationError(issues);
  const job = await deps.jobs.get(jobId);
  if (!job) throw new NotFoundError(`job ${jobId} does not exist; GET /jobs lists every job`);
  const ended = () => new ConflictError('job_ended', `job ${jobId} has ended already (${job.state}); nothing to cancel`);
  if (job.state !== 'queued' && job.state !== 'running') throw ended();
  const cancelled = await deps.jobs.finish(jobId, { state: 'cancelled', at: storedInstant(deps.clock.now()), error: `cancelled by ${actor}: ${reason}`, result: null });
  // Another step ended it between the read and the write: it is that end that holds.
  if (!cancelled) throw new ConflictError('job_ended', `job ${jobId} ended while it was being cancelled; GET /jobs/${jobId} shows how`);
  deps.logger.info('job cancelled', { jobId, kind: job.kind, actor });
  return getJob(deps, jobId);
}
