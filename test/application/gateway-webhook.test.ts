/** POST /webhooks/gateway over real HTTP: the HMAC signature, a paid split order (split read from the gateway) becoming order.paid, a settlement. */
import { GatewayOrderLookupError } from '../../functions/adapters/gateway/http-gateway-orders';
import { TEST_WEBHOOK_SECRET } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';
import { ORDER_PAID_FROM_GATEWAY, PAYMENT_SUCCESS, SPLIT_ORDER_AT_GATEWAY, signatureHeaders } from './gateway-webhook-fixtures';
import { serveApiOverFakes } from './live-api';

const api = serveApiOverFakes();

beforeEach(() => {
  api.world.gatewayOrders.put(ORDER, SPLIT_ORDER_AT_GATEWAY);
});

const paymentSuccess = PAYMENT_SUCCESS;


async function post(rawBody: string, headers: Record<string, string>, contentType = 'application/json') {
  const response = await fetch(`${api.url}/webhooks/gateway`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body: rawBody });
  return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } & Record<string, unknown> };
}

const signed = signatureHeaders;

describe('webhook signature', () => {
  test('a valid signature is accepted and the paid order, its split read from the gateway, is published as order.paid', async () => {
    const raw = JSON.stringify(paymentSuccess);
    const { status, body } = await post(raw, signed(raw));

    expect(status).toBe(200);
    expect(body).toEqual({ action: 'order_paid_published', orderId: ORDER, vendors: 2 });
    expect(api.world.gatewayOrders.lookups).toEqual([ORDER]);
    expect(api.world.publisher.orderEvents).toEqual([ORDER_PAID_FROM_GATEWAY]);
  });

  test('a tampered body is refused with 401 and nothing is published', async () => {
    const raw = JSON.stringify(paymentSuccess);
    const headers = signed(raw);
    const { status, body } = await post(raw.replace('"order_amount":1000.05', '"order_amount":9000.05'), headers);
    expect(status).toBe(401);
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).not.toContain(TEST_WEBHOOK_SECRET);
    expect(api.world.publisher.orderEvents).toEqual([]);
  });

  test('a missing signature, or one for another timestamp, is refused with 401', async () => {
    const raw = JSON.stringify(paymentSuccess);
    expect((await post(raw, {})).status).toBe(401);
    expect((await post(raw, { ...signed(raw), 'x-webhook-timestamp': '1669977005001' })).status).toBe(401);
    expect(api.world.publisher.orderEvents).toEqual([]);
  });

  test('a correctly signed webhook more than five minutes old (or ahead) is refused as a replay; within five minutes it is taken', async () => {
    const raw = JSON.stringify(paymentSuccess);
    // The clock is 2022-12-02T16:05:00+05:30 = 1669977300000 ms.
    const old = await post(raw, signed(raw, String(1669977300000 - 5 * 60_000 - 1)));
    expect(old.status).toBe(401);
    expect(old.body.error.message).toMatch(/x-webhook-timestamp is 300 s old, more than 5 minutes: refused as a replay/);
    expect((await post(raw, signed(raw, String(1669977300000 + 6 * 60_000)))).status).toBe(401);
    expect(api.world.publisher.orderEvents).toEqual([]);
    expect((await post(raw, signed(raw, String(1669977300000 - 5 * 60_000)))).status).toBe(200);
  });

  test('the signature is checked on the raw bytes, also when the body arrives base64-encoded', async () => {
    const raw = JSON.stringify({ ...paymentSuccess, data: { ...paymentSuccess.data, customer_details: { customer_name: 'Añjali' } } });
    const { status } = await post(raw, signed(raw), 'application/octet-stream');
    expect(status).toBe(200);
    expect(api.world.publisher.orderEvents).toHaveLength(1);
  });
});

