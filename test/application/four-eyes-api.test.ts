/**
 * Four eyes (contract 6.4) through the API locally, where nothing is signed: the requester and the approver are told
 * apart by their actor (unauthenticated), and every record carries `principal: "local:unauthenticated"`.
 */
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';
import { serveApiOverFakes } from './live-api';
import type { Context } from 'aws-lambda';
import { expireOverdue } from '../../functions/application/approvals/manage-approvals';
import { makeSweepHandler } from '../../functions/handlers/sweep';

const api = serveApiOverFakes();

const call = api.request;

const MAKER = 'maker@example.com';
const CHECKER = 'checker@example.com';
const records = () => [...api.world.audit.streams.values()].flat();
const requireApprovals = (approvals: unknown) => call('PUT', '/settings', { approvals, actor: 'admin@example.com', reason: 'controls' });

/** An order of 1250.50 INR for vendor_a, AT_MAX (nothing sent), so a manual release may move it. */
async function atMaxOrder() {
  await usePolicy(api.world, { kind: 'at_max' });
  await send(api.world, 'order.paid', paid());
  expect((await release(api.world)).state).toBe('AT_MAX');
}

/** The same order under a scheduled policy, its vendor held (the release HELD), with these approval rules. */
async function heldOrder(rules: unknown) {
  await usePolicy(api.world, { kind: 'after_payment', delay: 'P3D' });
  await send(api.world, 'order.paid', paid());
  await requireApprovals(rules);
  await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'risk@example.com', reason: 'fraud review' });
  await api.world.runJobs();
  expect((await release(api.world)).state).toBe('HELD');
}

describe('the approvals setting', () => {
  test('GET /settings answers approvals ({} by default); a valid one is kept', async () => {
    expect((await call('GET', '/settings')).body.approvals).toEqual({});
    const rules = { manualRelease: { above: { INR: '50000.00' } }, overrideRelease: {}, unhold: {}, policyChange: {}, settingsChange: {} };
    expect((await requireApprovals(rules)).body.approvals).toEqual(rules);
  });

  test('bad rules: 400 naming each field, what was wrong and what to send', async () => {
    const answer = await requireApprovals({ manualRelease: { above: { INR: 50000, rupees: '1' } }, payout: {}, settingsChange: { above: { INR: 1 } }, unhold: true });
    expect(answer.status).toBe(400);
    const issues = answer.body.error.issues.map((i: { field: string }) => i.field).sort();
    expect(issues).toEqual(['approvals.manualRelease.above.INR', 'approvals.manualRelease.above.rupees', 'approvals.payout', 'approvals.settingsChange.above.INR', 'approvals.unhold']);
    expect(answer.body.error.message).toMatch(/approvals\.manualRelease\.above\.INR: is 50000, not a decimal text; send a non-negative amount as a string \(money is never a float\), e.g. "50000.00"/);
    expect(answer.body.error.message).toMatch(/approvals\.payout: is not a change that can need approval; send only manualRelease, overrideRelease, unhold, policyChange, settingsChange/);
    expect((await call('GET', '/settings')).body.version).toBe(0);
  });
});

