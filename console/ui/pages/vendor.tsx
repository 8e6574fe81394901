/** One vendor: its policy and hold, the policy editor (preview first, then apply that preview), its history and releases. */
import { useState } from 'preact/hooks';
import { call, listOf, segment, withQuery } from '../api';
import { indiaTime, money, ruleText } from '../format';
import { confirmSend, Loaded, LoadedTable, NOT_CONFIRMED, ProblemNote, ReasonField, requireActor, Section, SelectField, Table, TextField, useAction } from '../form';
import { useLoad } from '../load';
import { PreviewView, type PreviewAnswer } from '../preview';
import { JobProgress, previewOfAnySize, type Job } from '../job';
import { exposureText, findVendor, holdOf, holdText, openText, ReleaseTable, type Release, type VendorSummary } from '../releases';

interface Policy {
  vendorId: string;
  version: number;
  scheduleOption: number;
  release: { kind: string; delay?: string };
  actor?: string;
  reason?: string;
  at?: string | null;
}

const RULES: Array<[string, string]> = [
  ['at_max', 'at max: the gateway default, transaction time + Defer by Days'],
  ['immediate', 'immediate: as soon as the payment is known'],
  ['after_payment', 'after payment + delay'],
  ['after_delivery', 'after delivery + delay (a dispute holds it)'],
];

/** Hold sources, strongest first: lifting a hold needs its own source or a stronger one (contract 6.4). */
const HOLD_SOURCES: Array<[string, string]> = [
  ['finance', 'finance (default)'],
  ['risk', 'risk'],
  ['dispute', 'dispute (strongest)'],
  ['vendor_request', 'vendor request (weakest)'],
];

function HoldControl({ vendorId, held, onChanged }: { vendorId: string; held: boolean | null; onChanged: () => void }) {
  const [reason, setReason] = useState('');
  const [source, setSource] = useState('finance');
  const [done, setDone] = useState<string | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const action = useAction();
  const send = (what: 'hold' | 'unhold') => action.run(async () => {
    const actor = requireActor();
    const path = `/vendors/${segment(vendorId)}/${what}`;
    const summary = what === 'hold'
      ? `Hold vendor ${vendorId}: none of its unsent releases, nor those of its new orders, is sent until unhold.`
      : `Unhold vendor ${vendorId}: its releases are planned again (a passed target goes with the next gateway minute).`;
    if (!confirmSend(summary, 'POST', path, { actor, reason, source })) {
      setDone(NOT_CONFIRMED);
      return;
    }
    const answer = await call<{ job: Job | null }>('POST', path, { actor, reason, source });
    setJob(answer.job);
    setDone(what === 'hold' ? 'Held: nothing of this vendor is sent from now on, until unhold.' : 'Unheld: its releases are planned again.');
    setReason('');
    onChanged();
  });
  return (
    <form aria-label="Hold or unhold the vendor" onSubmit={(e) => e.preventDefault()}>
      <ReasonField problem={action.problem} value={reason} onValue={setReason} testId="hold-reason" />
      <SelectField label="Source (lifting needs the same or a stronger one: dispute, risk, finance, vendor request)" field="source" problem={action.problem} value={source} onValue={setSource} options={HOLD_SOURCES} testId="hold-source" />
      <button type="button" disabled={action.busy || held === true} data-testid="hold" onClick={() => void send('hold')}>Hold vendor</button>
      <button type="button" disabled={action.busy || held === false} data-testid="unhold" class="secondary" onClick={() => void send('unhold')}>Unhold vendor</button>
      <ProblemNote problem={action.problem} shownFields={['reason', 'source']} testId="hold-problem" />
      {done ? <p class="ok" role="status" data-testid="hold-done">{done}</p> : null}
      {job ? <JobProgress key={job.jobId} job={job} testId="hold-job" /> : null}
    </form>
  );
}

