/** End to end: each release rule, from an order.paid sent with the real EventBridge client to the gateway sandbox. */
import { startHarness, vendorOf, type Harness } from './harness';

describe('each release rule, through the edge, the handlers, DynamoDB and the sandbox', () => {
  let h: Harness;
  const orderId = 'order-rules-1';

  beforeAll(async () => {
    h = await startHarness();
    await h.createVendors([
      { id: 'v-immediate', scheduleOption: 1 },
      { id: 'v-after-pay', scheduleOption: 1 },
      { id: 'v-after-del', scheduleOption: 1 },
      { id: 'v-at-max', scheduleOption: 1 },
    ]);
    await h.setPolicy('v-immediate', { kind: 'immediate' });
    await h.setPolicy('v-after-pay', { kind: 'after_payment', delay: 'P3D' });
    await h.setPolicy('v-after-del', { kind: 'after_delivery', delay: 'P2D' });
    // v-at-max keeps the default policy (version 0: at_max).
  });
  afterAll(() => h.close());

  it('applies immediate at once, schedules after_payment, waits for delivery, leaves at_max alone', async () => {
    // The gateway documentation's example: transaction 2 Dec 2022 4 PM, Defer by Days 15.
    await h.runtime.clock.set(new Date('2022-12-02T16:00:00+05:30'));
    const paidAt = await h.createPaidOrder(orderId, [
      { vendorId: 'v-immediate', amount: 1000 }, { vendorId: 'v-after-pay', amount: 500.5 },
      { vendorId: 'v-after-del', amount: 250.25 }, { vendorId: 'v-at-max', amount: 100 },
    ]);
    await h.runtime.clock.set(new Date('2022-12-02T16:05:00+05:30'));
    await h.send('order.paid', {
      orderId, transactionTime: paidAt,
      vendors: [
        { vendorId: 'v-immediate', amount: 1000 }, { vendorId: 'v-after-pay', amount: '500.50' },
        { vendorId: 'v-after-del', amount: 250.25 }, { vendorId: 'v-at-max', amount: 100 },
      ],
    });
    const { status, body: order } = await h.api('GET', `/orders/${orderId}`);
    expect(status).toBe(200);
    expect(order.transactionTime).toBe('2022-12-02T16:00:00+05:30');
    expect(order.maxEligibility).toBe('2022-12-17T16:00:00+05:30');

    const immediate = vendorOf(order, 'v-immediate');
    expect(immediate.state).toBe('APPLIED');
    // The transaction time has passed: the earliest future time the gateway accepts, the next minute.
    expect(immediate.appliedEligibility).toBe('2022-12-02T16:06:00+05:30');
    // T+1 at 11:00: Saturday 3 Dec 2022 is the first Saturday, a bank working day.
    expect(immediate.predictedSettlement).toBe('2022-12-03T11:00:00+05:30');
    expect(immediate.attempts).toEqual([expect.objectContaining({ request: '2022-12-02 16:06:00', status: 'OK', subCode: '200' })]);
    expect(immediate.policyVersion).toBe(1);

    const afterPay = vendorOf(order, 'v-after-pay');
    expect(afterPay).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T16:00:00+05:30', appliedEligibility: null });
    expect(vendorOf(order, 'v-after-del')).toMatchObject({ state: 'WAITING', appliedEligibility: null });
    expect(vendorOf(order, 'v-at-max')).toMatchObject({ state: 'AT_MAX', policyVersion: 0, targetEligibility: '2022-12-17T16:00:00+05:30' });

    const recon = await h.gateway('GET', `/pg/easy-split/orders/${orderId}`);
    const gatewayVendor = (id: string) => recon.body.vendors.find((v: { vendor_id: string }) => v.vendor_id === id);
    expect(gatewayVendor('v-immediate').settlement_eligibility_date).toBe('2022-12-02T16:06:00+05:30');
    expect(gatewayVendor('v-at-max').settlement_eligibility_date).toBe('2022-12-17T16:00:00+05:30');
  });

  it('sends after_payment releaseLead before its target, and the settlement lands where it was predicted', async () => {
    // Past 5 Dec 15:00 (target 16:00 minus the default PT1H lead) the scheduled release fires.
    await h.advance('P3D');
    const { body: order } = await h.api('GET', `/orders/${orderId}`);
    const afterPay = vendorOf(order, 'v-after-pay');
    expect(afterPay.state).toBe('APPLIED');
    expect(afterPay.appliedEligibility).toBe('2022-12-05T16:00:00+05:30');
    expect(afterPay.attempts[0].at).toBe('2022-12-05T15:00:00+05:30');
    expect(afterPay.predictedSettlement).toBe('2022-12-06T11:00:00+05:30');

    // The sandbox settled the immediate vendor on 3 Dec 11:00 and told Holdback through its signed webhook.
    const immediate = vendorOf(order, 'v-immediate');
    expect(immediate.state).toBe('SETTLED');
    const recon = await h.gateway('GET', `/pg/easy-split/orders/${orderId}`);
    const settled = recon.body.vendors.find((v: { vendor_id: string }) => v.vendor_id === 'v-immediate');
    expect(settled.settlement_status).toBe('SETTLED');
    expect(settled.settled_at).toBe(immediate.predictedSettlement);
  });

  it('releases after_delivery two days after the delivery', async () => {
    await h.send('order.delivered', { orderId, deliveredAt: '2022-12-05T18:30:00+05:30' });
    let { body: order } = await h.api('GET', `/orders/${orderId}`);
    expect(vendorOf(order, 'v-after-del')).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-07T18:30:00+05:30' });
    await h.advance('P2DT2H');
    ({ body: order } = await h.api('GET', `/orders/${orderId}`));
    const afterDel = vendorOf(order, 'v-after-del');
    expect(afterDel.state).toBe('APPLIED');
    expect(afterDel.appliedEligibility).toBe('2022-12-07T18:30:00+05:30');
    expect(afterDel.predictedSettlement).toBe('2022-12-08T11:00:00+05:30');
    // Exactly one successful PUT per released vendor reached the gateway; none for at_max.
    const applied = await h.appliedAtGateway();
    expect(applied.get(`${orderId}/v-immediate`)).toBe(1);
    expect(applied.get(`${orderId}/v-after-pay`)).toBe(1);
    expect(applied.get(`${orderId}/v-after-del`)).toBe(1);
    expect(applied.has(`${orderId}/v-at-max`)).toBe(false);
  });

  it('emits vendor.release_applied on the bus for each applied release', async () => {
    const applied = h.runtime.edge.bus.events.filter((e) => e.source === 'holdback' && e['detail-type'] === 'vendor.release_applied');
    const vendors = applied.map((e) => (e.detail as { vendorId: string }).vendorId).sort();
    expect(vendors).toEqual(['v-after-del', 'v-after-pay', 'v-immediate']);
  });
});
