/**
 * The config kept by warm containers (config-stamp.ts), end to end on the local edge with the stamp armed: the release
 * containers have read a vendor's policy and hold for an earlier release; a hold, and then a policy applied to open
 * orders, made through the API (another container) are in force at their answer: the next due release is not sent,
 * or sent under the new plan. Which concurrency slot (and so which kept config) claims a release is the edge's choice,
 * so the mechanism itself, warm reader against writer, is proved in test/adapters/config-stamp.test.ts.
 */
import { startHarness, type Harness } from './harness';

const VENDOR = 'kw-vendor';

async function pay(h: Harness, orderId: string): Promise<void> {
  const transactionTime = await h.createPaidOrder(orderId, [{ vendorId: VENDOR, amount: 100 }]);
  await h.send('order.paid', { orderId, transactionTime, vendors: [{ vendorId: VENDOR, amount: 100 }] });
}

async function stateOf(h: Harness, orderId: string): Promise<{ state: string; policyVersion: number }> {
  const { body } = await h.api('GET', `/orders/${orderId}`);
  return body.vendors[0];
}

describe('config kept by warm containers: a change through the API is in force at the next claim', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.createVendors([{ id: VENDOR, scheduleOption: 1 }]);
    await h.setPolicy(VENDOR, { kind: 'after_payment', delay: 'P1D' });
  }, 60_000);
  afterAll(async () => {
    await h.close();
  });

  it('a hold answered between two claims stops the second; a policy applied to open orders plans the third', async () => {
    // Warm: the release containers claim and send kw-1, reading the vendor's policy and hold (none) and keeping them.
    await pay(h, 'kw-1');
    await h.advance('P1D');
    expect((await h.appliedAtGateway()).get(`kw-1/${VENDOR}`)).toBe(1);
    expect((await stateOf(h, 'kw-1')).state).toBe('APPLIED');

    await pay(h, 'kw-2');
    const held = await h.api('POST', `/vendors/${VENDOR}/hold`, { actor: 'risk@test', reason: 'fraud review' });
    expect(held.status).toBe(200);
    await h.advance('P1D');
    expect((await h.appliedAtGateway()).has(`kw-2/${VENDOR}`)).toBe(false);
    expect((await stateOf(h, 'kw-2')).state).toBe('HELD');

    // Unheld, and the vendor's open orders moved to at_max (nothing to send): kw-3's due claim sends nothing.
    expect((await h.api('POST', `/vendors/${VENDOR}/unhold`, { actor: 'risk@test', reason: 'cleared' })).status).toBe(200);
    await pay(h, 'kw-3');
    const applied = await h.api('PUT', `/vendors/${VENDOR}/policy`, { scheduleOption: 1, release: { kind: 'at_max' }, applyTo: 'open_orders', actor: 'finance@test', reason: 'stop early releases' });
    expect(applied.status).toBe(200);
    await h.advance('P2D');
    expect((await h.appliedAtGateway()).has(`kw-3/${VENDOR}`)).toBe(false);
    const third = await stateOf(h, 'kw-3');
    expect(third).toMatchObject({ state: 'AT_MAX', policyVersion: 2 });
  }, 120_000);

  it('a hold whose job has not reached the release yet: the warm containers\' claim alone reads it and sends nothing', async () => {
    await h.setPolicy(VENDOR, { kind: 'after_payment', delay: 'P1D' });
    await pay(h, 'kw-4');
    await h.advance('P1D');
    expect((await h.appliedAtGateway()).get(`kw-4/${VENDOR}`)).toBe(1);
    await pay(h, 'kw-5');
    expect((await stateOf(h, 'kw-5')).state).toBe('SCHEDULED');
    // Stored as the hold's answer stores it, through the API container's repository, before its job lists the
    // vendor's releases: kw-5 stays SCHEDULED, so only the claim's read of the hold stands between it and a send.
    await h.runtime.deps.holds.put({ vendorId: VENDOR, held: true, source: 'risk', actor: 'risk@test', reason: 'claim-time check', at: h.runtime.deps.clock.now() });
    expect((await stateOf(h, 'kw-5')).state).toBe('SCHEDULED');
    await h.advance('P1D');
    expect((await h.appliedAtGateway()).has(`kw-5/${VENDOR}`)).toBe(false);
    expect((await stateOf(h, 'kw-5')).state).toBe('HELD');
  }, 120_000);
});
