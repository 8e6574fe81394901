/**
 * Four eyes (contract 6.4): the changes waiting for a second person, each with what it would move (the release's
 * amount, the vendor's open money, or the live preview of a policy or settings change), approved or rejected with a
 * reason; decided and expired ones on demand.
 */
import { useState } from 'preact/hooks';
import { call, segment, withQuery, type ApiProblem } from '../api';
import { indiaTime, money } from '../format';
import { ProblemNote, ReasonField, requireActor, Section, SelectField, Table, useAction } from '../form';
import { useLoad } from '../load';
import { PreviewView, type PreviewAnswer } from '../preview';

interface Party {
  actor: string;
  principal: string;
}

interface Approval {
  approvalId: string;
  change: 'manualRelease' | 'overrideRelease' | 'unhold' | 'policyChange' | 'settingsChange';
  state: string;
  request: { method: string; path: string; params: Record<string, string>; body: Record<string, unknown> };
  orderId: string | null;
  vendorId: string | null;
  requestedBy: Party;
  reason: string;
  moves: Array<{ currency: string; amount: string; count?: number; atLeast?: boolean }> | null;
  createdAt: string;
  expiresAt: string;
  decidedBy: Party | null;
  decidedAt: string | null;
  decisionReason: string | null;
  applied: { at: string; ok: boolean; error: string | null } | null;
}

const CHANGE_TEXT: Record<Approval['change'], string> = {
  manualRelease: 'manual release',
  overrideRelease: 'release of a held release (override)',
  unhold: 'unhold of a vendor',
  policyChange: 'policy change applied to open orders',
  settingsChange: 'settings change',
};

const who = (party: Party | null) => (party ? `${party.actor} (${party.principal === 'local:unauthenticated' ? 'unauthenticated' : party.principal})` : '—');

function subject(a: Approval) {
  if (a.orderId && a.vendorId) return <a href={`#/orders/${segment(a.orderId)}`}>order {a.orderId}, vendor {a.vendorId}</a>;
  if (a.vendorId) return <a href={`#/vendors/${segment(a.vendorId)}`}>vendor {a.vendorId}</a>;
  return 'every open release (settings)';
}

function movesText(a: Approval): string {
  if (a.moves === null) return 'every unsent release: see its preview';
  if (a.moves.length === 0) return 'nothing open';
  return a.moves.map((m) => `${m.atLeast ? 'at least ' : ''}${money(m.amount, m.currency)}${m.count !== undefined ? ` in ${m.count}${m.atLeast ? ' or more' : ''} release(s)` : ''}`).join('; ');
}

/** The live preview of a policy or settings change, from the body it would apply (without what pins it). */
function PreviewOf({ approval }: { approval: Approval }) {
  const [preview, setPreview] = useState<PreviewAnswer | null>(null);
  const action = useAction();
  if (approval.change !== 'policyChange' && approval.change !== 'settingsChange') return null;
  const { previewId: _p, expectedVersion: _e, version: _v, ...body } = approval.request.body;
  const path = approval.change === 'policyChange' ? `/vendors/${segment(approval.vendorId ?? '')}/policy/preview` : '/settings/preview';
  return (
    <div>
      <button type="button" class="secondary" disabled={action.busy} data-testid={`approval-preview-${approval.approvalId}`} onClick={() => void action.run(async () => {
        setPreview(await call<PreviewAnswer>('POST', path, body));
      })}>Show what it would move</button>
      <ProblemNote problem={action.problem} lead="No preview" />
      {preview ? <PreviewView preview={preview} what={`approval ${approval.approvalId}`} /> : null}
    </div>
  );
}

function Decide({ approval, onDecided }: { approval: Approval; onDecided: (text: string) => void }) {
  const [reason, setReason] = useState('');
  const action = useAction();
  const decide = (verb: 'approve' | 'reject') => action.run(async () => {
    const answer = await call<{ approval: Approval }>('POST', `/approvals/${segment(approval.approvalId)}/${verb}`, { actor: requireActor(), reason });
    onDecided(verb === 'approve'
      ? `Approved ${approval.approvalId}: ${answer.approval.applied?.ok ? 'the change is applied as asked' : `not applied: ${answer.approval.applied?.error ?? 'unknown'}`}.`
      : `Rejected ${approval.approvalId}: nothing changes.`);
  });
  return (
    <form aria-label={`Decide approval ${approval.approvalId}`} data-testid={`decide-${approval.approvalId}`} onSubmit={(e) => e.preventDefault()}>
      <ReasonField problem={action.problem} value={reason} onValue={setReason} testId={`decision-reason-${approval.approvalId}`} />
      <button type="button" disabled={action.busy} data-testid={`approve-${approval.approvalId}`} onClick={() => void decide('approve')}>Approve and apply</button>
      <button type="button" class="secondary" disabled={action.busy} data-testid={`reject-${approval.approvalId}`} onClick={() => void decide('reject')}>Reject</button>
      <ProblemNote problem={action.problem as ApiProblem | null} shownFields={['reason']} testId={`decision-problem-${approval.approvalId}`} />
    </form>
  );
}

export function ApprovalsPage() {
  const [state, setState] = useState('pending');
  const [done, setDone] = useState<string | null>(null);
  const list = useLoad(() => call<{ items: Approval[] }>('GET', withQuery('/approvals', { state, limit: '200' })), [state]);
  return (
    <>
      <h1>Approvals</h1>
      <p class="hint">Changes the settings' <code>approvals</code> name wait here for a second person: the one who asked can never decide, and one not decided in 24 hours expires.</p>
      <SelectField label="Show" field="state" problem={null} value={state} onValue={setState} testId="approvals-state"
        options={[['pending', 'pending (waiting for you)'], ['approved', 'approved'], ['rejected', 'rejected'], ['expired', 'expired']]} />
      {done ? <p class="ok" role="status" data-testid="approval-done">{done}</p> : null}
      <Section title={`Approvals ${state}`} testId="approvals">
        {list.problem ? <ProblemNote problem={list.problem} lead="Could not load" testId="load-problem" /> : null}
        {list.data ? (
          <Table
            caption={`Approvals ${state}, newest first`}
            testId="approvals-table"
            empty={state === 'pending' ? 'nothing waits for a second person.' : 'none.'}
            headers={['Change', 'Of', 'Would move', 'Asked by', 'Why', 'Asked (IST)', 'Expires (IST)', state === 'pending' ? 'Decide' : 'Decided']}
            rows={list.data.items.map((a) => ({
              key: a.approvalId,
              testId: `approval-${a.approvalId}`,
              cells: [
                CHANGE_TEXT[a.change],
                subject(a),
                <div data-testid="moves">{movesText(a)}<PreviewOf approval={a} /></div>,
                who(a.requestedBy),
                a.reason,
                indiaTime(a.createdAt),
                indiaTime(a.expiresAt),
                a.state === 'pending'
                  ? <Decide approval={a} onDecided={(text) => { setDone(text); list.reload(); }} />
                  : `${a.state} by ${who(a.decidedBy)}${a.decisionReason ? `: ${a.decisionReason}` : ''}${a.applied ? (a.applied.ok ? ' (applied)' : ` (not applied: ${a.applied.error})`) : ''}`,
              ],
            }))}
          />
        ) : <p aria-busy="true">Loading…</p>}
      </Section>
    </>
  );
}