describe('manual release with a second person', () => {
  test("a request the release's state refuses anyway is its 409, and no approval is kept for it", async () => {
    await heldOrder({ manualRelease: {} });
    // HELD without override: the use case refuses it, whatever a second person would say.
    const refused = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'vendor in hardship' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'invalid_state']);
    expect((await call('GET', '/approvals?state=pending')).body.items).toEqual([]);
    expect(records().filter((r) => r.kind === 'approval_requested')).toEqual([]);
  });

  test('above the amount: 202 {approval} and nothing changes; another person approves it and exactly what was asked is applied', async () => {
    await atMaxOrder();
    await requireApprovals({ manualRelease: { above: { INR: '1000' } } });
    const asked = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' });
    expect(asked.status).toBe(202);
    expect(asked.body.approval).toMatchObject({
      change: 'manualRelease', state: 'pending', orderId: ORDER, vendorId: VENDOR, moves: [{ currency: 'INR', amount: '1250.50' }],
      requestedBy: { actor: MAKER, principal: 'local:unauthenticated' }, request: { method: 'POST', path: `/orders/${ORDER}/vendors/${VENDOR}/release` },
    });
    expect((await release(api.world)).state).toBe('AT_MAX');

    const listed = await call('GET', '/approvals?state=pending');
    expect(listed.body.items.map((a: { approvalId: string }) => a.approvalId)).toEqual([asked.body.approval.approvalId]);

    const approved = await call('POST', `/approvals/${asked.body.approval.approvalId}/approve`, { actor: CHECKER, reason: 'proof of delivery seen' });
    expect(approved.status).toBe(200);
    expect(approved.body.approval).toMatchObject({ state: 'approved', decidedBy: { actor: CHECKER }, applied: { ok: true } });
    expect(approved.body.result).toMatchObject({ orderId: ORDER, vendorId: VENDOR });
    const after = await release(api.world);
    expect(after.state).not.toBe('AT_MAX');
    expect(after.manual).toMatchObject({ actor: MAKER, reason: 'goods received' });
    expect((await call('GET', '/approvals?state=pending')).body.items).toEqual([]);
    expect((await call('GET', '/approvals?state=approved')).body.items).toHaveLength(1);
    const kinds = records().filter((r) => r.orderId === ORDER).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['approval_requested', 'approval_approved', 'manual_release', 'approval_applied']));
    expect(records().filter((r) => r.kind.startsWith('approval_')).every((r) => r.principal === 'local:unauthenticated')).toBe(true);
  });

  test('at or under the amount in that currency: applied at once (200)', async () => {
    await atMaxOrder();
    await requireApprovals({ manualRelease: { above: { INR: '1250.50' } } });
    expect((await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' })).status).toBe(200);
  });

  test('a currency the rule does not name needs a second person (the control fails closed)', async () => {
    await atMaxOrder();
    await requireApprovals({ manualRelease: { above: { USD: '1000000' } } });
    expect((await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' })).status).toBe(202);
  });

  test('the requester cannot approve (403 naming why), even in other letter case; it stays pending', async () => {
    await atMaxOrder();
    await requireApprovals({ manualRelease: {} });
    const asked = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' });
    const own = await call('POST', `/approvals/${asked.body.approval.approvalId}/approve`, { actor: 'MAKER@example.com', reason: 'mine' });
    expect(own.status).toBe(403);
    expect(own.body.error).toMatchObject({ code: 'own_approval' });
    expect(own.body.error.message).toMatch(/asked for this change; four eyes means another person decides it/);
    expect((await call('GET', `/approvals/${asked.body.approval.approvalId}`)).body.state).toBe('pending');
  });

  test('rejected: nothing changes, it cannot be approved later (409 naming its state)', async () => {
    await atMaxOrder();
    await requireApprovals({ manualRelease: {} });
    const id = (await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' })).body.approval.approvalId;
    const rejected = await call('POST', `/approvals/${id}/reject`, { actor: CHECKER, reason: 'no proof of delivery' });
    expect(rejected.body.approval).toMatchObject({ state: 'rejected', decisionReason: 'no proof of delivery', applied: null });
    const late = await call('POST', `/approvals/${id}/approve`, { actor: 'other@example.com', reason: 'changed my mind' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('invalid_state');
    expect(late.body.error.message).toMatch(/is rejected, not pending: it was rejected by checker@example.com/);
    expect((await release(api.world)).state).toBe('AT_MAX');
  });

  test('after 24 hours it is expired, on read and by the sweep: approving it is 409 naming expired', async () => {
    await atMaxOrder();
    await requireApprovals({ manualRelease: {} });
    const id = (await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' })).body.approval.approvalId;
    api.world.clock.advance({ hours: 23, minutes: 59 });
    expect((await call('GET', '/approvals?state=pending')).body.items).toHaveLength(1);
    api.world.clock.advance({ minutes: 1 });
    expect((await call('GET', `/approvals/${id}`)).body.state).toBe('expired');
    expect(await expireOverdue(api.world.deps)).toBe(1);
    expect(await expireOverdue(api.world.deps)).toBe(0);
    expect((await call('GET', '/approvals?state=pending')).body.items).toEqual([]);
    expect((await call('GET', '/approvals?state=expired')).body.items.map((a: { approvalId: string }) => a.approvalId)).toEqual([id]);
    const late = await call('POST', `/approvals/${id}/approve`, { actor: CHECKER, reason: 'sorry, late' });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/is expired, not pending: it was expired at 2022-12-03T16:05:00\+05:30/);
    expect(records().filter((r) => r.kind === 'approval_expired')).toHaveLength(1);
  });

  test('two approvers at once: exactly one decision, the change applied once', async () => {
    await atMaxOrder();
    await requireApprovals({ manualRelease: {} });
    const id = (await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' })).body.approval.approvalId;
    const answers = await Promise.all([
      call('POST', `/approvals/${id}/approve`, { actor: CHECKER, reason: 'ok' }),
      call('POST', `/approvals/${id}/approve`, { actor: 'second@example.com', reason: 'ok too' }),
      call('POST', `/approvals/${id}/reject`, { actor: 'third@example.com', reason: 'no' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    expect(records().filter((r) => r.kind === 'approval_approved' || r.kind === 'approval_rejected')).toHaveLength(1);
    expect(records().filter((r) => r.kind === 'manual_release').length).toBeLessThanOrEqual(1);
  });

  test('an override of a HELD release needs the override rule; the release moved meanwhile: 409 preview_stale and it stays pending', async () => {
    await heldOrder({ overrideRelease: {} });
    const asked = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'vendor in hardship', override: true });
    expect(asked.body.approval).toMatchObject({ change: 'overrideRelease', basis: { state: 'HELD' } });
    await call('POST', `/vendors/${VENDOR}/unhold`, { actor: 'risk@example.com', reason: 'cleared' });
    await api.world.runJobs();
    const stale = await call('POST', `/approvals/${asked.body.approval.approvalId}/approve`, { actor: CHECKER, reason: 'ok' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('preview_stale');
    expect(stale.body.error.message).toMatch(/was HELD and is SCHEDULED now/);
    expect((await call('GET', `/approvals/${asked.body.approval.approvalId}`)).body.state).toBe('pending');
  });
});

describe('policy and settings changes applied to open orders', () => {
  const policy = { scheduleOption: 1, release: { kind: 'immediate' }, actor: MAKER, reason: 'trusted vendor', applyTo: 'open_orders' };

  test('a policy for open orders waits; new_orders does not; a version that moved makes the approval 409 preview_stale', async () => {
    await atMaxOrder();
    await requireApprovals({ policyChange: { above: { INR: '1000' } } });
    expect((await call('PUT', `/vendors/${VENDOR}/policy`, { ...policy, applyTo: 'new_orders' })).status).toBe(200);
    const asked = await call('PUT', `/vendors/${VENDOR}/policy`, policy);
    expect(asked.status).toBe(202);
    expect(asked.body.approval).toMatchObject({ change: 'policyChange', moves: [{ currency: 'INR', amount: '1250.50', count: 1 }], basis: { policyVersion: 2 } });
    expect((await call('GET', `/vendors/${VENDOR}/policy`)).body.version).toBe(2);
    await call('PUT', `/vendors/${VENDOR}/policy`, { ...policy, applyTo: 'new_orders', reason: 'meanwhile' });
    const stale = await call('POST', `/approvals/${asked.body.approval.approvalId}/approve`, { actor: CHECKER, reason: 'ok' });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'preview_stale' });
    expect(stale.body.error.message).toMatch(/the policy of vendor_a moved from version 2 to 3/);
  });

  test('an approved policy change is applied as asked, to the open orders', async () => {
    await atMaxOrder();
    await requireApprovals({ policyChange: {} });
    const asked = await call('PUT', `/vendors/${VENDOR}/policy`, policy);
    const approved = await call('POST', `/approvals/${asked.body.approval.approvalId}/approve`, { actor: CHECKER, reason: 'ok' });
    expect(approved.status).toBe(200);
    expect(approved.body.result).toMatchObject({ version: 2, release: { kind: 'immediate' }, actor: MAKER, reason: 'trusted vendor' });
    expect(approved.body.result.job).not.toBeNull();
  });

  test('a settings change waits, including one that would lift the approvals themselves', async () => {
    await requireApprovals({ settingsChange: {} });
    const asked = await call('PUT', '/settings', { approvals: {}, actor: MAKER, reason: 'too slow' });
    expect(asked.status).toBe(202);
    expect(asked.body.approval).toMatchObject({ change: 'settingsChange', moves: null, basis: { settingsVersion: 1 } });
    expect((await call('GET', '/settings')).body.approvals).toEqual({ settingsChange: {} });
    const approved = await call('POST', `/approvals/${asked.body.approval.approvalId}/approve`, { actor: CHECKER, reason: 'agreed' });
    expect(approved.status).toBe(200);
    expect((await call('GET', '/settings')).body).toMatchObject({ approvals: {}, version: 2, actor: MAKER, reason: 'too slow' });
  });
});

test("a settings change above an amount (contract 6.4): what it moves is every vendor's open money, per currency", async () => {
  await atMaxOrder();
  await usePolicy(api.world, { kind: 'at_max' }, 'vendor_b');
  await send(api.world, 'order.paid', paid('order_1002', [{ vendorId: 'vendor_b', amount: '800.00' }]));
  expect((await requireApprovals({ settingsChange: { above: { INR: '2000.00' } } })).status).toBe(200);
  // 1250.50 + 800.00 open: under 2000.00 is not, so it waits, naming what it moves.
  const asked = await call('PUT', '/settings', { holdWarning: 'P3D', actor: MAKER, reason: 'earlier alerts' });
  expect(asked.status).toBe(202);
  expect(asked.body.approval).toMatchObject({ change: 'settingsChange', moves: [{ currency: 'INR', amount: '2050.50', count: 2 }] });
  await call('POST', `/approvals/${asked.body.approval.approvalId}/reject`, { actor: CHECKER, reason: 'not now' });
  expect((await call('GET', '/settings')).body.holdWarning).not.toBe('P3D');
  // Raising the amount is itself a settings change under the rule in force: approved by the other person.
  const raise = await call('PUT', '/settings', { approvals: { settingsChange: { above: { INR: '2050.50' } } }, actor: MAKER, reason: 'raise' });
  expect(raise.status).toBe(202);
  expect((await call('POST', `/approvals/${raise.body.approval.approvalId}/approve`, { actor: CHECKER, reason: 'ok' })).status).toBe(200);
  // At the amount (not greater): applied at once.
  const atAmount = await call('PUT', '/settings', { holdWarning: 'P3D', actor: MAKER, reason: 'earlier alerts' });
  expect([atAmount.status, atAmount.body.holdWarning]).toEqual([200, 'P3D']);
});

test('the sweep function expires an approval past its 24 hours (written and audited), without anyone reading it', async () => {
  await atMaxOrder();
  await requireApprovals({ manualRelease: {} });
  const id = (await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { actor: MAKER, reason: 'goods received' })).body.approval.approvalId;
  api.world.clock.advance({ hours: 25 });
  await makeSweepHandler(() => api.world.deps)({}, {} as Context);
  expect((await api.world.approvals.get(id))?.state).toBe('expired');
  expect(records().filter((r) => r.kind === 'approval_expired').map((r) => r.detail.approvalId)).toEqual([id]);
});

describe('GET /approvals', () => {
  test('newest first, in pages; a bad state or cursor is 400 naming it', async () => {
    await usePolicy(api.world, { kind: 'at_max' });
    await requireApprovals({ unhold: {} });
    await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'risk@example.com', reason: 'review' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      api.world.clock.advance({ minutes: 1 });
      ids.push((await call('POST', `/vendors/${VENDOR}/unhold`, { actor: MAKER, reason: `try ${i}` })).body.approval.approvalId);
    }
    const first = await call('GET', '/approvals?state=pending&limit=2');
    expect(first.body.items.map((a: { approvalId: string }) => a.approvalId)).toEqual([ids[2], ids[1]]);
    const second = await call('GET', `/approvals?state=pending&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ items: [{ approvalId: ids[0] }], nextCursor: null });
    const bad = await call('GET', '/approvals?state=done');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^state: is "done"; send one of pending, approved, rejected, expired/);
    expect((await call('GET', `/approvals?state=approved&cursor=${first.body.nextCursor}`)).status).toBe(400);
    expect((await call('GET', '/approvals/not-an-id')).status).toBe(400);
    expect((await call('GET', '/approvals/ap_000000000aaaaaaaaaaaa')).status).toBe(404);
  });
});
