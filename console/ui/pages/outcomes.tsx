/** Outcomes for auditors: the contract's filters, cursor pages, and the CSV of exactly the same filter. */
import { useState } from 'preact/hooks';
import { apiHref, call, listOf, withQuery } from '../api';
import { INDIA_TIME_EXAMPLE, INDIA_TIME_HINT, fromIndiaLocal, INDIA_OFFSET } from '../format';
import { Loaded, ProblemNote, Section, SelectField, TextField, useAction } from '../form';
import { ReleaseTable, type Release } from '../releases';

const STATES = ['PLANNED', 'SCHEDULED', 'WAITING', 'HELD', 'APPLYING', 'APPLIED', 'AT_MAX', 'CANCELLED', 'FAILED', 'SETTLED'];

interface Filter {
  vendorId: string;
  orderId: string;
  state: string;
  from: string;
  to: string;
  by: string;
  limit: string;
}

const EMPTY: Filter = { vendorId: '', orderId: '', state: '', from: '', to: '', by: 'transaction', limit: '100' };

/** The query of a filter, as the API takes it (times read as India time). */
function queryOf(filter: Filter): Record<string, string | undefined> {
  return {
    vendorId: filter.vendorId.trim() || undefined,
    orderId: filter.orderId.trim() || undefined,
    state: filter.state || undefined,
    from: fromIndiaLocal(filter.from),
    to: fromIndiaLocal(filter.to),
    by: filter.by,
  };
}

export function OutcomesPage() {
  const [draft, setDraft] = useState<Filter>(EMPTY);
  const [applied, setApplied] = useState<Filter | null>(null);
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<{ items: Release[]; nextCursor: string | null } | null>(null);
  const action = useAction();
  const set = (name: keyof Filter) => (value: string) => setDraft({ ...draft, [name]: value });
  const load = (filter: Filter, trail: string[]) => action.run(async () => {
    const cursor = trail[trail.length - 1];
    const body = await call<{ items: Release[]; nextCursor: string | null }>('GET', withQuery('/outcomes', { ...queryOf(filter), limit: filter.limit, cursor }));
    setPage({ items: listOf<Release>(body), nextCursor: body.nextCursor ?? null });
    setApplied(filter);
    setCursors(trail);
  });
  const fields = ['vendorId', 'orderId', 'state', 'from', 'to', 'by', 'limit', 'cursor'];
  return (
    <>
      <h1>Outcomes</h1>
      <form aria-label="Filter outcomes" onSubmit={(e) => { e.preventDefault(); void load(draft, []); }}>
        <div class="fields">
          <TextField label="Vendor id" field="vendorId" problem={action.problem} value={draft.vendorId} onValue={set('vendorId')} testId="filter-vendor" />
          <TextField label="Order id" field="orderId" problem={action.problem} value={draft.orderId} onValue={set('orderId')} />
          <SelectField label="State" field="state" problem={action.problem} value={draft.state} onValue={set('state')} options={[['', 'any'], ...STATES.map((s): [string, string] => [s, s])]} testId="filter-state" />
          <SelectField label="From and to range over" field="by" problem={action.problem} value={draft.by} onValue={set('by')} options={[['transaction', 'transaction time'], ['applied', 'applied time'], ['settled', 'settlement time']]} />
          <TextField label={`From (India time, ${INDIA_OFFSET})`} field="from" placeholder={INDIA_TIME_EXAMPLE} hint={INDIA_TIME_HINT} problem={action.problem} value={draft.from} onValue={set('from')} />
          <TextField label={`To (India time, ${INDIA_OFFSET})`} field="to" placeholder={INDIA_TIME_EXAMPLE} hint={INDIA_TIME_HINT} problem={action.problem} value={draft.to} onValue={set('to')} />
          <TextField label="Rows per page (1 to 1000)" field="limit" type="number" problem={action.problem} value={draft.limit} onValue={set('limit')} />
        </div>
        <button type="submit" disabled={action.busy} data-testid="outcomes-search">Show outcomes</button>
        <ProblemNote problem={action.problem} shownFields={fields.filter((f) => f !== 'cursor')} testId="outcomes-problem" />
      </form>
      {applied ? (
        <p>
          <a href={apiHref('/outcomes', { ...queryOf(applied), format: 'csv' })} download="outcomes.csv" data-testid="outcomes-csv">
            Download every matching row as CSV
          </a>{' '}
          (the same filter, all pages; times in India time)
        </p>
      ) : null}
      {page ? (
        <Section title="Matching outcomes" testId="outcomes">
          <Loaded state={{ data: page, loading: false, problem: null }}>
            {(p) => (
              <>
                <ReleaseTable caption={`Page ${cursors.length + 1}: ${p.items.length} row(s)`} releases={p.items} testId="outcomes-table" />
                {cursors.length > 0 ? <button type="button" class="secondary" onClick={() => void load(applied!, cursors.slice(0, -1))}>Previous page</button> : null}
                {p.nextCursor ? <button type="button" class="secondary" data-testid="outcomes-next" onClick={() => void load(applied!, [...cursors, p.nextCursor!])}>Next page</button> : null}
              </>
            )}
          </Loaded>
        </Section>
      ) : null}
    </>
  );
}