function PolicyEditor({ vendorId, current, onApplied }: { vendorId: string; current: Policy; onApplied: () => void }) {
  const [scheduleOption, setScheduleOption] = useState(String(current.scheduleOption));
  const [kind, setKind] = useState(current.release.kind);
  const [delay, setDelay] = useState(current.release.delay ?? 'P2D');
  const [applyTo, setApplyTo] = useState('open_orders');
  const [reason, setReason] = useState('');
  const [preview, setPreview] = useState<{ key: string; answer: PreviewAnswer } | null>(null);
  const [applied, setApplied] = useState<(Policy & { job?: Job | null }) | null>(null);
  const action = useAction();
  const takesDelay = kind === 'after_payment' || kind === 'after_delivery';
  const body = () => ({
    scheduleOption: /^\d+$/.test(scheduleOption.trim()) ? Number(scheduleOption) : scheduleOption,
    release: takesDelay ? { kind, delay } : { kind },
    actor: requireActor(),
    reason,
    applyTo,
  });
  // A preview stands for exactly the body it was made from: any edit asks for a new one.
  const key = JSON.stringify([scheduleOption, kind, takesDelay ? delay : '', applyTo, reason]);
  const shown = preview && preview.key === key ? preview.answer : null;
  const fields = ['scheduleOption', 'release', 'kind', 'delay', 'applyTo', 'reason', 'actor', 'previewId', 'expectedVersion'];
  return (
    <form aria-label="Change the policy" data-testid="policy-editor" onSubmit={(e) => {
      e.preventDefault();
      void action.run(async () => {
        const answer = await previewOfAnySize<PreviewAnswer>(`/vendors/${segment(vendorId)}/policy/preview`, body());
        setPreview({ key, answer });
        setApplied(null);
      });
    }}>
      <div class="fields">
        <TextField label="Schedule option (gateway id)" field="scheduleOption" problem={action.problem} value={scheduleOption} onValue={setScheduleOption} testId="policy-schedule-option" />
        <SelectField label="Release rule" field="kind" problem={action.problem} value={kind} onValue={setKind} options={RULES} testId="policy-kind" />
        {takesDelay ? <TextField label="Delay (ISO 8601 duration)" field="delay" problem={action.problem} value={delay} onValue={setDelay} hint="e.g. P2D, PT12H" testId="policy-delay" /> : null}
        <SelectField label="Apply to" field="applyTo" problem={action.problem} value={applyTo} onValue={setApplyTo} testId="policy-apply-to" options={[
          ['open_orders', 'open orders too: every unsent release is planned again'],
          ['new_orders', 'new orders only: open orders keep their version'],
        ]} />
        <ReasonField problem={action.problem} value={reason} onValue={setReason} testId="policy-reason" />
      </div>
      <button type="submit" disabled={action.busy} data-testid="policy-preview">Preview the change</button>
      <button type="button" disabled={action.busy || !shown} data-testid="policy-apply" onClick={() => void action.run(async () => {
        const sent = { ...body(), previewId: shown!.previewId, expectedVersion: shown!.fromVersion ?? current.version };
        const summary = `Apply ${vendorId}'s new policy (${ruleText(sent.release)}, schedule option ${sent.scheduleOption}) to ${applyTo === 'open_orders' ? `its open orders too: ${shown!.moved} release(s) move` : 'new orders only'}, exactly as previewed.`;
        if (!confirmSend(summary, 'PUT', `/vendors/${segment(vendorId)}/policy`, sent)) {
          setApplied(null);
          throw new Error(NOT_CONFIRMED);
        }
        const saved = await call<Policy & { job: Job | null }>('PUT', `/vendors/${segment(vendorId)}/policy`, sent);
        setApplied(saved);
        setPreview(null);
        onApplied();
      })}>Apply this preview</button>
      <ProblemNote problem={action.problem} shownFields={fields.filter((f) => f !== 'previewId' && f !== 'expectedVersion' && f !== 'release')} testId="policy-problem" />
      {applied ? <p class="ok" role="status" data-testid="policy-applied">Version {applied.version} saved: {ruleText(applied.release)}, schedule option {applied.scheduleOption}.</p> : null}
      {applied?.job ? <JobProgress key={applied.job.jobId} job={applied.job} testId="policy-job" /> : null}
      {shown ? <PreviewView preview={shown} what={`${vendorId}'s policy change`} /> : null}
    </form>
  );
}

/** How the vendor's exposure falls day by day as risk windows close, one table per currency (never added across). */
function ExposureForecast({ vendor }: { vendor: VendorSummary }) {
  const open = (vendor.exposure ?? []).filter((e) => e.forecast.length > 0);
  if (open.length === 0) return null;
  return (
    <div data-testid="exposure-forecast">
      {open.map((e) => (
        <Table
          key={e.currency}
          caption={`Exposure in ${e.currency} left at the end of each day (IST) as risk windows close`}
          headers={['Day', 'Still refundable', 'Risk windows closing that day']}
          rows={e.forecast.map((d) => ({ key: d.date, cells: [d.date, money(d.amount, e.currency), money(d.closing, e.currency)] }))}
        />
      ))}
    </div>
  );
}

