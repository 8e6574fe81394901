/** Jobs (contract 6.3): bulk changes, exports and large previews, newest first, with their state and progress, filtered; a running one can be cancelled. */
import { useState } from 'preact/hooks';
import { call, withQuery } from '../api';
import { indiaTime } from '../format';
import { Loaded, Section, SelectField, Table } from '../form';
import { CancelJob, ENDED, type Job } from '../job';
import { useLoad } from '../load';

const STATES: Array<[string, string]> = [['', 'any state'], ...['queued', 'running', 'succeeded', 'failed', 'cancelled'].map((s): [string, string] => [s, s])];
const KINDS: Array<[string, string]> = [
  ['', 'any kind'], ['vendor_hold', 'vendor hold'], ['vendor_unhold', 'vendor unhold'], ['policy_apply', 'policy applied to open orders'],
  ['outcomes_export', 'outcomes export'], ['audit_export', 'audit export'], ['policy_preview', 'policy preview'], ['settings_preview', 'settings preview'],
];
/** Jobs a page lists. */
const PAGE = 50;

/** What a job is about, in a few words: its vendor, or its export's link once written. */
function subjectOf(job: Job) {
  const result = job.result as { url?: string; rows?: number } | null | undefined;
  if (result && typeof result.url === 'string') return <a href={result.url} data-testid={`job-link-${job.jobId}`}>download ({result.rows} rows)</a>;
  const vendorId = job.params?.vendorId;
  return typeof vendorId === 'string' ? <a href={`#/vendors/${encodeURIComponent(vendorId)}`}>{vendorId}</a> : '';
}

export function JobsPage() {
  const [state, setState] = useState('');
  const [kind, setKind] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const filter = (set: (v: string) => void) => (value: string) => { set(value); setCursors([]); };
  const page = useLoad(
    () => call<{ items: Job[]; nextCursor: string | null }>('GET', withQuery('/jobs', { state, kind, limit: String(PAGE), cursor })),
    [state, kind, cursor],
  );
  const running = page.data?.items.some((j) => !ENDED.includes(j.state));
  return (
    <>
      <h1>Jobs</h1>
      <Section title="Filters">
        <div class="fields">
          <SelectField label="State" field="state" problem={page.problem ?? null} value={state} onValue={filter(setState)} options={STATES} testId="jobs-state" />
          <SelectField label="Kind" field="kind" problem={page.problem ?? null} value={kind} onValue={filter(setKind)} options={KINDS} testId="jobs-kind" />
        </div>
        <p>
          <button type="button" data-testid="jobs-refresh" onClick={() => page.reload()}>Refresh</button>
          {running ? ' Some jobs are still running: refresh to see their progress.' : ''}
        </p>
      </Section>
      <Section title="Jobs, newest first" testId="jobs">
        <Loaded state={page}>{(data) => (
          <>
            <Table
              caption={`Jobs (times India time, ${PAGE} a page)`}
              testId="jobs-table"
              empty="no job matches."
              headers={['Job', 'Kind', 'State', 'Progress (releases or rows)', 'Started', 'Ended', 'By', 'About', 'Why it ended so']}
              rows={data.items.map((job) => ({
                key: job.jobId,
                testId: `job-${job.jobId}`,
                cells: [
                  job.jobId, job.kind,
                  <span data-testid={`job-state-${job.jobId}`}>{job.state}<CancelJob job={job} onCancelled={() => page.reload()} /></span>,
                  <span><progress max={Math.max(job.total, 1)} value={job.done + job.failed} aria-label={`progress of ${job.jobId}`} /> {job.done + job.failed} of {job.total}{job.failed ? `, ${job.failed} failed` : ''}</span>,
                  job.createdAt ? indiaTime(job.createdAt) : '', job.finishedAt ? indiaTime(job.finishedAt) : '', job.actor ?? '', subjectOf(job),
                  job.error ?? (job.failures?.length ? job.failures.slice(0, 3).map((f) => `${f.orderId}: ${f.reason}`).join('; ') : ''),
                ],
              }))}
            />
            <p>
              {cursors.length > 0 ? <button type="button" data-testid="jobs-newer" onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button> : null}
              {data.nextCursor ? <button type="button" data-testid="jobs-older" onClick={() => setCursors([...cursors, data.nextCursor!])}>Older</button> : null}
            </p>
          </>
        )}</Loaded>
      </Section>
    </>
  );
}
