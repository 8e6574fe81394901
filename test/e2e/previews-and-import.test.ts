/** End to end: a policy preview, its previewId required by the PUT that plans open orders again, and a CSV import. */
import { startHarness, vendorOf, type Harness } from './harness';

describe('previews and bulk import, through the local stack (DynamoDB, handlers, sandbox)', () => {
  let h: Harness;
  const vendorId = 'v-preview';
  const orders = ['order-preview-1', 'order-preview-2'];
  // The gateway's documented example: eligibility 6 Dec 2022 09:00 settles 7 Dec 11:00 on option 1, which is the
  // transaction time (2 Dec 16:00) + P3DT17H.
  const policy = { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3DT17H' }, actor: 'finance@test', reason: 'trusted now' };

  beforeAll(async () => {
    h = await startHarness();
    await h.createVendors([{ id: vendorId, scheduleOption: 1 }, { id: 'v-import-1', scheduleOption: 1 }, { id: 'v-import-2', scheduleOption: 2 }]);
    await h.runtime.clock.set(new Date('2022-12-02T16:00:00+05:30'));
    for (const orderId of orders) {
      const transactionTime = await h.createPaidOrder(orderId, [{ vendorId, amount: 600 }]);
      await h.send('order.paid', { orderId, transactionTime, vendors: [{ vendorId, amount: '600.25' }] });
    }
    await h.runtime.clock.set(new Date('2022-12-02T16:05:00+05:30'));
  });
  afterAll(() => h.close());

  it('previews, refuses a stale previewId, then applies to open orders and the gateway gets the new date', async () => {
    const preview = await h.api('POST', `/vendors/${vendorId}/policy/preview`, { ...policy, applyTo: 'open_orders' });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ vendorId, fromVersion: 0, applyTo: 'open_orders', covered: 2, moved: 2 });
    expect(preview.body.releases[0]).toMatchObject({
      state: 'AT_MAX',
      current: { targetEligibility: '2022-12-17T16:00:00+05:30', predictedSettlement: '2022-12-19T11:00:00+05:30' },
      candidate: { targetEligibility: '2022-12-06T09:00:00+05:30', predictedSettlement: '2022-12-07T11:00:00+05:30' },
    });
    expect(preview.body.perDay).toEqual([
      { date: '2022-12-07', currency: 'INR', current: { count: 0, amount: '0.00' }, candidate: { count: 2, amount: '1200.50' } },
      { date: '2022-12-19', currency: 'INR', current: { count: 2, amount: '1200.50' }, candidate: { count: 0, amount: '0.00' } },
    ]);

    // Another policy version in between: the preview no longer holds.
    const older = (await h.api('POST', `/vendors/${vendorId}/policy/preview`, policy)).body;
    await h.setPolicy(vendorId, { kind: 'at_max' });
    const stale = await h.api('PUT', `/vendors/${vendorId}/policy`, { ...policy, previewId: older.previewId });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'preview_stale' } } });

    const fresh = (await h.api('POST', `/vendors/${vendorId}/policy/preview`, { ...policy, applyTo: 'open_orders' })).body;
    expect(fresh.fromVersion).toBe(1);
    const put = await h.api('PUT', `/vendors/${vendorId}/policy`, { ...policy, applyTo: 'open_orders', previewId: fresh.previewId, expectedVersion: 1 });
    expect(put).toMatchObject({ status: 200, body: { version: 2, job: { kind: 'policy_apply' } } });
    // The open releases are planned again by the job (on the edge's job queue): idle once it is done.
    await h.runtime.idle();
    expect((await h.api('GET', `/jobs/${put.body.job.jobId}`)).body).toMatchObject({ state: 'succeeded', total: orders.length, done: orders.length });
    for (const orderId of orders) {
      const order = (await h.api('GET', `/orders/${orderId}`)).body;
      expect(vendorOf(order, vendorId)).toMatchObject({ state: 'SCHEDULED', policyVersion: 2, targetEligibility: '2022-12-06T09:00:00+05:30' });
    }
    await h.advance('P4D');
    const order = (await h.api('GET', `/orders/${orders[0]}`)).body;
    expect(vendorOf(order, vendorId)).toMatchObject({
      state: 'APPLIED', appliedEligibility: '2022-12-06T09:00:00+05:30', predictedSettlement: '2022-12-07T11:00:00+05:30',
    });
    expect((await h.appliedAtGateway()).get(`${orders[0]}/${vendorId}`)).toBe(1);
  });

  it('imports a CSV: a dry run, an apply, and the same file again changing nothing', async () => {
    const csv = 'vendorId,scheduleOption,release,delay,reason\nv-import-1,1,immediate,,trusted\nv-import-2,2,after_delivery,P2D,new vendor\n';
    const post = async (query: string) => {
      const response = await fetch(`${h.runtime.api.url}/policies/import?${query}`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: csv });
      return { status: response.status, body: await response.json() as any };
    };
    expect(await post('actor=finance%40test')).toMatchObject({ status: 200, body: { dryRun: true, rows: 2, valid: 2, errors: [] } });
    expect((await h.api('GET', '/vendors/v-import-1/policy')).body.version).toBe(0);
    const applied = await post('dryRun=false&actor=finance%40test');
    expect(applied).toMatchObject({ status: 200, body: { applied: true, policies: [{ vendorId: 'v-import-1', version: 1 }, { vendorId: 'v-import-2', version: 1 }] } });
    expect((await h.api('GET', '/vendors/v-import-2/policy')).body).toMatchObject({
      version: 1, scheduleOption: 2, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'finance@test', reason: 'new vendor',
    });
    expect((await post('dryRun=false&actor=finance%40test')).body).toMatchObject({ applied: false, importId: applied.body.importId });
    expect((await h.api('GET', '/vendors/v-import-2/policy/history')).body.versions).toHaveLength(1);
  });
});
