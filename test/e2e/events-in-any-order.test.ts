/** End to end: duplicate and out-of-order events, disputes, cancellations and malformed events. */
import { startHarness, vendorOf, type Harness } from './harness';

describe('events arrive at least once and in any order', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
    await h.createVendors([{ id: 'v-now', scheduleOption: 1 }, { id: 'v-ship', scheduleOption: 8 }]);
    await h.setPolicy('v-now', { kind: 'immediate' });
    await h.setPolicy('v-ship', { kind: 'after_delivery', delay: 'P2D' }, 8);
  });
  afterAll(() => h.close());

  const paid = (orderId: string, transactionTime: string) => ({
    orderId, transactionTime, vendors: [{ vendorId: 'v-now', amount: 600 }, { vendorId: 'v-ship', amount: 400 }],
  });

  it('applies an order.paid sent three times exactly once at the gateway', async () => {
    const at = await h.createPaidOrder('order-dup-1', [{ vendorId: 'v-now', amount: 600 }, { vendorId: 'v-ship', amount: 400 }]);
    for (let i = 0; i < 3; i += 1) await h.send('order.paid', paid('order-dup-1', at));
    const { body: order } = await h.api('GET', '/orders/order-dup-1');
    expect(vendorOf(order, 'v-now').state).toBe('APPLIED');
    expect(vendorOf(order, 'v-now').attempts).toHaveLength(1);
    expect((await h.appliedAtGateway()).get('order-dup-1/v-now')).toBe(1);
    expect(vendorOf(order, 'v-ship').state).toBe('WAITING');
  });

  it('keeps a delivery that arrives before its payment and applies it when the payment comes', async () => {
    await h.send('order.delivered', { orderId: 'order-early-1', deliveredAt: '2022-12-02T17:00:00+05:30' });
    const early = await h.api('GET', '/orders/order-early-1');
    expect(early.status).toBe(200);
    expect(early.body.vendors).toEqual([]);

    const at = await h.createPaidOrder('order-early-1', [{ vendorId: 'v-now', amount: 600 }, { vendorId: 'v-ship', amount: 400 }]);
    await h.send('order.paid', paid('order-early-1', at));
    const { body: order } = await h.api('GET', '/orders/order-early-1');
    // Delivered 2 Dec 17:00 + P2D: eligibility 4 Dec 17:00, sent an hour before.
    expect(vendorOf(order, 'v-ship')).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-04T17:00:00+05:30' });
  });

  it('holds a release while a dispute is open and lets it go when the merchant wins', async () => {
    const at = await h.createPaidOrder('order-dispute-1', [{ vendorId: 'v-now', amount: 600 }, { vendorId: 'v-ship', amount: 400 }]);
    await h.send('order.paid', paid('order-dispute-1', at));
    await h.send('order.delivered', { orderId: 'order-dispute-1', deliveredAt: at });
    let { body: order } = await h.api('GET', '/orders/order-dispute-1');
    const target = vendorOf(order, 'v-ship').targetEligibility;
    expect(vendorOf(order, 'v-ship').state).toBe('SCHEDULED');

    await h.send('order.dispute_opened', { orderId: 'order-dispute-1', openedAt: '2022-12-03T10:00:00+05:30', vendorIds: ['v-ship'] });
    ({ body: order } = await h.api('GET', '/orders/order-dispute-1'));
    expect(vendorOf(order, 'v-ship').state).toBe('HELD');
    // The release falls due while the dispute is open: nothing is sent.
    await h.advance('P3D');
    ({ body: order } = await h.api('GET', '/orders/order-dispute-1'));
    expect(vendorOf(order, 'v-ship').state).toBe('HELD');
    expect((await h.appliedAtGateway()).has('order-dispute-1/v-ship')).toBe(false);
    // The other vendor of the order, not named by the dispute, was released at once.
    expect(['APPLIED', 'SETTLED']).toContain(vendorOf(order, 'v-now').state);

    await h.send('order.dispute_closed', { orderId: 'order-dispute-1', closedAt: '2022-12-05T16:05:00+05:30', resolution: 'merchant_won', vendorIds: ['v-ship'] });
    ({ body: order } = await h.api('GET', '/orders/order-dispute-1'));
    const released = vendorOf(order, 'v-ship');
    expect(released.state).toBe('APPLIED');
    expect(released.targetEligibility).toBe(target);
    // The target has passed: sent with the next minute after the close was processed.
    expect(released.appliedEligibility).toBe('2022-12-05T16:06:00+05:30');
    // Option 8 settles every whole hour.
    expect(released.predictedSettlement).toBe('2022-12-05T17:00:00+05:30');
    expect((await h.appliedAtGateway()).get('order-dispute-1/v-ship')).toBe(1);
  });

  it('drops a pending release on cancellation and never calls the gateway for it', async () => {
    const at = await h.createPaidOrder('order-cancel-1', [{ vendorId: 'v-now', amount: 600 }, { vendorId: 'v-ship', amount: 400 }]);
    await h.send('order.paid', paid('order-cancel-1', at));
    await h.send('order.delivered', { orderId: 'order-cancel-1', deliveredAt: at });
    await h.send('order.cancelled', { orderId: 'order-cancel-1', cancelledAt: at, vendorIds: ['v-ship'] });
    await h.advance('P3D');
    const { body: order } = await h.api('GET', '/orders/order-cancel-1');
    expect(vendorOf(order, 'v-ship').state).toBe('CANCELLED');
    expect((await h.appliedAtGateway()).has('order-cancel-1/v-ship')).toBe(false);
    const schedules = (await fetch(`${h.runtime.edge.url}/_local/schedules`).then((r) => r.json())) as { schedules: { name: string }[] };
    expect(schedules.schedules.filter((s: { name: string }) => s.name.startsWith('rel-'))).toEqual([]);
  });

  it('lists a malformed event with the field at fault and applies none of it', async () => {
    await h.send('order.paid', {
      orderId: 'order-bad-1', transactionTime: '2022-12-05T10:00:00',
      vendors: [{ vendorId: 'v-now', amount: 600 }, { vendorId: 'v-ship', amount: 12.345 }],
    });
    const listed = await h.api('GET', '/rejected-events');
    const rejected = listed.body.rejectedEvents.find((r: { detail: { orderId?: string } }) => r.detail?.orderId === 'order-bad-1');
    expect(rejected.detailType).toBe('order.paid');
    expect(rejected.reasons.join('\n')).toMatch(/transactionTime/);
    expect(rejected.reasons.join('\n')).toMatch(/vendors\[1\]\.amount/);
    // Nothing half-applied: the valid first vendor was not released, the order is unknown.
    expect((await h.api('GET', '/orders/order-bad-1')).status).toBe(404);
    expect((await h.appliedAtGateway()).has('order-bad-1/v-now')).toBe(false);
  });
});
