/**
 * Use case: POST /jobs/{jobId}/cancel. The job ends `cancelled` at once; each step still queued then sees it and is
 * skipped (runJobStep reads the job first). A step already running finishes its page: every release is planned and
 * written whole, one conditional write each, so a cancelled job leaves each release either planned under the change or
 * as it was, both states the contract allows. A hold or a policy applied stays in force from its own answer.
 */
import { objectBody, readBody, textField } from '../body-schema';
import { ConflictError, NotFoundError } from '../errors';
import type { Dependencies } from '../ports';
import { storedInstant } from '../release-store';
import { getJob, requireJobId, type JobView } from '../job-views';

const TEXT_MAX = 200;

/**
 * The optional body of POST /jobs/{jobId}/cancel: who cancels and why. Its route reads it by this schema (and documents
 * it from it); the use case reads what it is given by the same one, so that a direct call is refused alike.
 */
export const CANCEL_BODY = objectBody({
  fields: {
    actor: textField({ limit: TEXT_MAX, absent: 'api', cut: 60, expected: 'who cancels, e.g. "finance@example.com", or leave it out', schema: { description: 'Who cancels (default "api").' } }),
    reason: textField({ limit: TEXT_MAX, absent: 'no reason given', cut: 60, expected: 'why, e.g. "started by mistake", or leave it out', schema: { description: 'Why (kept on the job as its error).' } }),
  },
  example: { actor: 'finance@example.com', reason: 'started by mistake' },
  notObject: '{"actor": "finance@example.com", "reason": "started by mistake"}, or no body',
  unknownMember: 'only actor and reason',
  unknownProblem: 'is not a field of a cancel',
  unknownMembers: 'after',
  optional: true,
});

export async function cancelJob(deps: Dependencies, jobId: string, body: unknown): Promise<JobView> {
  requireJobId(jobId);
  const { actor, reason } = readBody(CANCEL_BODY, body);
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
