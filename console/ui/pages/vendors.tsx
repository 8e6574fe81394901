/** Vendors: every vendor Holdback knows with its policy, schedule option, hold and open amount; and the CSV import. */
import { useState } from 'preact/hooks';
import { call, listOf, segment, withQuery } from '../api';
import { indiaTime, ruleText } from '../format';
import { Loaded, ProblemNote, requireActor, Section, Table, useAction } from '../form';
import { useLoad } from '../load';
import { exposureText, holdText, openText, type VendorSummary } from '../releases';

interface ImportAnswer {
  rows: number;
  valid: number;
  errors: Array<{ line: number; field: string; message: string }>;
  /** Errors found beyond those listed. */
  moreErrors?: number;
  /** On an apply: false when the very same file was applied before (it changes nothing the second time). */
  applied?: boolean;
  appliedAt?: string | null;
}

const CSV_EXAMPLE = 'vendorId,scheduleOption,release,delay,reason\nvendor-a,1,after_delivery,P2D,trusted vendor\nvendor-b,2,at_max,,new vendor';

/** The dry run first, line by line; the apply button only for the very text that passed it. */
function PolicyImport({ onApplied }: { onApplied: () => void }) {
  const [text, setText] = useState('');
  const [dryRun, setDryRun] = useState<{ text: string; answer: ImportAnswer } | null>(null);
  const [applied, setApplied] = useState<ImportAnswer | null>(null);
  const action = useAction();
  const send = (isDryRun: boolean) => action.run(async () => {
    const actor = requireActor();
    const answer = await call<ImportAnswer>('POST', `/policies/import?dryRun=${isDryRun}${actor === undefined ? '' : `&actor=${encodeURIComponent(actor)}`}`, text, 'text/csv');
    if (isDryRun) {
      setDryRun({ text, answer });
      setApplied(null);
    } else {
      setApplied(answer);
      setDryRun(null);
      onApplied();
    }
  });
  const checked = dryRun && dryRun.text === text ? dryRun.answer : null;
  return (
    <Section title="Import policies from CSV" testId="import">
      <form onSubmit={(e) => { e.preventDefault(); void send(true); }}>
        <div class="field">
          <label for="import-file">CSV file</label>
          <input id="import-file" type="file" accept=".csv,text/csv" onChange={async (e) => {
            const file = (e.currentTarget as HTMLInputElement).files?.[0];
            if (file) setText(await file.text());
          }} />
        </div>
        <div class="field">
          <label for="import-text">or paste the CSV (header: vendorId,scheduleOption,release,delay,reason)</label>
          <textarea id="import-text" data-testid="import-text" value={text} placeholder={CSV_EXAMPLE} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
        </div>
        <button type="submit" disabled={action.busy || !text.trim()} data-testid="import-dry-run">Check (dry run, changes nothing)</button>
        <button type="button" disabled={action.busy || !checked || checked.errors.length > 0 || checked.valid === 0} data-testid="import-apply" onClick={() => void send(false)}>
          Apply all {checked ? checked.valid : ''} rows
        </button>
        <ProblemNote problem={action.problem} testId="import-problem" />
        {checked ? (
          <div data-testid="import-result">
            <p class={checked.errors.length ? 'problem' : 'ok'} role="status">
              Dry run: {checked.rows} rows, {checked.valid} valid, {checked.errors.length + (checked.moreErrors ?? 0)} errors{checked.moreErrors ? ` (the first ${checked.errors.length} listed)` : ''}.{checked.errors.length ? ' Fix them and check again; nothing is applied while any row is wrong.' : ' Nothing changed yet.'}
            </p>
            <Table
              caption="Errors of the dry run, line by line"
              testId="import-errors"
              headers={['Line', 'Field', 'What is wrong']}
              empty="none."
              rows={checked.errors.map((e, i) => ({ key: String(i), cells: [e.line, e.field, e.message] }))}
            />
          </div>
        ) : null}
        {applied ? (
          <p class="ok" role="status" data-testid="import-applied">
            {applied.applied === false
              ? `This file was already applied${applied.appliedAt ? ` at ${indiaTime(applied.appliedAt)}` : ''}: nothing changed.`
              : `Applied ${applied.valid} policies${applied.appliedAt ? ` at ${indiaTime(applied.appliedAt)}` : ''}, each recorded with you as actor and its row's reason.`}
          </p>
        ) : null}
      </form>
    </Section>
  );
}

