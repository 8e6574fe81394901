/** Previews over HTTP (in-memory ports): the policy and settings previews, previewId on PUT, expectedVersion, applyTo. */
import { paid, send, usePolicy } from './scenario';
import { serveApiOverFakes } from './live-api';

const api = serveApiOverFakes();

const call = api.request;

const VENDOR = 'vendor_a';
const ORDERS = ['order_1001', 'order_1002', 'order_1003'];
// The gateway's documented example: eligibility 6 Dec 2022 09:00 settles 7 Dec 11:00 on schedule option 1, i.e.
// transaction time (2 Dec 16:00) + P3DT17H.
const CANDIDATE = { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3DT17H' }, actor: 'finance@example.com', reason: 'trusted vendor' };

async function payOrders(orderIds = ORDERS, amount = '1250.50') {
  for (const orderId of orderIds) await send(api.world, 'order.paid', paid(orderId, [{ vendorId: VENDOR, amount }]));
}

describe('POST /vendors/{vendorId}/policy/preview', () => {
  test('every unsent release now and under the candidate, with totals per India day; nothing changes', async () => {
    await payOrders();
    const before = await Promise.all(ORDERS.map((o) => api.world.orders.getRelease(o, VENDOR)));
    const { status, body } = await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE);
    expect(status).toBe(200);
    expect(body).toMatchObject({ vendorId: VENDOR, fromVersion: 0, applyTo: 'new_orders', covered: 3, moved: 3, omitted: 0 });
    expect(body.previewId).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(body.releases.map((r: { orderId: string }) => r.orderId).sort()).toEqual(ORDERS);
    // No policy: the gateway's default at max eligibility, 17 Dec 16:00, which settles on the next working day (19 Dec,
    // a Monday) at 11:00; the candidate's 6 Dec 09:00 settles 7 Dec 11:00.
    for (const r of body.releases) {
      expect(r).toMatchObject({
        state: 'AT_MAX',
        current: { targetEligibility: '2022-12-17T16:00:00+05:30', predictedSettlement: '2022-12-19T11:00:00+05:30' },
        candidate: { targetEligibility: '2022-12-06T09:00:00+05:30', predictedSettlement: '2022-12-07T11:00:00+05:30' },
      });
    }
    expect(body.perDay).toEqual([
      { date: '2022-12-07', currency: 'INR', current: { count: 0, amount: '0.00' }, candidate: { count: 3, amount: '3751.50' } },
      { date: '2022-12-19', currency: 'INR', current: { count: 3, amount: '3751.50' }, candidate: { count: 0, amount: '0.00' } },
    ]);
    // A preview changes nothing: no policy version, every release as it was.
    expect((await call('GET', `/vendors/${VENDOR}/policy/history`)).body.versions).toEqual([]);
    expect(await Promise.all(ORDERS.map((o) => api.world.orders.getRelease(o, VENDOR)))).toEqual(before);
    expect(api.world.scheduler.created).toEqual([]);
  });

  test("an at_max release keeps its order's story: a cancelled order is not released by the candidate", async () => {
    await payOrders(ORDERS.slice(0, 2));
    await send(api.world, 'order.cancelled', { orderId: ORDERS[1], cancelledAt: '2022-12-02T16:03:00+05:30' });
    const { body } = await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE);
    const byOrder = new Map(body.releases.map((r: { orderId: string }) => [r.orderId, r]));
    // at_max stays AT_MAX whatever the cancellation says, so both are open; planned again, the cancelled one sends nothing.
    expect(byOrder.get(ORDERS[1])).toMatchObject({ state: 'AT_MAX', candidate: { targetEligibility: null, predictedSettlement: null } });
    expect(byOrder.get(ORDERS[0])).toMatchObject({ candidate: { targetEligibility: '2022-12-06T09:00:00+05:30' } });
    expect(body.perDay).toEqual([
      { date: '2022-12-07', currency: 'INR', current: { count: 0, amount: '0.00' }, candidate: { count: 1, amount: '1250.50' } },
      { date: '2022-12-19', currency: 'INR', current: { count: 2, amount: '2501.00' }, candidate: { count: 0, amount: '0.00' } },
    ]);
  });

  test('a bad body or vendor id: 400 naming each field', async () => {
    const bad = await call('POST', `/vendors/${VENDOR}/policy/preview`, { scheduleOption: 10, release: { kind: 'soon' }, applyTo: 'all', actor: 'a' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { field: string }) => i.field).sort()).toEqual(['applyTo', 'release.kind', 'scheduleOption']);
    // Who and why may wait for the PUT; an actor that is there must be valid.
    const { actor: _a, reason: _r, ...withoutWho } = CANDIDATE;
    expect((await call('POST', `/vendors/${VENDOR}/policy/preview`, withoutWho)).status).toBe(200);
    expect((await call('POST', `/vendors/${VENDOR}/policy/preview`, { ...CANDIDATE, actor: '' })).body.error.issues[0].field).toBe('actor');
    const id = await call('POST', '/vendors/x/policy/preview', CANDIDATE);
    expect(id.status).toBe(400);
    expect(id.body.error.issues[0].field).toBe('vendorId');
  });

  test('the list is cut at ?limit= while the day totals cover every release', async () => {
    await payOrders();
    const { body } = await call('POST', `/vendors/${VENDOR}/policy/preview?limit=1`, CANDIDATE);
    expect(body).toMatchObject({ covered: 3, omitted: 2 });
    expect(body.releases).toHaveLength(1);
    expect(body.perDay[0].candidate.count).toBe(3);
    expect((await call('POST', `/vendors/${VENDOR}/policy/preview?limit=-1`, CANDIDATE)).status).toBe(400);
  });
});

