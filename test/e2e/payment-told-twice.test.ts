/**
 * The README's printed example end to end (issue 9.6): the sandbox's signed payment webhook and the marketplace's
 * order.paid tell the same payment; Holdback keeps one order, trusts the gateway's payment time, rejects nothing.
 */
import { startHarness, vendorOf, type Harness } from './harness';

let h: Harness;
beforeAll(async () => { h = await startHarness({ clockStart: new Date('2022-12-02T16:05:00.731+05:30') }); });
afterAll(() => h.close());

test('the gateway\'s payment webhook and the marketplace\'s order.paid: one order, the gateway\'s time, no rejected event', async () => {
  const orderId = 'order-readme-1';
  await h.createVendors([{ id: 'vendor-fast', scheduleOption: 1 }, { id: 'vendor-slow', scheduleOption: 1 }]);
  const created = await h.gateway('POST', '/pg/orders', {
    order_id: orderId, order_amount: 1500, order_currency: 'INR', customer_details: { customer_id: 'c1', customer_phone: '9999999999' },
    order_splits: [{ vendor_id: 'vendor-fast', amount: 1000 }, { vendor_id: 'vendor-slow', amount: 500 }],
  });
  expect(created.status).toBe(200);
  await h.setPolicy('vendor-fast', { kind: 'immediate' });
  await h.setPolicy('vendor-slow', { kind: 'after_payment', delay: 'P3D' });
  // As the example: the clock's now, with its milliseconds, is the payment time the sandbox records and the marketplace sends.
  const now = ((await (await fetch(`${h.runtime.edge.url}/_local/clock`)).json()) as { now: string }).now;
  expect((await h.gateway('POST', `/_sandbox/orders/${orderId}/pay`, { payment_time: now })).status).toBe(200);
  await h.runtime.idle();
  await h.send('order.paid', { orderId, transactionTime: now, vendors: [{ vendorId: 'vendor-fast', amount: 1000 }, { vendorId: 'vendor-slow', amount: 500 }] });

  expect((await h.api('GET', '/rejected-events')).body.rejectedEvents).toEqual([]);
  const order = (await h.api('GET', `/orders/${orderId}`)).body;
  expect(order).toMatchObject({ transactionTimeSource: 'gateway', transactionTime: '2022-12-02T16:05:00+05:30' });
  expect(vendorOf(order, 'vendor-fast')).toMatchObject({ state: 'APPLIED' });
  expect(vendorOf(order, 'vendor-slow')).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T16:05:00+05:30' });
  expect((await h.appliedAtGateway()).get(`${orderId}/vendor-fast`)).toBe(1);
});

test("the marketplace first, then the gateway's webhook: the gateway's time is adopted and the order stays in outcomes by transaction time", async () => {
  const orderId = 'order-told-twice-2';
  await h.createVendors([{ id: 'vendor-m1', scheduleOption: 1 }]);
  expect((await h.gateway('POST', '/pg/orders', {
    order_id: orderId, order_amount: 800, order_currency: 'INR', customer_details: { customer_id: 'c2', customer_phone: '9999999999' },
    order_splits: [{ vendor_id: 'vendor-m1', amount: 800 }],
  })).status).toBe(200);
  const now = ((await (await fetch(`${h.runtime.edge.url}/_local/clock`)).json()) as { now: string }).now;
  // The marketplace's clock is a little behind the gateway's: its order.paid arrives first.
  const marketplaceTime = new Date(Date.parse(now) - 3_000).toISOString();
  await h.send('order.paid', { orderId, transactionTime: marketplaceTime, vendors: [{ vendorId: 'vendor-m1', amount: 800 }] });
  expect((await h.api('GET', `/orders/${orderId}`)).body.transactionTimeSource).toBe('marketplace');
  expect((await h.gateway('POST', `/_sandbox/orders/${orderId}/pay`, { payment_time: now })).status).toBe(200);
  await h.runtime.idle();

  const order = (await h.api('GET', `/orders/${orderId}`)).body;
  expect(order).toMatchObject({ transactionTimeSource: 'gateway', transactionTime: '2022-12-02T16:05:00+05:30' });
  expect((await h.api('GET', '/rejected-events')).body.rejectedEvents.filter((r: { detail?: { orderId?: string } }) => r.detail?.orderId === orderId)).toEqual([]);
  const outcomes = (await h.api('GET', '/outcomes?by=transaction&from=2022-12-02&to=2022-12-02&limit=1000')).body;
  // The adopted order record keeps its place in the paid index (it used to drop out of outcomes by transaction time).
  expect(outcomes.items.filter((i: { orderId: string }) => i.orderId === orderId).map((i: { vendorId: string }) => i.vendorId)).toEqual(['vendor-m1']);
});
