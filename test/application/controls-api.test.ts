/**
 * Contract 6.4 over real HTTP (fakes behind the API): hold sources and who may lift a hold, the date the gateway
 * settles a held release anyway, the holdWarning alert, exposure per currency with its forecast on GET /vendors, and
 * a policy's maxExposure with its warning for a currency the vendor has no money in.
 */
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';
import { serveApiOverFakes } from './live-api';

const api = serveApiOverFakes('2022-12-02T16:00:00+05:30');

const call = api.settled;

const ORDER_2 = 'order_1002';

describe('honest holds', () => {
  test('a hold has a source (default finance); a weaker unhold is refused naming the hold\'s source and what to send', async () => {
    await usePolicy(api.world, { kind: 'after_payment', delay: 'P3D' });
    await send(api.world, 'order.paid', paid());
    expect(await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'ops@example.com', reason: 'paperwork' }))
      .toMatchObject({ status: 200, body: { held: true, source: 'finance' } });
    expect(await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'risk@example.com', reason: 'fraud review', source: 'risk' }))
      .toMatchObject({ status: 200, body: { held: true, source: 'risk' } });
    // Placed again by a weaker source, the hold keeps the stronger one.
    expect((await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'vendor@example.com', reason: 'asked to wait', source: 'vendor_request' })).body.source).toBe('risk');

    const refused = await call('POST', `/vendors/${VENDOR}/unhold`, { actor: 'ops@example.com', reason: 'done' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('hold_source');
    expect(refused.body.error.message).toMatch(/is held by source "risk".*an unhold with source "finance" cannot lift it: send "source": "dispute" or "risk"/);
    expect((await call('GET', '/vendors')).body.items[0]).toMatchObject({ held: true, hold: { source: 'risk' } });

    expect(await call('POST', `/vendors/${VENDOR}/unhold`, { actor: 'risk@example.com', reason: 'cleared', source: 'risk' }))
      .toMatchObject({ status: 200, body: { held: false, source: 'risk' } });
    expect((await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'a', reason: 'b', source: 'boss' })).body.error.issues[0])
      .toMatchObject({ field: 'source', expected: expect.stringContaining('dispute, risk, finance, vendor_request') });
  });

  test('a held release shows its source and the date the gateway settles it anyway; within holdWarning it is an alert', async () => {
    await usePolicy(api.world, { kind: 'immediate' });
    await call('POST', `/vendors/${VENDOR}/hold`, { actor: 'risk@example.com', reason: 'fraud review', source: 'risk' });
    await send(api.world, 'order.paid', paid());
    await send(api.world, 'order.paid', paid(ORDER_2));
    await send(api.world, 'order.dispute_opened', { orderId: ORDER_2, openedAt: '2022-12-02T16:00:00+05:30' });

    const held = (await call('GET', `/orders/${ORDER}`)).body.vendors[0];
    // Max eligibility Sat 17 Dec 16:00 IST; option 1 (T+1 working day) settles it on Mon 19 Dec at 11:00 IST.
    expect(held).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold', holdSource: 'risk', settlesAnywayAt: '2022-12-19T11:00:00+05:30' });
    const disputed = (await call('GET', `/orders/${ORDER_2}`)).body.vendors[0];
    expect(disputed).toMatchObject({ state: 'HELD', holdSource: expect.stringMatching(/^(dispute|risk)$/), settlesAnywayAt: '2022-12-19T11:00:00+05:30' });

    // Today (2 Dec) nothing held settles within P2D.
    expect((await call('GET', '/alerts/held-settling')).body).toMatchObject({ holdWarning: 'P2D', items: [] });
    api.world.clock.set('2022-12-17T11:30:00+05:30');
    const alert = (await call('GET', '/alerts/held-settling')).body;
    expect(alert).toMatchObject({ holdWarning: 'P2D', until: '2022-12-19T11:30:00+05:30', totals: [{ currency: 'INR', count: 2, amount: '2501.00' }] });
    expect(alert.items.map((i: { orderId: string; settlesAnywayAt: string }) => [i.orderId, i.settlesAnywayAt])).toEqual([[ORDER, '2022-12-19T11:00:00+05:30'], [ORDER_2, '2022-12-19T11:00:00+05:30']]);
    expect(alert).toMatchObject({ count: 2, omitted: 0 });
    // A page of one: the list is cut, the count and the totals still cover both.
    const first = (await call('GET', '/alerts/held-settling?limit=1')).body;
    expect(first).toMatchObject({ count: 2, omitted: 1, totals: [{ currency: 'INR', count: 2, amount: '2501.00' }] });
    expect(first.items.map((i: { orderId: string }) => i.orderId)).toEqual([ORDER]);
    expect((await call('GET', '/alerts/held-settling?limit=5000')).status).toBe(400);
    // A shorter warning: not yet.
    await call('PUT', '/settings', { holdWarning: 'PT12H', actor: 'finance@example.com', reason: 'shorter' });
    expect((await call('GET', `/alerts/held-settling?vendorId=${VENDOR}`)).body.items).toEqual([]);
  });
});

