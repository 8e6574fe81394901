/** Sandbox core: the eligibility PUT's answers and the settlement engine, on the interface's own numbers. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLIENT_SECRET, customer, putEligibility, startHarness, startReceiver, type Harness } from './core-fixtures';

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const OK = { status: 'OK', subCode: '200', message: 'Updated vendor settlement eligibility date' };
const error = (message: string) => ({ status: 'ERROR', subCode: '400', message });

async function recon(orderId: string): Promise<Record<string, any>> {
  const vendors = ((await h.cf.PGSplitOrderRecon(orderId)).data as any).vendors as any[];
  return Object.fromEntries(vendors.map((v) => [v.vendor_id, v]));
}

async function createVendor(id: string, scheduleOption = 1): Promise<void> {
  await h.cf.PGESCreateVendors(undefined, undefined, { vendor_id: id, name: id, email: `${id.toLowerCase()}@example.com`, phone: '9876543210', status: 'ACTIVE', schedule_option: scheduleOption } as any);
}

async function createOrder(orderId: string, vendors: string[], notifyUrl?: string): Promise<void> {
  await h.cf.PGCreateOrder({
    order_id: orderId, order_amount: 1000, order_currency: 'INR', customer_details: customer(),
    order_splits: vendors.map((vendor_id) => ({ vendor_id, amount: 1000 / vendors.length })),
    order_meta: notifyUrl ? { notify_url: notifyUrl } : undefined,
  } as any);
}

/** Verifies x-webhook-signature the way a receiver must: on the raw body, in constant time. */
function verified(headers: Record<string, any>, raw: string): boolean {
  const expected = createHmac('sha256', CLIENT_SECRET).update(String(headers['x-webhook-timestamp']) + raw).digest();
  const given = Buffer.from(String(headers['x-webhook-signature']), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

beforeAll(async () => {
  // Transaction on 2 Dec 2022 at 4:00 PM India time, Defer by Days 15 (the documented example).
  h = await startHarness('2022-12-02T16:00:00+05:30');
  receiver = await startReceiver();
  await h.call('PUT', '/_sandbox/merchant', { deferByDays: 15, webhookUrl: receiver.url });
  await createVendor('V1');
  await createVendor('V2');
  await createVendor('V3');
  await createOrder('ord_dec2', ['V1', 'V2'], receiver.url);
  const paid = await h.call('POST', '/_sandbox/orders/ord_dec2/pay', {});
  expect(paid.status).toBe(200);
  await h.sandbox.webhooks.idle();
});
afterAll(async () => {
  await h.sandbox.close();
  await receiver.close();
});

describe('a paid order', () => {
  it('makes each split vendor eligible at payment time + Defer by Days and posts a signed PAYMENT_SUCCESS_WEBHOOK', async () => {
    const vendors = await recon('ord_dec2');
    expect(vendors.V1.settlement_eligibility_date).toBe('2022-12-17T16:00:00+05:30');
    expect(vendors.V2.settlement_eligibility_date).toBe('2022-12-17T16:00:00+05:30');
    const payment = receiver.received.find((r) => JSON.parse(r.raw).type === 'PAYMENT_SUCCESS_WEBHOOK');
    expect(payment).toBeDefined();
    expect(verified(payment!.headers, payment!.raw)).toBe(true);
    const body = JSON.parse(payment!.raw);
    expect(body.data.order).toMatchObject({ order_id: 'ord_dec2', order_amount: 1000, order_currency: 'INR' });
    expect(body.data.payment).toMatchObject({ payment_status: 'SUCCESS', payment_time: '2022-12-02T16:00:00+05:30', payment_amount: 1000 });
    expect(body.event_time).toBe('2022-12-02T16:00:00+05:30');
  });
});

describe('the eligibility PUT', () => {
  it('refuses dates outside [transaction, transaction + 15 days] and in the past, without changing anything', async () => {
    expect((await putEligibility(h, 'ord_dec2', 'V2', '2022-12-17 16:00:01')).body).toEqual(
      error('Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date'),
    );
    // Before the transaction and so in the past: the documented answer, which a caller knows how to handle.
    const before = await putEligibility(h, 'ord_dec2', 'V2', '2022-12-02 03:59:59 PM');
    expect(before.status).toBe(400);
    expect(before.body).toEqual(error('Eligibility time specified is in the past. Specify a new time'));
    await h.clock.set(new Date('2022-12-03T10:00:00+05:30'));
    expect((await putEligibility(h, 'ord_dec2', 'V2', '2022-12-03 09:00:00')).body).toEqual(
      error('Eligibility time specified is in the past. Specify a new time'),
    );
    expect((await recon('ord_dec2')).V2.settlement_eligibility_date).toBe('2022-12-17T16:00:00+05:30');
  });

  it('refuses a future date before a transaction time set in the future, with the sandbox\'s own message', async () => {
    await createOrder('ord_future_paid', ['V3']);
    await h.call('POST', '/_sandbox/orders/ord_future_paid/pay', { payment_time: '2022-12-04T12:00:00+05:30' });
    const answer = await putEligibility(h, 'ord_future_paid', 'V3', '2022-12-04 11:59:59');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(error('Settlement eligibility cannot be before the transaction time. Provide a later date'));
    expect((await recon('ord_future_paid')).V3.settlement_eligibility_date).toBe('2022-12-19T12:00:00+05:30');
  });

  it('names the field when the date has the wrong form', async () => {
    for (const bad of ['06-12-2022 09:00:00', '2022-12-06T09:00:00+05:30', '2022-12-06', 20221206, null]) {
      const answer = await putEligibility(h, 'ord_dec2', 'V1', bad);
      expect(answer.status).toBe(400);
      expect(answer.body.status).toBe('ERROR');
      expect(answer.body.subCode).toBe('400');
      expect(answer.body.message).toContain('settlementEligibilityDateUpdate');
      expect(answer.body.message).toContain('YYYY-MM-DD HH:MM:SS');
    }
  });

  it('answers for unknown orders (or unpaid ones) and for vendors not split on the order', async () => {
    expect((await putEligibility(h, 'ord_never_made', 'V1', '2022-12-06 09:00:00')).body).toEqual(error('Order ID does not exist'));
    await createOrder('ord_unpaid', ['V1']);
    expect((await putEligibility(h, 'ord_unpaid', 'V1', '2022-12-06 09:00:00')).body).toEqual(error('Order ID does not exist'));
    const unknownVendor = await putEligibility(h, 'ord_dec2', 'V3', '2022-12-06 09:00:00');
    expect(unknownVendor.status).toBe(400);
    expect(unknownVendor.body).toEqual(error('Vendor ID does not exist'));
  });

  it('answers when deferred settlement is not enabled for the merchant', async () => {
    await h.call('PUT', '/_sandbox/merchant', { deferredSettlementEnabled: false });
    try {
      expect((await putEligibility(h, 'ord_dec2', 'V1', '2022-12-06 09:00:00')).body).toEqual(error('Deferred settlement is not enabled for merchant'));
    } finally {
      await h.call('PUT', '/_sandbox/merchant', { deferredSettlementEnabled: true });
    }
  });

  it('requires the client credentials (X-Client-Id / X-Client-Secret)', async () => {
    const answer = await putEligibility(h, 'ord_dec2', 'V1', '2022-12-06 09:00:00', { 'X-Client-Id': 'core_test_client', 'X-Client-Secret': 'nope-nope' });
    expect(answer.status).toBe(401);
    expect(answer.body.type).toBe('authentication_error');
    expect(JSON.stringify(answer.body)).not.toContain('nope-nope');
  });

  it('moves V1 to 2022-12-06 09:00, which settles 2022-12-07 11:00 with schedule option 1; V2 keeps its deferral', async () => {
    const answer = await putEligibility(h, 'ord_dec2', 'V1', '2022-12-06 09:00:00');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(OK);
    let vendors = await recon('ord_dec2');
    expect(vendors.V1.settlement_eligibility_date).toBe('2022-12-06T09:00:00+05:30');
    expect(vendors.V2.settlement_eligibility_date).toBe('2022-12-17T16:00:00+05:30');

    await h.clock.set(new Date('2022-12-07T10:49:59+05:30'));
    expect((await recon('ord_dec2')).V1.settlement_status).toBe('PENDING');
    // From 10 minutes before its slot the vendor's settlement is being processed.
    await h.clock.set(new Date('2022-12-07T10:50:00+05:30'));
    expect((await recon('ord_dec2')).V1.settlement_status).toBe('IN_PROGRESS');
    expect((await putEligibility(h, 'ord_dec2', 'V1', '2022-12-08 09:00:00')).body).toEqual(error('Settlement for the order is in progress'));

    await h.clock.set(new Date('2022-12-07T11:00:00+05:30'));
    vendors = await recon('ord_dec2');
    expect(vendors.V1).toMatchObject({ settlement_status: 'SETTLED', settled_at: '2022-12-07T11:00:00+05:30', settlement_amount: 500 });
    expect(Number.isInteger(vendors.V1.settlement_id)).toBe(true);
    expect(vendors.V2).toMatchObject({ settlement_status: 'PENDING', settled_at: null });
    expect((await putEligibility(h, 'ord_dec2', 'V1', '2022-12-08 09:00:00')).body).toEqual(error('Order has already been settled'));
  });

  it('posts a signed VENDOR_SETTLEMENT_SUCCESS to the merchant webhook URL', async () => {
    const hooks = receiver.received.filter((r) => JSON.parse(r.raw).type === 'VENDOR_SETTLEMENT_SUCCESS');
    expect(hooks).toHaveLength(1);
    const [hook] = hooks;
    expect(hook.headers['x-webhook-version']).toBe('2022-09-01');
    expect(hook.headers['x-webhook-timestamp']).toBe(String(new Date('2022-12-07T11:00:00+05:30').getTime()));
    expect(verified(hook.headers, hook.raw)).toBe(true);
    expect(verified(hook.headers, hook.raw.replace('"settlement_amount":500', '"settlement_amount":501'))).toBe(false);
    const body = JSON.parse(hook.raw);
    expect(body).toEqual({
      type: 'VENDOR_SETTLEMENT_SUCCESS',
      event_time: '2022-12-07T11:00:00+05:30',
      data: {
        settlement: {
          order_id: 'ord_dec2',
          vendor_id: 'V1',
          settlement_id: expect.any(Number),
          settlement_amount: 500,
          settled_at: '2022-12-07T11:00:00+05:30',
          settlement_eligibility_date: '2022-12-06T09:00:00+05:30',
        },
      },
    });
    const deliveries = (await h.call('GET', '/_sandbox/webhooks')).body.deliveries;
    expect(deliveries.filter((d: any) => d.type === 'VENDOR_SETTLEMENT_SUCCESS').map((d: any) => d.status)).toEqual(['DELIVERED']);
  });

  it('settles the untouched vendor at its deferral: eligible 2022-12-17 16:00, first T+1 slot on Monday 2022-12-19 11:00', async () => {
    await h.clock.set(new Date('2022-12-19T10:59:59+05:30'));
    expect((await recon('ord_dec2')).V2.settlement_status).toBe('IN_PROGRESS');
    await h.clock.set(new Date('2022-12-19T11:00:00+05:30'));
    expect((await recon('ord_dec2')).V2).toMatchObject({ settlement_status: 'SETTLED', settled_at: '2022-12-19T11:00:00+05:30' });
  });

  it('counts each applied update once and logs every PUT', async () => {
    const { body } = await h.call('GET', '/_sandbox/eligibility-updates');
    expect(body.applied).toEqual([{ order_id: 'ord_dec2', vendor_id: 'V1', applied: 1 }]);
    const v1 = body.updates.filter((u: any) => u.order_id === 'ord_dec2' && u.vendor_id === 'V1');
    expect(v1.filter((u: any) => u.status === 'OK')).toHaveLength(1);
    expect(v1.length).toBeGreaterThan(5);
    expect(body.updates.every((u: any) => typeof u.http_status === 'number' && typeof u.message === 'string')).toBe(true);
  });
});