/** The gateway's answer about a vendor: agreement in plain text, anything else as a warning (never "agrees" for an unknown vendor). */
export function GatewayNote({ gateway }: { gateway: VendorSummary['gateway'] }) {
  if (!gateway) return null;
  const answer = gateway.answer ?? (gateway.error ? 'error' : gateway.policyDisagrees ? 'disagrees' : 'agrees');
  const text = gateway.message ?? (answer === 'agrees' ? 'the gateway agrees' : gateway.error ?? `the gateway says ${gateway.scheduleOption}`);
  if (answer === 'agrees') return <span data-testid="gateway-answer" data-answer={answer}>({text})</span>;
  return <span class="warning" role="status" data-testid="gateway-answer" data-answer={answer}>⚠ {answer === 'vendor_not_found' ? 'Unknown at the gateway' : answer === 'disagrees' ? 'Disagrees' : 'Gateway not asked'}: {text}</span>;
}

export function VendorsPage() {
  const [cursors, setCursors] = useState<string[]>([]);
  const [checkGateway, setCheckGateway] = useState(false);
  const cursor = cursors[cursors.length - 1];
  const state = useLoad(
    () => call<{ items: VendorSummary[]; nextCursor: string | null }>('GET', withQuery('/vendors', { limit: '100', cursor, checkGateway: checkGateway ? 'true' : undefined })),
    [cursor, checkGateway],
  );
  const [find, setFind] = useState('');
  return (
    <>
      <h1>Vendors</h1>
      <form onSubmit={(e) => { e.preventDefault(); if (find.trim()) location.hash = `#/vendors/${segment(find.trim())}`; }}>
        <div class="field">
          <label for="vendor-find">Open a vendor by id</label>
          <input id="vendor-find" value={find} onInput={(e) => setFind((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <button type="submit">Open</button>
      </form>
      <Section title="Every vendor" testId="vendors">
        <div class="field">
          <label>
            <input type="checkbox" checked={checkGateway} onChange={(e) => setCheckGateway((e.currentTarget as HTMLInputElement).checked)} />{' '}
            Compare each schedule option with the gateway's (asks the gateway for every vendor on the page)
          </label>
        </div>
        <Loaded state={state}>
          {(page) => (
            <>
              <Table
                caption={`Vendors Holdback knows, page ${cursors.length + 1}`}
                testId="vendor-table"
                headers={['Vendor', 'Release rule', 'Policy version', 'Schedule option', 'Hold', 'Open amount (not yet settled)', 'Exposure (released early, still refundable)']}
                empty="none yet: vendors appear with their first order or policy."
                rows={listOf<VendorSummary>(page).map((v) => ({
                  key: v.vendorId,
                  testId: `vendor-${v.vendorId}`,
                  cells: [
                    <a href={`#/vendors/${segment(v.vendorId)}`}>{v.vendorId}</a>,
                    ruleText(v.release),
                    String(v.policyVersion ?? 0),
                    <>{String(v.scheduleOption ?? '—')} <GatewayNote gateway={v.gateway} /></>,
                    holdText(v),
                    openText(v),
                    <span data-testid="vendor-exposure">{exposureText(v)}</span>,
                  ],
                }))}
              />
              {cursors.length > 0 ? <button type="button" class="secondary" onClick={() => setCursors(cursors.slice(0, -1))}>Previous page</button> : null}
              {page.nextCursor ? <button type="button" class="secondary" onClick={() => setCursors([...cursors, page.nextCursor!])}>Next page</button> : null}
            </>
          )}
        </Loaded>
      </Section>
      <PolicyImport onApplied={state.reload} />
    </>
  );
}