describe('the split of a paid order', () => {
  test('an order the gateway holds without order_splits is acknowledged and ignored', async () => {
    api.world.gatewayOrders.put(ORDER, { orderAmount: '1000.05', splits: [] });
    const raw = JSON.stringify(paymentSuccess);
    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'ignored', reason: `order ${ORDER} has no order_splits: no vendor to release` } });
    expect(api.world.publisher.orderEvents).toEqual([]);
  });

  test('an order the gateway does not know is acknowledged and ignored', async () => {
    const raw = JSON.stringify({ ...paymentSuccess, data: { ...paymentSuccess.data, order: { ...paymentSuccess.data.order, order_id: 'order_unknown' } } });
    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'ignored' } });
    expect(api.world.gatewayOrders.lookups).toEqual(['order_unknown']);
    expect(api.world.publisher.orderEvents).toEqual([]);
  });

  test('a failed lookup answers 5xx, so the gateway delivers the webhook again; the redelivery publishes', async () => {
    api.world.gatewayOrders.failNext(new GatewayOrderLookupError(`order ${ORDER} could not be read from the gateway (3 tries): HTTP 503 api_error: down`));
    const raw = JSON.stringify(paymentSuccess);
    const failed = await post(raw, signed(raw));
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.body.error.code).toBe('internal_error');
    expect(api.world.publisher.orderEvents).toEqual([]);
    expect(api.world.logger.lines.some((e) => e.level === 'error' && JSON.stringify(e).includes('GatewayOrderLookupError'))).toBe(true);

    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'order_paid_published', vendors: 2 } });
    expect(api.world.publisher.orderEvents).toEqual([ORDER_PAID_FROM_GATEWAY]);
  });

  test('a webhook that carries order_splits itself is taken as is, without a lookup', async () => {
    const order = { ...paymentSuccess.data.order, order_amount: 1000, order_splits: [{ vendor_id: 'vendor_a', percentage: 33.335 }, { vendor_id: 'vendor_b', amount: 600 }] };
    const raw = JSON.stringify({ ...paymentSuccess, data: { ...paymentSuccess.data, order } });
    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'order_paid_published', vendors: 2 } });
    expect(api.world.gatewayOrders.lookups).toEqual([]);
    // 33.335 % of 1000 is 333.35; fixed amounts keep two decimals.
    expect(api.world.publisher.orderEvents[0]?.detail).toMatchObject({ vendors: [{ vendorId: 'vendor_a', amount: '333.35' }, { vendorId: 'vendor_b', amount: '600.00' }] });
  });

  test('a malformed split from the gateway is refused naming where it came from', async () => {
    api.world.gatewayOrders.put(ORDER, { orderAmount: '1000.05', splits: [{ vendorId: 'vendor_a' }] });
    const raw = JSON.stringify(paymentSuccess);
    const { status, body } = await post(raw, signed(raw));
    expect(status).toBe(400);
    expect(body.error.message).toContain(`order_splits of the gateway's order ${ORDER}[0]`);
    expect(api.world.publisher.orderEvents).toEqual([]);
  });
});

