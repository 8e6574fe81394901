/** Orders: find one by id; its vendors with their states and why; a manual release where the state allows; its timeline. */
import { useEffect, useState } from 'preact/hooks';
import { call, listOf, segment } from '../api';
import { INDIA_TIME_EXAMPLE, INDIA_TIME_HINT, fromIndiaLocal, indiaTime, money, INDIA_OFFSET } from '../format';
import { confirmSend, Loaded, LoadedTable, NOT_CONFIRMED, ProblemNote, ReasonField, requireActor, Section, Table, TextField, useAction } from '../form';
import { useLoad } from '../load';
import { ProveOrder } from '../prove';
import { OrdersList } from './orders';
import { settlementText, whyOf, type Release } from '../releases';
import type { TimelineItem } from '../../../functions/contracts/api-answers';

interface OrderView {
  orderId: string;
  transactionTime: string | null;
  maxEligibility: string | null;
  currency?: string;
  vendors: Release[];
}

type TimelineEntry = TimelineItem;

/** Contract section 6: a manual release is allowed from these states, and from HELD with an override; FAILED may also be retried. */
const RELEASABLE = ['PLANNED', 'SCHEDULED', 'WAITING', 'AT_MAX', 'FAILED'];

/**
 * Where a manual release's eligibility lands, said before sending: an `at` past the max eligibility is clamped to it
 * (the gateway settles at max eligibility anyway), an empty one goes with the next minute the gateway accepts.
 */
function releaseWhen(at: string, maxEligibility: string | null): string {
  if (!at) return 'as soon as the gateway accepts (the next gateway minute)';
  const asked = fromIndiaLocal(at)!;
  if (Number.isNaN(Date.parse(asked))) return `at "${at}", which is not a time the console can read (${INDIA_TIME_HINT}): the API will name what to send`;
  if (maxEligibility && Date.parse(asked) > Date.parse(maxEligibility)) {
    return `at ${indiaTime(maxEligibility)}: ${indiaTime(asked)} is past the max eligibility, so it is clamped to it`;
  }
  return `at ${indiaTime(asked)}`;
}

function ManualRelease({ orderId, vendor, maxEligibility, currency, onReleased }: { orderId: string; vendor: Release; maxEligibility: string | null; currency?: string; onReleased: () => void }) {
  const [reason, setReason] = useState('');
  const [at, setAt] = useState('');
  const [override, setOverride] = useState(false);
  const [confirmPast, setConfirmPast] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const held = vendor.state === 'HELD';
  // After a release the state moves on (PLANNED, APPLYING, APPLIED): the confirmation stays with the reason there is no button.
  if (!RELEASABLE.includes(vendor.state) && !held) {
    return (
      <span>
        {done ? <p class="ok" role="status">{done}</p> : null}
        <span class="hint">no manual release from {vendor.state}</span>
      </span>
    );
  }
  return (
    <form aria-label={`Release ${vendor.vendorId} by hand`} data-testid={`release-form-${vendor.vendorId}`} onSubmit={(e) => {
      e.preventDefault();
      void action.run(async () => {
        const body = { actor: requireActor(), reason, ...(at ? { at: fromIndiaLocal(at), ...(confirmPast ? { confirmPast } : {}) } : {}), ...(held ? { override } : {}) };
        const path = `/orders/${segment(orderId)}/vendors/${segment(vendor.vendorId)}/release`;
        if (!confirmSend(`Release ${money(vendor.amount, vendor.currency ?? currency)} of order ${orderId} to vendor ${vendor.vendorId} ${releaseWhen(at, maxEligibility)}.`, 'POST', path, body)) {
          setDone(NOT_CONFIRMED);
          return;
        }
        const answer = await call<Release>('POST', path, body);
        setDone(`Release requested${answer?.state ? `: now ${answer.state}` : ''}.`);
        onReleased();
      });
    }}>
      <ReasonField problem={action.problem} value={reason} onValue={setReason} testId={`release-reason-${vendor.vendorId}`} />
      <TextField label={`Eligibility (India time, ${INDIA_OFFSET}); empty: as soon as the gateway accepts`} field="at" placeholder={INDIA_TIME_EXAMPLE} hint={INDIA_TIME_HINT} problem={action.problem} value={at} onValue={setAt} />
      {at ? (
        <div class="field">
          <label><input type="checkbox" checked={confirmPast} onChange={(e) => setConfirmPast((e.currentTarget as HTMLInputElement).checked)} /> If this time has passed, send it anyway with the next minute the gateway accepts</label>
        </div>
      ) : null}
      {held ? (
        <div class="field">
          <label><input type="checkbox" checked={override} onChange={(e) => setOverride((e.currentTarget as HTMLInputElement).checked)} /> Release although it is held (override)</label>
        </div>
      ) : null}
      {at ? <p class="hint" data-testid={`release-when-${vendor.vendorId}`}>Eligibility {releaseWhen(at, maxEligibility)}.</p> : null}
      <button type="submit" disabled={action.busy} data-testid={`release-${vendor.vendorId}`}>Release {vendor.vendorId} {at ? 'at that time' : 'now'}</button>
      {vendor.state === 'FAILED' ? (
        <button type="button" class="secondary" disabled={action.busy} data-testid={`retry-${vendor.vendorId}`} onClick={() => void action.run(async () => {
          const answer = await call<Release>('POST', `/orders/${segment(orderId)}/vendors/${segment(vendor.vendorId)}/retry`, { actor: requireActor(), reason });
          setDone(`Retry planned under its rule${answer?.state ? `: now ${answer.state}` : ''}.`);
          onReleased();
        })}>Retry under its rule</button>
      ) : null}
      <ProblemNote problem={action.problem} shownFields={['reason', 'at']} testId={`release-problem-${vendor.vendorId}`} />
      {done ? <p class="ok" role="status">{done}</p> : null}
    </form>
  );
}