function VendorReleases({ vendorId, round }: { vendorId: string; round: number }) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const state = useLoad(async () => call<{ items: Release[]; nextCursor: string | null }>('GET', withQuery('/outcomes', { vendorId, limit: '50', cursor })), [vendorId, cursor, round]);
  return (
    <Section title="Releases" testId="vendor-releases">
      <Loaded state={state}>
        {(page) => (
          <>
            <ReleaseTable caption={`${vendorId}'s releases`} releases={listOf<Release>(page)} showVendor={false} testId="vendor-release-table" />
            {cursors.length > 0 ? <button type="button" class="secondary" onClick={() => setCursors(cursors.slice(0, -1))}>Previous page</button> : null}
            {page.nextCursor ? <button type="button" class="secondary" onClick={() => setCursors([...cursors, page.nextCursor!])}>Next page</button> : null}
          </>
        )}
      </Loaded>
    </Section>
  );
}

export function VendorPage({ vendorId }: { vendorId: string }) {
  const [round, setRound] = useState(0);
  const changed = () => setRound((r) => r + 1);
  const policy = useLoad(() => call<Policy>('GET', `/vendors/${segment(vendorId)}/policy`), [vendorId, round]);
  const summary = useLoad(() => findVendor(vendorId, (cursor) => call('GET', withQuery('/vendors', { limit: '1000', cursor }))), [vendorId, round]);
  const history = useLoad(async () => listOf<Policy>(await call('GET', `/vendors/${segment(vendorId)}/policy/history`), 'versions'), [vendorId, round]);
  const held = summary.data === undefined || summary.problem ? null : summary.data ? holdOf(summary.data) !== null : false;
  return (
    <>
      <h1>Vendor {vendorId}</h1>
      {summary.data === null ? (
        <p class="warning" role="status" data-testid="unknown-vendor">
          ⚠ Unknown vendor: no order or policy names {vendorId}. Check the id (ids are case-sensitive); what this page
          shows is the default, and saving a policy here makes the vendor known.
        </p>
      ) : null}
      <Section title="Policy and hold" testId="vendor-policy">
        <Loaded state={policy}>
          {(p) => (
            <dl class="facts">
              <dt>Release rule</dt><dd data-testid="policy-rule">{ruleText(p.release)}</dd>
              <dt>Schedule option</dt><dd>{p.scheduleOption}</dd>
              <dt>Version</dt><dd data-testid="policy-version">{p.version}{p.version === 0 ? ' (no policy saved: the default applies)' : ''}</dd>
              <dt>Set by</dt><dd>{p.actor || '—'}{p.at ? `, ${indiaTime(p.at)}` : ''}{p.reason ? `: ${p.reason}` : ''}</dd>
              <dt>Hold</dt><dd data-testid="hold-state">{summary.data ? holdText(summary.data) : summary.problem ? `unknown (${summary.problem.message})` : 'not held'}</dd>
              <dt>Open amount</dt><dd>{summary.data ? openText(summary.data) : '—'}</dd>
              <dt>Exposure (released early, still refundable)</dt><dd data-testid="vendor-exposure">{summary.data ? exposureText(summary.data) : '—'}</dd>
            </dl>
          )}
        </Loaded>
        {summary.data ? <ExposureForecast vendor={summary.data} /> : null}
        <HoldControl vendorId={vendorId} held={held} onChanged={changed} />
      </Section>
      <Section title="Change the policy" testId="policy-change">
        <Loaded state={policy}>{(p) => <PolicyEditor vendorId={vendorId} current={p} onApplied={changed} />}</Loaded>
      </Section>
      <LoadedTable
        title="Policy history"
        sectionTestId="policy-history"
        state={history}
        caption={`${vendorId}'s policy versions, newest first`}
        headers={['Version', 'Release rule', 'Schedule option', 'Actor', 'Reason', 'At']}
        empty="no version saved yet."
        rows={(versions) => versions.map((v) => ({ key: String(v.version), cells: [v.version, ruleText(v.release), v.scheduleOption, v.actor ?? '—', v.reason ?? '—', indiaTime(v.at)] }))}
      />
      <VendorReleases vendorId={vendorId} round={round} />
    </>
  );
}
