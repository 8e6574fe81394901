/** A job's progress where it was started (contract 6.3): polls GET /jobs/{jobId} until it ends. */
import { useEffect, useState } from 'preact/hooks';
import { call, segment } from './api';

export interface Job {
  jobId: string;
  kind: string;
  state: string;
  total: number;
  done: number;
  failed: number;
  error: string | null;
  failures?: { orderId: string; vendorId: string; reason: string }[];
}

const ENDED = ['succeeded', 'failed', 'cancelled'];

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
      {shown.failures?.length ? <ul>{shown.failures.slice(0, 10).map((f) => <li key={f.orderId}>{f.orderId}: {f.reason}</li>)}</ul> : null}
      {problem ? <p class="problem">Progress unknown: {problem}</p> : null}
    </div>
  );
}