describe('webhook types', () => {
  test('other types are acknowledged and ignored', async () => {
    const raw = JSON.stringify({ type: 'PAYMENT_FAILED_WEBHOOK', data: {} });
    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'ignored' } });
  });

  test('VENDOR_SETTLEMENT_SUCCESS marks the release SETTLED with its time', async () => {
    await usePolicy(api.world, { kind: 'immediate' });
    await send(api.world, 'order.paid', paid());
    const raw = JSON.stringify({
      type: 'VENDOR_SETTLEMENT_SUCCESS',
      event_time: '2022-12-03T11:00:02+05:30',
      data: { settlement: { order_id: ORDER, vendor_id: VENDOR, settlement_id: 7, settlement_amount: 1250.5, settled_at: '2022-12-03T11:00:00+05:30' } },
    });

    expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'release_settled', orderId: ORDER, vendorId: VENDOR } });
    expect(await release(api.world)).toMatchObject({
      state: 'SETTLED', settledAt: '2022-12-03T11:00:00+05:30', appliedEligibility: '2022-12-02T16:06:00+05:30',
      // What it was before it settled, so that the prediction can be compared with the settlement.
      settledFrom: { state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30', predictedSettlement: '2022-12-03T11:00:00+05:30' },
      reason: 'settled by the gateway at 2022-12-03T11:00:00+05:30 (was APPLIED)',
    });
    // One audit record for the webhook, saying what it settled.
    const received = () => api.world.audit.entries.filter((e) => e.kind === 'webhook_received');
    expect(received()).toEqual([expect.objectContaining({
      orderId: ORDER, vendorId: VENDOR, actor: 'gateway',
      detail: expect.objectContaining({
        type: 'VENDOR_SETTLEMENT_SUCCESS',
        outcome: expect.objectContaining({ action: 'release_settled', settledAt: '2022-12-03T11:00:00+05:30', settledFrom: expect.objectContaining({ state: 'APPLIED' }) }),
      }),
    })]);
    // Nobody signs a webhook with IAM: its record names the gateway as actor and carries no principal (contract 6.4).
    expect(received()[0].principal).toBeUndefined();
    // The gateway retries webhooks: a second delivery changes nothing, and is recorded as received again.
    const version = (await release(api.world)).version;
    expect((await post(raw, signed(raw))).status).toBe(200);
    expect((await release(api.world)).version).toBe(version);
    expect(received()[1].detail.outcome).toEqual({ action: 'release_settled', orderId: ORDER, vendorId: VENDOR, alreadySettledAt: '2022-12-03T11:00:00+05:30' });
  });

  test('a settlement for an unknown order, or a vendor outside a known order, is acknowledged (2xx) and listed in GET /rejected-events with why', async () => {
    await usePolicy(api.world, { kind: 'immediate' });
    await send(api.world, 'order.paid', paid());
    const settlement = (orderId: string, vendorId: string) => JSON.stringify({
      type: 'VENDOR_SETTLEMENT_SUCCESS', event_time: '2022-12-03T11:00:02+05:30',
      data: { settlement: { order_id: orderId, vendor_id: vendorId, settlement_amount: 500, settled_at: '2022-12-03T11:00:00+05:30' } },
    });
    const unknownOrder = settlement('order_never_seen', VENDOR);
    const unknownVendor = settlement(ORDER, 'vendor_zz');
    const noIds = JSON.stringify({ type: 'VENDOR_SETTLEMENT_SUCCESS', data: { settlement: { order_id: 7 } } });
    // Acknowledged, so that the gateway stops delivering them: nothing it could send again would match better.
    for (const raw of [unknownOrder, unknownVendor, noIds]) expect(await post(raw, signed(raw))).toMatchObject({ status: 200, body: { action: 'ignored' } });
    // The same delivery again is one entry (keyed by the body's hash).
    await post(unknownOrder, signed(unknownOrder));

    const listed = await fetch(`${api.url}/rejected-events`).then((r) => r.json()) as { rejectedEvents: { source: string; detailType: string; reasons: string[] }[]; count: number };
    expect(listed.count).toBe(3);
    expect(listed.rejectedEvents.map((r) => [r.source, r.detailType, r.reasons])).toEqual([
      ['gateway.webhook', 'VENDOR_SETTLEMENT_SUCCESS', [expect.stringContaining('data.settlement.order_id is 7 and vendor_id undefined')]],
      ['gateway.webhook', 'VENDOR_SETTLEMENT_SUCCESS', [expect.stringContaining(`vendor vendor_zz is not in order ${ORDER} (its vendors: ${VENDOR})`)]],
      ['gateway.webhook', 'VENDOR_SETTLEMENT_SUCCESS', [expect.stringContaining('order order_never_seen is unknown to Holdback (no order.paid or payment webhook received for it)')]],
    ]);
    // The known vendor's release is untouched, and the audit record of each webhook says it was listed.
    expect((await release(api.world)).state).toBe('APPLIED');
    const outcomes = api.world.audit.entries.filter((e) => e.kind === 'webhook_received').map((e) => e.detail.outcome);
    expect(outcomes[0]).toMatchObject({ action: 'ignored', listed: expect.stringContaining('order_never_seen is unknown') });
  });

  test('a settlement before Holdback sent its release cancels the pending schedule', async () => {
    await usePolicy(api.world, { kind: 'after_payment', delay: 'P3D' });
    await send(api.world, 'order.paid', paid());
    const key = (await release(api.world)).releaseKey!;
    const raw = JSON.stringify({ type: 'VENDOR_SETTLEMENT_SUCCESS', data: { settlement: { order_id: ORDER, vendor_id: VENDOR, settled_at: '2022-12-03T11:00:00+05:30' } } });
    await post(raw, signed(raw));
    expect((await release(api.world)).state).toBe('SETTLED');
    expect(api.world.scheduler.cancelled).toEqual([key]);
  });
});
