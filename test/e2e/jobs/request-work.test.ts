/**
 * Contract 6.3 at size: a hold, an unhold and a policy applied to open orders do the same DynamoDB calls in their
 * request whether the vendor has 10 open releases or 1,000 (four eyes' amount and the cap's currencies included), and
 * a held vendor's release is never sent after the hold's answer, while the hold's job is still running.
 */
import { join } from 'node:path';
import { startHarness, type Harness } from '../harness';
import { seed } from '../../../bench/scale';
import { releaseKeyOf } from '../../../functions/application/release-store';
import { dynamoCalls } from './dynamo-call-counter';
import { jobEnded } from './job-helpers';

jest.setTimeout(300_000);

const SMALL = 'ven-small';
const BIG = 'ven-big';
const WHO = { actor: 'finance@example.com', reason: 'size check' };

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ clientHook: join(__dirname, 'dynamo-call-counter.ts') });
  await seed(harness.runtime, [{ vendorId: SMALL, count: 10 }, { vendorId: BIG, count: 1_000 }]);
});
afterAll(() => harness?.close());

/** The request's DynamoDB calls (this thread's: the API's), by operation, sorted; its job run to its end after. */
async function callsOf(method: string, path: string, body: unknown): Promise<{ status: number; body: any; calls: string[] }> {
  dynamoCalls().splice(0);
  const answer = await harness.api(method, path, body);
  const calls = [...dynamoCalls()].sort();
  if (answer.body?.job?.jobId) expect((await jobEnded(harness, answer.body.job.jobId)).state).toBe('succeeded');
  return { ...answer, calls };
}

/** The same request for each vendor: the calls of each, which must be the same list. */
async function sameCallsFor(method: string, path: (vendorId: string) => string, body: unknown) {
  const small = await callsOf(method, path(SMALL), body);
  const big = await callsOf(method, path(BIG), body);
  expect(big.calls).toEqual(small.calls);
  expect(small.calls.length).toBeGreaterThan(0);
  return { small, big };
}

test('hold, unhold and an apply to open orders (with a cap) make the same DynamoDB calls for 10 open releases as for 1,000', async () => {
  const hold = await sameCallsFor('POST', (v) => `/vendors/${v}/hold`, WHO);
  expect([hold.small.status, hold.big.status]).toEqual([200, 200]);
  expect(hold.big.body.job).toMatchObject({ kind: 'vendor_hold' });
  const unhold = await sameCallsFor('POST', (v) => `/vendors/${v}/unhold`, WHO);
  expect([unhold.small.status, unhold.big.status]).toEqual([200, 200]);
  // The cap's currencies are read too: a cap in a currency the vendor has none of is flagged, from a bounded read.
  const apply = await sameCallsFor('PUT', (v) => `/vendors/${v}/policy`, {
    scheduleOption: 1, release: { kind: 'after_payment', delay: 'P2D' }, maxExposure: { INR: '100000.00', USD: '10.00' }, applyTo: 'open_orders', ...WHO,
  });
  expect(apply.small.body.warnings).toEqual([{ field: 'maxExposure.USD', message: expect.stringContaining(`vendor ${SMALL} has no open money in USD (it has INR)`) }]);
  expect(apply.big.body.warnings).toEqual([{ field: 'maxExposure.USD', message: expect.stringMatching(/vendor ven-big has no open money in USD among the \d+ open releases read \(it has more\) \(it has INR\)/) }]);
  expect(apply.big.body.job).toMatchObject({ kind: 'policy_apply' });
});