describe('exposure on GET /vendors and the policy cap', () => {
  test('exposure per currency with its day-by-day forecast, the cap and by how much a lowered cap is exceeded', async () => {
    await call('PUT', '/settings', { riskWindow: 'P2D', actor: 'finance@example.com', reason: 'two days of risk' });
    await usePolicy(api.world, { kind: 'immediate' });
    await send(api.world, 'order.paid', paid());
    api.world.clock.set('2022-12-03T10:00:00+05:30');
    await send(api.world, 'order.paid', { ...paid(ORDER_2, [{ vendorId: VENDOR, amount: '100.25' }]), transactionTime: '2022-12-03T10:00:00+05:30' });
    expect((await release(api.world, ORDER_2)).state).toBe('APPLIED');

    const vendor = (await call('GET', '/vendors')).body.items[0];
    expect(vendor.exposure).toEqual([{
      currency: 'INR', amount: '1350.75', count: 2, maxExposure: null, exceededBy: null, nextCloseAt: '2022-12-04T16:00:00+05:30',
      forecast: [
        { date: '2022-12-03', amount: '1350.75', closing: '0.00' },
        { date: '2022-12-04', amount: '100.25', closing: '1250.50' },
        { date: '2022-12-05', amount: '0.00', closing: '100.25' },
      ],
    }]);

    const put = await call('PUT', `/vendors/${VENDOR}/policy`, { scheduleOption: 1, release: { kind: 'immediate' }, maxExposure: { INR: '1000.00', USD: '10.00' }, actor: 'finance@example.com', reason: 'cap' });
    expect(put).toMatchObject({ status: 200, body: { maxExposure: { INR: '1000.00', USD: '10.00' }, warnings: [{ field: 'maxExposure.USD', message: expect.stringContaining('no open money in USD (it has INR)') }] } });
    expect((await call('GET', `/vendors/${VENDOR}/policy`)).body.maxExposure).toEqual({ INR: '1000.00', USD: '10.00' });
    const capped = (await call('GET', '/vendors')).body.items[0].exposure;
    expect(capped.map((e: { currency: string; maxExposure: string; exceededBy: string | null }) => [e.currency, e.maxExposure, e.exceededBy])).toEqual([['INR', '1000.00', '350.75'], ['USD', '10.00', null]]);

    // The next early release waits, with its figures.
    await send(api.world, 'order.paid', { ...paid('order_1003', [{ vendorId: VENDOR, amount: '5.00' }]), transactionTime: '2022-12-03T10:00:00+05:30' });
    const waiting = (await call('GET', '/orders/order_1003')).body.vendors[0];
    expect(waiting).toMatchObject({ state: 'WAITING', waitReason: 'exposure_cap', settlesAnywayAt: expect.any(String) });
    expect(waiting.reason).toContain('exposure_cap: exposure now 1350.75 INR plus this release\'s 5.00 INR would pass the policy\'s maxExposure 1000.00 INR; the cap is already exceeded by 350.75 INR');
    expect((await call('PUT', `/vendors/${VENDOR}/policy`, { scheduleOption: 1, release: { kind: 'immediate' }, maxExposure: { INR: 1000 }, actor: 'a', reason: 'b' })).body.error.issues[0].field).toBe('maxExposure.INR');
  });
});

describe('previews show the releases a cap would stop', () => {
  test('a policy preview with maxExposure lists the early releases that would wait, with the figures', async () => {
    await call('PUT', '/settings', { riskWindow: 'P5D', actor: 'finance@example.com', reason: 'risk' });
    await usePolicy(api.world, { kind: 'after_payment', delay: 'P10D' });
    await send(api.world, 'order.paid', paid());
    await send(api.world, 'order.paid', paid(ORDER_2, [{ vendorId: VENDOR, amount: '800.00' }]));
    const body = { scheduleOption: 1, release: { kind: 'immediate' }, maxExposure: { INR: '1500.00' } };
    const preview = (await call('POST', `/vendors/${VENDOR}/policy/preview`, body)).body;
    // Sent at once under the candidate: the first (by order id, at the same instant) fits, the second would pass 1,500.00.
    expect(preview.capStopped).toEqual([{
      orderId: ORDER_2, vendorId: VENDOR, currency: 'INR', amount: '800.00',
      message: expect.stringContaining("exposure_cap: exposure now 1250.50 INR plus this release's 800.00 INR would pass the policy's maxExposure 1500.00 INR"),
    }]);
    expect(preview).toMatchObject({ capStoppedCount: 1, capStoppedOmitted: 0 });
    // The list is bounded by the answer's limit; the count covers every stop.
    const none = (await call('POST', `/vendors/${VENDOR}/policy/preview?limit=0`, body)).body;
    expect(none).toMatchObject({ capStopped: [], capStoppedCount: 1, capStoppedOmitted: 1, releases: [], omitted: 2 });
    expect((await call('POST', `/vendors/${VENDOR}/policy/preview`, { ...body, maxExposure: { INR: '5000.00' } })).body.capStopped).toEqual([]);
    expect((await call('POST', `/vendors/${VENDOR}/policy/preview`, { scheduleOption: 1, release: { kind: 'immediate' } })).body.capStopped).toEqual([]);
  });
});
