/**
 * The contract of the ApprovalRepository port (four eyes, contract 6.4), run alike against the in-memory fake and the
 * DynamoDB adapter on a real dynalite: one decision wins, decisions respect the expiry, lists come from the state
 * index newest first with pages, and the overdue pending ones are found oldest first.
 */
import type { ApprovalRepository, StoredApproval } from '../../functions/application/ports/approvals';
import { DynamoApprovalRepository } from '../../functions/adapters/dynamodb/approval-repository';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { InMemoryApprovalRepository } from '../fakes/approvals';
import { at } from '../times';

const SUBJECTS: Subjects<{ approvals: ApprovalRepository }> = [
  ['the in-memory fake', inMemory(() => ({ approvals: new InMemoryApprovalRepository() }))],
  ['the DynamoDB adapter', onDynalite((local) => ({ approvals: new DynamoApprovalRepository(local.doc, local.tables.config) }))],
];

/** An approval asked for on 2 December 2022 at 10:0n India time, expiring 24 hours later. */
function approval(n: number, overrides: Partial<StoredApproval> = {}): StoredApproval {
  return {
    approvalId: `ap_00000000${n}aaaaaaaaaaa${n}`,
    change: 'manualRelease',
    state: 'pending',
    request: { method: 'POST', path: '/orders/o_1/vendors/v_1/release', params: { orderId: 'o_1', vendorId: 'v_1' }, body: { actor: 'maker@example.com', reason: 'r' } },
    orderId: 'o_1',
    vendorId: 'v_1',
    requestedBy: { actor: 'maker@example.com', principal: 'local:unauthenticated' },
    requesterKey: 'local:maker@example.com',
    reason: 'goods received',
    moves: [{ currency: 'INR', amount: '600.00' }],
    basis: { state: 'SCHEDULED' },
    createdAt: at(`2022-12-02T10:0${n}:00+05:30`),
    expiresAt: at(`2022-12-03T10:0${n}:00+05:30`),
    decidedBy: null,
    decidedAt: null,
    decisionReason: null,
    applied: null,
    ...overrides,
  };
}

const BEFORE_EXPIRY = at('2022-12-02T12:00:00.000Z');
const AFTER_EXPIRY = at('2022-12-03T12:00:00.000Z');
const checker = { actor: 'checker@example.com', principal: 'local:unauthenticated' };

describeEachSubject(SUBJECTS, (subject) => {

  test('an approval reads back as stored; an unknown one is null; an id is created once', async () => {
    await subject().approvals.create(approval(1));
    expect(await subject().approvals.get(approval(1).approvalId)).toEqual(approval(1));
    expect(await subject().approvals.get('ap_000000009bbbbbbbbbbbb9')).toBeNull();
    await expect(subject().approvals.create(approval(1))).rejects.toThrow();
  });

  test('two decisions at once: exactly one is written, the other gets null', async () => {
    await subject().approvals.create(approval(1));
    const [a, b] = await Promise.all([
      subject().approvals.decide(approval(1).approvalId, { state: 'approved', decidedBy: checker, decidedAt: at('2022-12-02T11:00:00+05:30'), decisionReason: 'ok' }, BEFORE_EXPIRY),
      subject().approvals.decide(approval(1).approvalId, { state: 'rejected', decidedBy: { ...checker, actor: 'other@example.com' }, decidedAt: at('2022-12-02T11:00:00+05:30'), decisionReason: 'no' }, BEFORE_EXPIRY),
    ]);
    expect([a, b].filter((x) => x !== null)).toHaveLength(1);
    const stored = await subject().approvals.get(approval(1).approvalId);
    expect(stored?.state).toBe((a ?? b)?.state);
    // Decided: nothing decides it again.
    expect(await subject().approvals.decide(approval(1).approvalId, { state: 'expired', decidedBy: null, decidedAt: at('2022-12-02T11:00:00+05:30'), decisionReason: null }, AFTER_EXPIRY)).toBeNull();
  });

  test('after its expiry a pending approval can only expire; before it, it cannot expire', async () => {
    await subject().approvals.create(approval(1));
    const expire = { state: 'expired' as const, decidedBy: null, decidedAt: at('2022-12-03T17:30:00+05:30'), decisionReason: 'nobody decided within 24 hours' };
    expect(await subject().approvals.decide(approval(1).approvalId, expire, BEFORE_EXPIRY)).toBeNull();
    expect(await subject().approvals.decide(approval(1).approvalId, { state: 'approved', decidedBy: checker, decidedAt: at('2022-12-02T11:00:00+05:30'), decisionReason: 'late' }, AFTER_EXPIRY)).toBeNull();
    expect(await subject().approvals.decide(approval(1).approvalId, expire, AFTER_EXPIRY)).toMatchObject({ state: 'expired', decisionReason: 'nobody decided within 24 hours' });
  });

  test('each state lists newest first, in pages; a decision moves an approval to its new state\'s list', async () => {
    for (const n of [1, 2, 3, 4]) await subject().approvals.create(approval(n));
    const first = await subject().approvals.list({ state: 'pending', limit: 3 });
    expect(first.items.map((a) => a.approvalId)).toEqual([4, 3, 2].map((n) => approval(n).approvalId));
    const second = await subject().approvals.list({ state: 'pending', limit: 3, after: first.next });
    expect(second).toEqual({ items: [approval(1)], next: null });
    await subject().approvals.decide(approval(2).approvalId, { state: 'rejected', decidedBy: checker, decidedAt: at('2022-12-02T11:00:00+05:30'), decisionReason: 'no' }, BEFORE_EXPIRY);
    expect((await subject().approvals.list({ state: 'pending', limit: 10 })).items.map((a) => a.approvalId)).toEqual([4, 3, 1].map((n) => approval(n).approvalId));
    expect((await subject().approvals.list({ state: 'rejected', limit: 10 })).items.map((a) => [a.approvalId, a.decidedBy])).toEqual([[approval(2).approvalId, checker]]);
    expect((await subject().approvals.list({ state: 'approved', limit: 10 })).items).toEqual([]);
  });

  test('pending approvals created before a time are found oldest first, the decided ones not', async () => {
    for (const n of [1, 2, 3]) await subject().approvals.create(approval(n));
    await subject().approvals.decide(approval(1).approvalId, { state: 'approved', decidedBy: checker, decidedAt: at('2022-12-02T11:00:00+05:30'), decisionReason: 'ok' }, BEFORE_EXPIRY);
    // 10:02:30 India time = 04:32:30 UTC: approvals 1 (decided) and 2 were created before it.
    expect((await subject().approvals.pendingCreatedBefore('2022-12-02T04:32:30.000Z', 10)).map((a) => a.approvalId)).toEqual([approval(2).approvalId]);
    expect((await subject().approvals.pendingCreatedBefore('2022-12-03T00:00:00.000Z', 1)).map((a) => a.approvalId)).toEqual([approval(2).approvalId]);
  });

  test('the outcome of applying is kept', async () => {
    await subject().approvals.create(approval(1));
    await subject().approvals.recordApplied(approval(1).approvalId, { at: at('2022-12-02T11:00:00+05:30'), ok: false, error: 'moved' });
    expect((await subject().approvals.get(approval(1).approvalId))?.applied).toEqual({ at: '2022-12-02T11:00:00+05:30', ok: false, error: 'moved' });
  });
});