describe('PUT /vendors/{vendorId}/policy with previewId, expectedVersion and applyTo', () => {
  test('applies when what the preview showed still holds, and plans open orders again with open_orders', async () => {
    await payOrders();
    const preview = (await call('POST', `/vendors/${VENDOR}/policy/preview`, { ...CANDIDATE, applyTo: 'open_orders' })).body;
    const put = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, applyTo: 'open_orders', previewId: preview.previewId, expectedVersion: 0 });
    expect(put).toMatchObject({ status: 200, body: { vendorId: VENDOR, version: 1, job: { kind: 'policy_apply' } } });
    await api.world.runJobs();
    expect((await call('GET', `/jobs/${put.body.job.jobId}`)).body).toMatchObject({ state: 'succeeded', total: 3, done: 3 });
    const order = (await call('GET', `/orders/${ORDERS[0]}`)).body;
    expect(order.vendors[0]).toMatchObject({ state: 'SCHEDULED', policyVersion: 1, targetEligibility: '2022-12-06T09:00:00+05:30' });
  });

  test('new_orders (the default) keeps open orders on their pinned version', async () => {
    await payOrders();
    const put = await call('PUT', `/vendors/${VENDOR}/policy`, CANDIDATE);
    expect(put.status).toBe(200);
    const order = (await call('GET', `/orders/${ORDERS[0]}`)).body;
    expect(order.vendors[0]).toMatchObject({ state: 'AT_MAX', policyVersion: 0 });
  });

  test('a preview that no longer holds is 409 preview_stale, and nothing is saved', async () => {
    await payOrders(ORDERS.slice(0, 2));
    const preview = (await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE)).body;
    // A new order of the vendor: the preview did not show it.
    await payOrders(ORDERS.slice(2));
    const stale = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, previewId: preview.previewId });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('preview_stale');
    expect(stale.body.error.message).toMatch(/no longer holds/);
    expect((await call('GET', `/vendors/${VENDOR}/policy`)).body.version).toBe(0);

    // Another body than the one previewed is stale too.
    const fresh = (await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE)).body;
    const other = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, release: { kind: 'immediate' }, previewId: fresh.previewId });
    expect(other.body.error.code).toBe('preview_stale');
    // A preview of another vendor, an unknown id, and an expired one.
    const elsewhere = await call('PUT', '/vendors/vendor_b/policy', { ...CANDIDATE, previewId: fresh.previewId });
    expect(elsewhere.body.error).toMatchObject({ code: 'preview_stale', message: expect.stringMatching(/previewed policy:vendor_a/) });
    expect((await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, previewId: 'nosuchpreview' })).body.error.code).toBe('preview_stale');
    api.world.clock.advance('PT61M');
    const expired = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, previewId: fresh.previewId });
    expect(expired).toMatchObject({ status: 409, body: { error: { code: 'preview_stale', message: expect.stringMatching(/expired/) } } });
    expect((await call('GET', `/vendors/${VENDOR}/policy`)).body.version).toBe(0);
  });

  test('a preview of at most the strict bound is checked release by release: a delivery since it makes it stale', async () => {
    await usePolicy(api.world, { kind: 'after_delivery', delay: 'P1D' }, VENDOR);
    await payOrders(ORDERS.slice(0, 2));
    const preview = (await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE)).body;
    const before = await api.world.orders.getRelease(ORDERS[0], VENDOR);
    await send(api.world, 'order.delivered', { orderId: ORDERS[0], deliveredAt: '2022-12-03T10:00:00+05:30' });
    // The delivery planned the release again (a new version): the preview listed it as it was before.
    expect((await api.world.orders.getRelease(ORDERS[0], VENDOR))!.version).toBeGreaterThan(before!.version);
    const stale = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, previewId: preview.previewId });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'preview_stale', message: expect.stringMatching(/no longer holds/) } } });
    const fresh = (await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE)).body;
    expect((await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, previewId: fresh.previewId })).status).toBe(200);
  });

  test('above the strict bound a PUT with previewId checks it in a few reads, never reading the releases again; a hold placed since makes it stale', async () => {
    api.deps.previewStrictReleases = 1;
    await payOrders(ORDERS.slice(0, 2));
    const preview = (await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE)).body;
    const reads = api.world.deps.reads;
    const planningRead = reads.openReleasesToPlan.bind(reads);
    let releaseReads = 0;
    reads.openReleasesToPlan = async (vendorId: string) => {
      releaseReads += 1;
      return planningRead(vendorId);
    };
    try {
      await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'risk@example.com', reason: 'review' });
      const held = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, previewId: preview.previewId });
      expect(held).toMatchObject({ status: 409, body: { error: { code: 'preview_stale' } } });
      await call('POST', `/vendors/${VENDOR}/unhold`, { actor: 'risk@example.com', reason: 'cleared' });
      const fresh = (await call('POST', `/vendors/${VENDOR}/policy/preview`, CANDIDATE)).body;
      releaseReads = 0;
      const put = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, previewId: fresh.previewId });
      expect(put.status).toBe(200);
      expect(releaseReads).toBe(0);
    } finally {
      reads.openReleasesToPlan = planningRead;
      delete api.deps.previewStrictReleases;
    }
  });

  test('a stale expectedVersion is 409', async () => {
    await usePolicy(api.world, { kind: 'immediate' }, VENDOR);
    const stale = await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, expectedVersion: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'version_conflict', message: expect.stringMatching(/expectedVersion: the policy of vendor_a is at version 1, not 0/) });
    expect((await call('PUT', `/vendors/${VENDOR}/policy`, { ...CANDIDATE, expectedVersion: 1 })).body.version).toBe(2);
  });
});