/** The free-text actor, and under it the proven principal (marked when nobody was signed in). */
function Who({ actor, principal }: { actor?: string; principal?: string }) {
  return (
    <span data-testid="who">
      {actor ?? '—'}
      {principal ? <span class="hint principal" title="who proved to be the actor"> {principal === 'local:unauthenticated' ? '(unauthenticated)' : principal}</span> : null}
    </span>
  );
}

/** A timeline entry's detail: its reason or message in words, the state change if any, and every field on demand. */
function Detail({ entry }: { entry: TimelineEntry }) {
  const detail = entry.detail as Record<string, any>;
  const move = detail.from !== undefined || detail.to !== undefined ? `${detail.from ?? 'new'} → ${detail.to ?? '?'}` : null;
  const answer = detail.answer && typeof detail.answer === 'object' ? `gateway answered ${detail.answer.httpStatus ?? ''} ${detail.answer.status ?? ''} ${detail.answer.subCode ?? ''}: ${detail.answer.message ?? ''}` : null;
  const request = detail.request && typeof detail.request === 'object' && detail.request.eligibility ? `sent eligibility ${detail.request.eligibility} (IST)` : null;
  const words = [move, detail.causeReason ? `why: ${detail.causeReason}` : null, detail.reason ?? detail.message ?? null, request, answer].filter(Boolean);
  return (
    <div class="detail">
      {words.map((w, i) => <div key={i}>{w}</div>)}
      <details>
        <summary>Every field</summary>
        <pre>{JSON.stringify(detail, null, 2)}</pre>
      </details>
    </div>
  );
}

function OrderDetails({ orderId }: { orderId: string }) {
  const [round, setRound] = useState(0);
  const order = useLoad(() => call<OrderView>('GET', `/orders/${segment(orderId)}`), [orderId, round]);
  const timeline = useLoad(async () => listOf<TimelineEntry>(await call('GET', `/orders/${segment(orderId)}/timeline`)), [orderId, round]);
  return (
    <>
      <Section title={`Order ${orderId}`} testId="order">
        <Loaded state={order}>
          {(o) => (
            <>
              <dl class="facts">
                <dt>Transaction time</dt><dd>{o.transactionTime ? indiaTime(o.transactionTime) : 'not paid yet: events came before the payment'}</dd>
                <dt>Max eligibility</dt><dd>{indiaTime(o.maxEligibility)}</dd>
              </dl>
              <button type="button" class="secondary" onClick={() => setRound((r) => r + 1)}>Refresh</button>
              <Table
                caption="Vendors of the order"
                testId="order-vendors"
                headers={['Vendor', 'Amount', 'State', 'Why', 'Policy version', 'Target eligibility', 'Applied eligibility', 'Predicted settlement', 'Settled at', 'Gateway attempts', 'Manual release']}
                rows={o.vendors.map((v) => ({
                  key: v.vendorId,
                  testId: `order-vendor-${v.vendorId}`,
                  cells: [
                    <a href={`#/vendors/${segment(v.vendorId)}`}>{v.vendorId}</a>,
                    money(v.amount, v.currency ?? o.currency),
                    <span class="state" data-testid="state">{v.state}</span>,
                    whyOf({ ...v, maxEligibility: v.maxEligibility ?? o.maxEligibility }),
                    v.policyVersion ?? '—',
                    <span data-testid="target">{indiaTime(v.targetEligibility)}</span>,
                    <span data-testid="applied">{indiaTime(v.appliedEligibility)}</span>,
                    <span data-testid="settlement">{settlementText(v)}</span>,
                    indiaTime(v.settledAt),
                    Array.isArray(v.attempts) && v.attempts.length
                      ? <ul>{v.attempts.map((a, i) => <li key={i}>{indiaTime(a.at)}: {a.status}{a.subCode ? ` ${a.subCode}` : ''} — {a.message}</li>)}</ul>
                      : 'none',
                    <ManualRelease orderId={orderId} vendor={v} maxEligibility={o.maxEligibility} currency={o.currency} onReleased={() => setRound((r) => r + 1)} />,
                  ],
                }))}
              />
            </>
          )}
        </Loaded>
      </Section>
      <Section title="Proof of the order's audit records" testId="order-proof">
        <ProveOrder key={orderId} orderId={orderId} />
      </Section>
      <LoadedTable
        title="Timeline"
        sectionTestId="timeline"
        state={timeline}
        caption={`Everything that happened to order ${orderId}, in time order`}
        testId="timeline-table"
        headers={['At (IST)', 'What', 'Vendor', 'Actor', 'Detail']}
        rows={(entries) => entries.map((e, i) => ({ key: String(i), cells: [indiaTime(e.at), e.kind.replace(/_/g, ' '), e.vendorId ?? '—', <Who actor={e.actor} principal={e.principal} />, <Detail entry={e} />] }))}
      />
    </>
  );
}

export function OrderPage({ orderId }: { orderId?: string }) {
  const [find, setFind] = useState(orderId ?? '');
  useEffect(() => setFind(orderId ?? ''), [orderId]);
  return (
    <>
      <h1>Orders</h1>
      <form role="search" onSubmit={(e) => { e.preventDefault(); if (find.trim()) location.hash = `#/orders/${segment(find.trim())}`; }}>
        <div class="field">
          <label for="order-find">Order id</label>
          <input id="order-find" data-testid="order-find" value={find} onInput={(e) => setFind((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <button type="submit" data-testid="order-open">Find the order</button>
      </form>
      {orderId ? <OrderDetails orderId={orderId} /> : <OrdersList />}
    </>
  );
}