test('four eyes reads a bounded amount: the same calls for 10 and 1,000 releases; past the bound the amount is a lower bound and the control fails closed', async () => {
  const rules = { unhold: { above: { INR: '1.00' } }, policyChange: { above: { INR: '1.00' } } };
  expect((await harness.api('PUT', '/settings', { approvals: rules, ...WHO })).status).toBe(200);
  for (const vendorId of [SMALL, BIG]) expect((await harness.api('POST', `/vendors/${vendorId}/hold`, WHO)).status).toBe(200);
  const unhold = await sameCallsFor('POST', (v) => `/vendors/${v}/unhold`, WHO);
  expect([unhold.small.status, unhold.big.status]).toEqual([202, 202]);
  expect(unhold.small.body.approval.moves).toEqual([{ currency: 'INR', amount: '1005.00', count: 10 }]);
  const [bigMoves] = unhold.big.body.approval.moves;
  expect(bigMoves).toMatchObject({ currency: 'INR', atLeast: true });
  expect(bigMoves.count).toBeLessThan(1_000);
  const apply = await sameCallsFor('PUT', (v) => `/vendors/${v}/policy`, { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P1D' }, applyTo: 'open_orders', ...WHO });
  expect([apply.small.status, apply.big.status]).toEqual([202, 202]);

  // Above the small vendor's open money, not above the big one's: the small one's unhold goes ahead; the big one's
  // amount read in the request is only a lower bound, so it needs a second person (a control fails closed).
  const high = { unhold: { above: { INR: '50000.00' } } };
  expect((await harness.api('PUT', '/settings', { approvals: high, ...WHO })).status).toBe(200);
  expect((await callsOf('POST', `/vendors/${SMALL}/unhold`, WHO)).status).toBe(200);
  const big = await harness.api('POST', `/vendors/${BIG}/unhold`, WHO);
  expect(big.status).toBe(202);
  expect(big.body.approval.moves[0]).toMatchObject({ currency: 'INR', atLeast: true });
  expect((await harness.api('PUT', '/settings', { approvals: {}, ...WHO })).status).toBe(200);
});

test('a held vendor\'s release is never sent after the hold\'s answer while its job still runs; another vendor\'s due release is sent', async () => {
  const HELD = 'ven-due-held';
  const FREE = 'ven-due-free';
  // Releases due now, with their release keys, as if their schedules were about to fire; the other vendor's orders
  // are paid at the gateway too, so that its sends are applied there.
  await harness.createVendors([{ id: HELD, scheduleOption: 1 }, { id: FREE, scheduleOption: 1 }]);
  for (let i = 0; i < 5; i += 1) await harness.createPaidOrder(`${FREE}-o${String(i).padStart(7, '0')}`, [{ vendorId: FREE, amount: 100.5 }]);
  await seed(harness.runtime, [{ vendorId: HELD, count: 800, due: true }, { vendorId: FREE, count: 5, due: true }]);
  const hold = await harness.api('POST', `/vendors/${HELD}/hold`, WHO);
  expect(hold.status).toBe(200);
  // Right after the answer every schedule fires at once: each command on the release queue, as Scheduler puts it.
  const commands = [HELD, FREE].flatMap((vendorId) => Array.from({ length: vendorId === HELD ? 800 : 5 }, (_, i) => {
    const orderId = `${vendorId}-o${String(i).padStart(7, '0')}`;
    return { orderId, vendorId, releaseKey: releaseKeyOf(orderId, vendorId, 1) };
  }));
  await harness.runtime.deps.queue.enqueue(commands);
  const whileSent = (await harness.api('GET', `/jobs/${hold.body.job.jobId}`)).body;
  // The job had not finished when the sends began: what stops them is the hold read at claim time.
  expect(['queued', 'running']).toContain(whileSent.state);
  expect(whileSent.done).toBeLessThan(800);
  expect((await jobEnded(harness, hold.body.job.jobId)).state).toBe('succeeded');
  await harness.runtime.idle();

  const orders = harness.runtime.deps.orders;
  for (const c of commands.filter((c) => c.vendorId === HELD)) {
    const release = await orders.getRelease(c.orderId, c.vendorId);
    expect({ orderId: c.orderId, state: release!.state, attempts: release!.attempts.length }).toEqual({ orderId: c.orderId, state: 'HELD', attempts: 0 });
  }
  // The other vendor's commands were sent and applied at the gateway: the commands did reach the sender.
  const applied = await harness.appliedAtGateway();
  expect([...applied.keys()].filter((key) => key.endsWith(`/${HELD}`))).toEqual([]);
  expect([...applied.keys()].filter((key) => key.endsWith(`/${FREE}`)).sort()).toEqual(commands.filter((c) => c.vendorId === FREE).map((c) => `${c.orderId}/${FREE}`));
  for (const c of commands.filter((c) => c.vendorId === FREE)) expect((await orders.getRelease(c.orderId, c.vendorId))!.state).toBe('APPLIED');
});