describe('POST /settings/preview and PUT /settings with previewId', () => {
  test('a smaller deferByDays: releases it would move, and those the gateway would refuse', async () => {
    await usePolicy(api.world, { kind: 'after_payment', delay: 'P10D' }, VENDOR);
    await payOrders(ORDERS.slice(0, 1));
    const { status, body } = await call('POST', '/settings/preview', { deferByDays: 5 });
    expect(status).toBe(200);
    expect(body).toMatchObject({ fromVersion: 0, covered: 1, moved: 1, refused: 1 });
    expect(body.releases[0]).toMatchObject({
      orderId: ORDERS[0],
      vendorId: VENDOR,
      state: 'SCHEDULED',
      current: { targetEligibility: '2022-12-12T16:00:00+05:30', predictedSettlement: '2022-12-13T11:00:00+05:30' },
      // Clamped to the new max eligibility, transaction time + 5 days.
      candidate: { targetEligibility: '2022-12-07T16:00:00+05:30', predictedSettlement: '2022-12-08T11:00:00+05:30' },
      refusal: expect.stringMatching(/after the max eligibility 2022-12-07T16:00:00\+05:30 of Defer by Days 5.*max_eligibity_date/),
    });
    expect((await call('GET', '/settings')).body).toMatchObject({ version: 0, deferByDays: 15 });
  });

  test('a holiday moves a settlement; settings that move nothing list nothing', async () => {
    await usePolicy(api.world, { kind: 'after_payment', delay: 'P10D' }, VENDOR);
    await payOrders(ORDERS.slice(0, 1));
    const holiday = (await call('POST', '/settings/preview', { holidays: ['2022-12-13'] })).body;
    expect(holiday.releases[0]).toMatchObject({
      current: { predictedSettlement: '2022-12-13T11:00:00+05:30' },
      candidate: { targetEligibility: '2022-12-12T16:00:00+05:30', predictedSettlement: '2022-12-14T11:00:00+05:30' },
      refusal: null,
    });
    const nothing = (await call('POST', '/settings/preview', { releaseLead: 'PT2H' })).body;
    expect(nothing).toMatchObject({ covered: 1, moved: 0, refused: 0, releases: [], perDay: [] });
    expect((await call('POST', '/settings/preview', { deferByDays: 400 })).body.error.issues[0].field).toBe('deferByDays');
  });

  test('over more vendors than an answer counts (200), a settings preview is a job at once: its request does not count each', async () => {
    for (let o = 0; o < 3; o += 1) {
      const vendors = Array.from({ length: 67 }, (_, v) => ({ vendorId: `vendor_${o}_${String(v).padStart(2, '0')}`, amount: '10.00' }));
      await send(api.world, 'order.paid', paid(`order_many${o}`, vendors));
    }
    const reads = api.world.deps.reads;
    const counted = reads.openCountUpTo.bind(reads);
    let counts = 0;
    reads.openCountUpTo = async (vendorId: string, max: number) => {
      counts += 1;
      return counted(vendorId, max);
    };
    try {
      const started = await call('POST', '/settings/preview', { deferByDays: 10 });
      expect(started.status).toBe(202);
      expect(started.body.job).toMatchObject({ kind: 'settings_preview' });
      expect(counts).toBeLessThanOrEqual(200);
    } finally {
      reads.openCountUpTo = counted;
    }
  });

  test('PUT /settings applies a preview that holds and refuses a stale one', async () => {
    await usePolicy(api.world, { kind: 'after_payment', delay: 'P10D' }, VENDOR);
    await payOrders(ORDERS.slice(0, 1));
    const first = (await call('POST', '/settings/preview', { holidays: ['2022-12-13'] })).body;
    const second = (await call('POST', '/settings/preview', { holidays: ['2022-12-14'] })).body;
    const mismatch = await call('PUT', '/settings', { holidays: ['2022-12-14'], previewId: first.previewId });
    expect(mismatch.body.error.code).toBe('preview_stale');
    const applied = await call('PUT', '/settings', { holidays: ['2022-12-14'], actor: 'ops@example.com', previewId: second.previewId });
    expect(applied).toMatchObject({ status: 200, body: { version: 1, holidays: ['2022-12-14'] } });
    // The settings version it was based on changed.
    const stale = await call('PUT', '/settings', { holidays: ['2022-12-14'], previewId: second.previewId });
    expect(stale).toMatchObject({ status: 409, body: { error: { code: 'preview_stale' } } });
  });
});
