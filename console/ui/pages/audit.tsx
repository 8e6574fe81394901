/** Audit: whether the hash-chained log verifies, its checkpoints, the first broken link if any; and the export. */
import { useState } from 'preact/hooks';
import { apiHref, call } from '../api';
import { fromIndiaLocal, INDIA_OFFSET } from '../format';
import { Loaded, Section, TextField } from '../form';
import { useLoad } from '../load';

interface Verification {
  ok: boolean;
  records: number;
  streams: number;
  checkpoints: number;
  firstBroken: null | { stream: string; sequence: number; reason: string };
  /** Records after the last checkpoint that covers their stream: chained, not yet signed. */
  unsignedRecords: number;
}

export function AuditPage() {
  const [round, setRound] = useState(0);
  const verify = useLoad(() => call<Verification>('GET', '/audit/verify'), [round]);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  return (
    <>
      <h1>Audit</h1>
      <Section title="Verification of the audit log" testId="audit-verify">
        <button type="button" onClick={() => setRound((r) => r + 1)} data-testid="audit-verify-again">Verify again</button>
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
      <Section title="Export" testId="audit-export">
        <form aria-label="Export the audit log" onSubmit={(e) => e.preventDefault()}>
          <div class="fields">
            <TextField label={`From (India time, ${INDIA_OFFSET}); empty: the beginning`} field="from" type="datetime-local" problem={null} value={from} onValue={setFrom} />
            <TextField label={`To (India time, ${INDIA_OFFSET}); empty: now`} field="to" type="datetime-local" problem={null} value={to} onValue={setTo} />
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
