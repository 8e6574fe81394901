/** POST /webhooks/gateway over real HTTP: the HMAC signature, a paid split order becoming order.paid, a settlement. */
import { webhookSignature } from '../../functions/application/handle-gateway-webhook';
import type { Dependencies } from '../../functions/application/ports';
import { makeApiHandler } from '../../functions/handlers/api';
import { createApiServer, type ApiServer } from '../../local/api-server';
import { TEST_WEBHOOK_SECRET, fakeWorld, type FakeWorld } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';

let world: FakeWorld;
let server: ApiServer;
/** The handler builds its dependencies once (as at a cold start); each test swaps a fresh world in behind them. */
const live = {} as Dependencies;

beforeAll(async () => {
  server = await createApiServer({ port: 0, handler: makeApiHandler(() => live) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  world = fakeWorld('2022-12-02T16:05:00+05:30');
  Object.assign(live, world.deps);
});

const paymentSuccess = {
  type: 'PAYMENT_SUCCESS_WEBHOOK',
  event_time: '2022-12-02T16:00:05+05:30',
  data: {
    order: {
      order_id: ORDER,
      order_amount: 1000,
      order_currency: 'INR',
      order_splits: [{ vendor_id: 'vendor_a', percentage: 33.335 }, { vendor_id: 'vendor_b', amount: 600 }],
    },
    payment: { cf_payment_id: 1, payment_status: 'SUCCESS', payment_time: '2022-12-02T16:00:00+05:30' },
    customer_details: { customer_id: 'c1' },
  },
};

async function post(rawBody: string, headers: Record<string, string>, contentType = 'application/json') {
  const response = await fetch(`${server.url}/webhooks/gateway`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body: rawBody });
  return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } & Record<string, unknown> };
}

function signed(rawBody: string, timestamp = '1669977005000') {
  return { 'x-webhook-timestamp': timestamp, 'x-webhook-signature': webhookSignature(TEST_WEBHOOK_SECRET, timestamp, Buffer.from(rawBody)), 'x-webhook-version': '2022-09-01' };
}

describe('webhook signature', () => {
  test('a valid signature is accepted and a paid split order is published as order.paid', async () => {
    const raw = JSON.stringify(paymentSuccess);
    const { status, body } = await post(raw, signed(raw));

    expect(status).toBe(200);
    expect(body).toEqual({ action: 'order_paid_published', orderId: ORDER, vendors: 2 });
    expect(world.publisher.orderEvents).toEqual([{
      detailType: 'order.paid',
      detail: {
        orderId: ORDER,
        transactionTime: '2022-12-02T16:00:00+05:30',
        // 33.335 % of 1000 is 333.35; fixed amounts keep two decimals.
        vendors: [{ vendorId: 'vendor_a', amount: '333.35' }, { vendorId: 'vendor_b', amount: '600.00' }],
        currency: 'INR',
      },
    }]);
  });

  test('a tampered body is refused with 401 and nothing is published', async () => {
    const raw = JSON.stringify(paymentSuccess);
    const headers = signed(raw);
    const { status, body } = await post(raw.replace('"amount":600', '"amount":900'), headers);
    expect(status).toBe(401);
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).not.toContain(TEST_WEBHOOK_SECRET);
    expect(world.publisher.orderEvents).toEqual([]);
  });

  test('a missing signature, or one for another timestamp, is refused with 401', async () => {
    const raw = JSON.stringify(paymentSuccess);
    expect((await post(raw, {})).status).toBe(401);
    expect((await post(raw, { ...signed(raw), 'x-webhook-timestamp': '1669977005001' })).status).toBe(401);
    expect(world.publisher.orderEvents).toEqual([]);
  });

  test('the signature is checked on the raw bytes, also when the body arrives base64-encoded', async () => {
    const raw = JSON.stringify({ ...paymentSuccess, data: { ...paymentSuccess.data, customer_details: { customer_name: 'Añjali' } } });
    const { status } = await post(raw, signed(raw), 'application/octet-stream');
    expect(status).toBe(200);
    expect(world.publisher.orderEvents).toHaveLength(1);
  });
});

describe('webhook types', () => {
  test('other types are acknowledged and ignored', async () => {
    const raw = JSON.stringify({ type: 'PAYMENT_FAILED_WEBHOOK', data: {} });
    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'ignored' } });
  });

  test('VENDOR_SETTLEMENT_SUCCESS marks the release SETTLED with its time', async () => {
    await usePolicy(world, { kind: 'immediate' });
    await send(world, 'order.paid', paid());
    const raw = JSON.stringify({
      type: 'VENDOR_SETTLEMENT_SUCCESS',
      event_time: '2022-12-03T11:00:02+05:30',
      data: { settlement: { order_id: ORDER, vendor_id: VENDOR, settlement_id: 7, settlement_amount: 1250.5, settled_at: '2022-12-03T11:00:00+05:30' } },
    });

    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'release_settled', orderId: ORDER, vendorId: VENDOR } });
    expect(await release(world)).toMatchObject({ state: 'SETTLED', settledAt: '2022-12-03T11:00:00+05:30', appliedEligibility: '2022-12-02T16:06:00+05:30' });
    // The gateway retries webhooks: a second delivery changes nothing.
    const version = (await release(world)).version;
    expect((await post(raw, signed(raw))).status).toBe(200);
    expect((await release(world)).version).toBe(version);
  });

  test('a settlement before Holdback sent its release cancels the pending schedule', async () => {
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', paid());
    const key = (await release(world)).releaseKey!;
    const raw = JSON.stringify({ type: 'VENDOR_SETTLEMENT_SUCCESS', data: { settlement: { order_id: ORDER, vendor_id: VENDOR, settled_at: '2022-12-03T11:00:00+05:30' } } });
    await post(raw, signed(raw));
    expect((await release(world)).state).toBe('SETTLED');
    expect(world.scheduler.cancelled).toEqual([key]);
  });
});
