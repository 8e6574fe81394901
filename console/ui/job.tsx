/** A job's progress where it was started (contract 6.3): polls GET /jobs/{jobId} until it ends; a running job can be cancelled. */
import { useEffect, useState } from 'preact/hooks';
import { call, segment, type ApiProblem } from './api';
import { confirmSend, ProblemNote, requireActor, useAction } from './form';

export interface Job {
  jobId: string;
  kind: string;
  state: string;
  total: number;
  done: number;
  failed: number;
  error: string | null;
  failures?: { orderId: string; vendorId: string; reason: string }[];
  actor?: string;
  createdAt?: string;
  finishedAt?: string | null;
  result?: unknown;
  params?: Record<string, unknown>;
}

export const ENDED = ['succeeded', 'failed', 'cancelled'];

/** Polls a job until it ends, telling `onJob` each time; the ended job. */
export async function jobToEnd(jobId: string, onJob: (job: Job) => void = () => undefined): Promise<Job> {
  for (;;) {
    const job = await call<Job>('GET', `/jobs/${segment(jobId)}`);
    onJob(job);
    if (ENDED.includes(job.state)) return job;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * A preview of any size (contract 6.3): the answer itself, or, when the preview covers more releases than one answer
 * carries (202 `{job}`), the result of its job once it has run.
 */
export async function previewOfAnySize<T>(path: string, body: unknown, onJob?: (job: Job) => void): Promise<T> {
  return answerOfAnySize<T>('POST', path, body, 'The preview', 'it covers many releases', onJob);
}

/**
 * An answer of any size (contract 6.3): the answer itself, or, when the API answered 202 `{job}` instead (a preview of
 * many releases, the verification of a long audit log), the result of its job once it has run.
 */
export async function answerOfAnySize<T>(method: string, path: string, body: unknown, what: string, why: string, onJob?: (job: Job) => void): Promise<T> {
  const answer = await call<T | { job: Job }>(method, path, body);
  if (!answer || typeof answer !== 'object' || !('job' in answer) || 'previewId' in answer) return answer as T;
  const ended = await jobToEnd(answer.job.jobId, onJob);
  if (ended.state !== 'succeeded') throw new Error(`${what} ran as job ${ended.jobId} (${why}), which ${ended.state}${ended.error ? `: ${ended.error}` : ''}`);
  return ended.result as T;
}

/** Cancels a job that has not ended, after asking; the job as it is then. */
export function CancelJob({ job, onCancelled }: { job: Job; onCancelled: (job: Job) => void }) {
  const action = useAction();
  if (ENDED.includes(job.state)) return null;
  const path = `/jobs/${segment(job.jobId)}/cancel`;
  return (
    <span class="cancel-job">
      {' '}<button type="button" data-testid={`cancel-${job.jobId}`} disabled={action.busy} onClick={() => void action.run(async () => {
        const body = { actor: requireActor(), reason: 'cancelled in the console' };
        if (!confirmSend(`Cancel job ${job.jobId} (${job.kind})? Its remaining releases keep the state they have now; a hold or a policy already applied stays in force.`, 'POST', path, body)) return;
        onCancelled(await call<Job>('POST', path, body));
      })}>Cancel job</button>
      <ProblemNote problem={action.problem as ApiProblem | null} lead="Not cancelled" />
    </span>
  );
}

export function JobProgress({ job, testId }: { job: Job; testId: string }) {
  const [shown, setShown] = useState<Job>(job);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await call<Job>('GET', `/jobs/${segment(job.jobId)}`);
        if (stopped) return;
        setShown(next);
        if (!ENDED.includes(next.state)) timer = setTimeout(() => void poll(), 1000);
      } catch (error) {
        if (!stopped) setProblem(error instanceof Error ? error.message : String(error));
      }
    };
    void poll();
    return () => { stopped = true; clearTimeout(timer); };
  }, [job.jobId]);
  const finished = shown.done + shown.failed;
  return (
    <div class="job" data-testid={testId} data-state={shown.state}>
      <progress max={Math.max(shown.total, 1)} value={finished} aria-label={`job ${shown.jobId}`} />
      <span>
        {' '}Job {shown.state}: {finished} of {shown.total} releases done{shown.failed ? `, ${shown.failed} failed` : ''}
        {shown.error ? ` (${shown.error})` : ''}
      </span>
      <CancelJob job={shown} onCancelled={setShown} />
      {shown.failures?.length ? <ul>{shown.failures.slice(0, 10).map((f) => <li key={f.orderId}>{f.orderId}: {f.reason}</li>)}</ul> : null}
      {problem ? <p class="problem">Progress unknown: {problem}</p> : null}
    </div>
  );
}
