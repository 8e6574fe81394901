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
