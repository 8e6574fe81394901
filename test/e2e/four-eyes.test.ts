/**
 * Four eyes on the whole local stack (dynalite, the edge, the sandbox) with two people told apart by their actor
 * (locally nobody is signed in): the CLI's `approvals list|approve|reject`, the state index in DynamoDB, 24-hour expiry
 * on the shared clock, and the principal on the audit records and the timeline.
 */
import { startHarness, vendorOf, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.createVendors([{ id: 'fe_vendor', scheduleOption: 1 }]);
  await h.setPolicy('fe_vendor', { kind: 'at_max' });
  const transactionTime = await h.createPaidOrder('fe_order_1', [{ vendorId: 'fe_vendor', amount: 60000 }]);
  await h.send('order.paid', { orderId: 'fe_order_1', transactionTime, vendors: [{ vendorId: 'fe_vendor', amount: 60000 }] });
  const small = await h.createPaidOrder('fe_order_2', [{ vendorId: 'fe_vendor', amount: 400 }]);
  await h.send('order.paid', { orderId: 'fe_order_2', transactionTime: small, vendors: [{ vendorId: 'fe_vendor', amount: 400 }] });
  const settings = await h.api('PUT', '/settings', { approvals: { manualRelease: { above: { INR: '50000' } } }, actor: 'admin@test', reason: 'four eyes above INR 50,000' });
  expect(settings.status).toBe(200);
});
afterAll(() => h?.close());

const cli = (...argv: string[]) => h.cli(...argv);

const stateOf = async (orderId: string) => vendorOf((await h.api('GET', `/orders/${orderId}`)).body, 'fe_vendor').state as string;

test('above INR 50,000 a manual release waits for a second person (exit 3); the maker cannot approve; the checker\'s approval releases it', async () => {
  const small = await cli('release', 'fe_order_2', 'fe_vendor', '--actor', 'maker@test', '--reason', 'small one');
  expect(small.code).toBe(0);

  const asked = await cli('release', 'fe_order_1', 'fe_vendor', '--actor', 'maker@test', '--reason', 'goods received');
  expect(asked.code).toBe(3);
  expect(asked.out).toMatch(/^waiting for a second person \(four eyes\): nothing changed yet\.\napproval (ap_\w+): manualRelease, would move INR 60,000\.00; asked by maker@test \(unauthenticated\)/);
  const id = /approval (ap_\w+)/.exec(asked.out)![1];
  expect(await stateOf('fe_order_1')).toBe('AT_MAX');

  const listed = await cli('approvals', 'list');
  expect(listed.code).toBe(0);
  expect(listed.out).toContain(id);
  expect(listed.out).toMatch(/manualRelease\s+pending\s+fe_order_1\/\S*\s+INR 60,000\.00/);

  const own = await cli('approvals', 'approve', id, '--actor', 'maker@test', '--reason', 'mine');
  expect(own.code).toBe(1);
  expect(own.err).toMatch(/answered 403.*asked for this change; four eyes means another person decides it/);

  const approved = await cli('approvals', 'approve', id, '--actor', 'checker@test', '--reason', 'delivery proof seen');
  expect([approved.code, approved.out]).toEqual([0, `approval ${id} approved by checker@test (unauthenticated): applied as asked\n`]);
  await h.runtime.idle();
  expect(await stateOf('fe_order_1')).not.toBe('AT_MAX');

  const again = await cli('approvals', 'reject', id, '--actor', 'third@test', '--reason', 'too late');
  expect(again.code).toBe(1);
  expect(again.err).toMatch(/answered 409.*is approved, not pending/);

  // The order's timeline shows who asked and who approved, each with the principal (unauthenticated, locally).
  const timeline = (await h.api('GET', '/orders/fe_order_1/timeline')).body.items as Array<{ kind: string; actor?: string; principal?: string }>;
  expect(timeline.filter((e) => e.kind.startsWith('approval_') || e.kind === 'manual_release').map((e) => [e.kind, e.actor, e.principal])).toEqual([
    ['approval_requested', 'maker@test', 'local:unauthenticated'],
    ['approval_approved', 'checker@test', 'local:unauthenticated'],
    ['manual_release', 'maker@test', 'local:unauthenticated'],
    ['approval_applied', 'checker@test', 'local:unauthenticated'],
  ]);
  expect((await h.api('GET', '/audit/verify')).body).toMatchObject({ ok: true, firstBroken: null });
});

test('a rejected approval changes nothing; one nobody decides expires after 24 hours of the shared clock', async () => {
  const transactionTime = await h.createPaidOrder('fe_order_3', [{ vendorId: 'fe_vendor', amount: 70000 }]);
  await h.send('order.paid', { orderId: 'fe_order_3', transactionTime, vendors: [{ vendorId: 'fe_vendor', amount: 70000 }] });
  const first = /approval (ap_\w+)/.exec((await cli('release', 'fe_order_3', 'fe_vendor', '--actor', 'maker@test', '--reason', 'one')).out)![1];
  const rejected = await cli('approvals', 'reject', first, '--actor', 'checker@test', '--reason', 'no delivery proof');
  expect(rejected.out).toBe(`approval ${first} rejected by checker@test (unauthenticated): nothing changes\n`);
  expect((await cli('approvals', 'list', '--state', 'rejected')).out).toContain(first);

  const second = /approval (ap_\w+)/.exec((await cli('release', 'fe_order_3', 'fe_vendor', '--actor', 'maker@test', '--reason', 'two')).out)![1];
  await h.advance('PT24H1M');
  expect((await cli('approvals', 'list', '--json')).out).not.toContain(second);
  expect((await cli('approvals', 'list', '--state', 'expired', '--json')).out).toContain(second);
  const late = await cli('approvals', 'approve', second, '--actor', 'checker@test', '--reason', 'late');
  expect(late.code).toBe(1);
  expect(late.err).toMatch(/answered 409.*is expired, not pending/);
  expect(await stateOf('fe_order_3')).toBe('AT_MAX');
});

test('whoami: locally nobody is signed in', async () => {
  const who = await cli('whoami', '--json');
  expect(JSON.parse(who.out)).toEqual({ principal: 'local:unauthenticated', name: null, authenticated: false });
});
