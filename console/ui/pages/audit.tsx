/** Audit: whether the hash-chained log verifies, its checkpoints, the first broken link if any; and the export. */
import { useState } from 'preact/hooks';
import { apiHref, call, listOf } from '../api';
import { INDIA_TIME_EXAMPLE, INDIA_TIME_HINT, fromIndiaLocal, indiaTime, INDIA_OFFSET } from '../format';
import { Loaded, LoadedTable, Section, TextField } from '../form';
import { answerOfAnySize, ENDED, type Job } from '../job';
import { useLoad } from '../load';
import type { CheckpointSummary } from '../../../functions/contracts/api-answers';

interface Verification {
  ok: boolean;
  records: number;
  streams: number;
  checkpoints: number;
  firstBroken: null | { stream: string; sequence: number; reason: string };
  /** Records after the last checkpoint that covers their stream: chained, not yet signed. */
  unsignedRecords: number;
}


/** A hash shown whole (an auditor compares it), in a monospace cell that wraps rather than widening the page. */
function Hash({ value }: { value: string | null }) {
  return value ? <code class="hash">{value}</code> : <span>—</span>;
}

function Checkpoints({ round }: { round: number }) {
  const list = useLoad(async () => listOf<CheckpointSummary>(await call('GET', '/audit/checkpoints?limit=20')), [round]);
  return (
    <LoadedTable
      title="Signed checkpoints, newest first"
      sectionTestId="audit-checkpoints"
      state={list}
      caption="The newest 20 checkpoints: each signs every stream's head and links to the one before by its hash (times India time)"
      testId="audit-checkpoint-table"
      headers={['Number', 'Written at', 'Covers records stored until', 'Streams', 'Hash (SHA-256)', 'Previous checkpoint\'s hash', 'Merkle root', 'Signed with']}
      rows={(items) => items.map((c) => ({
        key: String(c.number),
        testId: `checkpoint-${c.number}`,
        cells: [String(c.number), indiaTime(c.at), indiaTime(c.coveredUntil), String(c.streams), <Hash value={c.hash} />, <Hash value={c.previousHash} />, <Hash value={c.root} />, `${c.algorithm}, key ${c.keyId}`],
      }))}
      empty="none written yet: the first is written at the next verification or sweep."
    />
  );
}

export function AuditPage() {
  const [round, setRound] = useState(0);
  // A long log is verified by a job (202 {job}, kind audit_verify): its progress is shown until its result is the answer.
  const [job, setJob] = useState<Job | null>(null);
  const verify = useLoad(() => answerOfAnySize<Verification>('GET', '/audit/verify', undefined, 'The verification', 'the log is long', setJob), [round]);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  return (
    <>
      <h1>Audit</h1>
      <Section title="Verification of the audit log" testId="audit-verify">
        <button type="button" onClick={() => setRound((r) => r + 1)} data-testid="audit-verify-again">Verify again</button>
        {job && verify.loading ? (
          <div class="job" data-testid="audit-verify-job" data-state={job.state}>
            <progress max={Math.max(job.total, 1)} value={job.done} aria-label={`job ${job.jobId}`} />
            {' '}The log is long, so it is verified by job {job.jobId}: {ENDED.includes(job.state) ? job.state : `${job.state}, ${job.done} of ${job.total} records checked`}.
          </div>
        ) : null}
        <Loaded state={verify}>
          {(v) => (
            <>
              {v.ok
                ? <p class="ok" role="status" data-testid="audit-result">Intact: every record chains to the one before it and every checkpoint's signature holds.</p>
                : (
                  <div class="problem" role="alert" data-testid="audit-result">
                    <strong>Broken.</strong>{' '}
                    {v.firstBroken
                      ? <span data-testid="first-broken">First broken link: stream <code>{v.firstBroken.stream}</code>, sequence {v.firstBroken.sequence}: {v.firstBroken.reason}</span>
                      : 'The log does not verify.'}
                  </div>
                )}
              <dl class="facts">
                <dt>Records</dt><dd data-testid="audit-records">{v.records}</dd>
                <dt>Streams</dt><dd>{v.streams}</dd>
                <dt>Signed checkpoints</dt><dd>{v.checkpoints}</dd>
                <dt>Records not yet signed (after the last checkpoint; chained, signed at the next one)</dt><dd data-testid="audit-unsigned">{v.unsignedRecords}</dd>
              </dl>
            </>
          )}
        </Loaded>
      </Section>
      <Checkpoints round={round} />
      <Section title="Export" testId="audit-export">
        <form aria-label="Export the audit log" onSubmit={(e) => e.preventDefault()}>
          <div class="fields">
            <TextField label={`From (India time, ${INDIA_OFFSET}); empty: the beginning`} field="from" placeholder={INDIA_TIME_EXAMPLE} hint={INDIA_TIME_HINT} problem={null} value={from} onValue={setFrom} />
            <TextField label={`To (India time, ${INDIA_OFFSET}); empty: now`} field="to" placeholder={INDIA_TIME_EXAMPLE} hint={INDIA_TIME_HINT} problem={null} value={to} onValue={setTo} />
          </div>
          <p>
            <a href={apiHref('/audit/export', { from: fromIndiaLocal(from), to: fromIndiaLocal(to) })} download="holdback-audit.jsonl" data-testid="audit-export-link">
              Download the records and signed checkpoints (JSON lines)
            </a>
            {' '}and the{' '}
            <a href={apiHref('/audit/public-key')} download="holdback-audit-public-key.pem" data-testid="audit-public-key-link">checkpoint signing public key</a>
            . Check them offline, without AWS credentials: <code>npx holdback audit verify --file holdback-audit.jsonl --public-key holdback-audit-public-key.pem</code>.
          </p>
        </form>
      </Section>
    </>
  );
}
