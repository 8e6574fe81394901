/** The webhooks function behind its open Lambda function URL: the signed webhook is processed; every other path is refused. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ROUTES } from '../../functions/handlers/api-functions';
import { makeWebhookHandler } from '../../functions/handlers/webhooks';
import { GATEWAY_WEBHOOK_PATH } from '../../functions/definitions/routing';
import { fakeWorld, TEST_WEBHOOK_SECRET, type FakeWorld } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';
import { ORDER_PAID_FROM_GATEWAY, PAYMENT_SUCCESS, SPLIT_ORDER_AT_GATEWAY, signatureHeaders } from './gateway-webhook-fixtures';

const context = {} as Context;

/**
 * A request as a function URL delivers it (payload format 2.0, as documented for Lambda function URLs): routeKey
 * `$default`, the path in `rawPath` and `requestContext.http`, no `pathParameters`; a body that is not text arrives
 * base64-encoded.
 */
function functionUrlEvent(method: string, path: string, body = '', headers: Record<string, string> = {}, base64 = false): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.ap-south-1.on.aws', 'x-forwarded-proto': 'https', ...headers },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'abcdefghijklmnopqrstuvwxyz012345',
      domainName: 'abcdefghijklmnopqrstuvwxyz012345.lambda-url.ap-south-1.on.aws',
      domainPrefix: 'abcdefghijklmnopqrstuvwxyz012345',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'gateway-webhooks/1.0' },
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      routeKey: '$default',
      stage: '$default',
      time: '02/Dec/2022:10:35:00 +0000',
      timeEpoch: 1669977300000,
    },
    body: base64 ? Buffer.from(body).toString('base64') : body,
    isBase64Encoded: base64,
  };
}

function signed(rawBody: string, timestamp?: string) {
  return { 'content-type': 'application/json', ...signatureHeaders(rawBody, timestamp) };
}

const paymentSuccess = JSON.stringify(PAYMENT_SUCCESS);

let world: FakeWorld;
let invoke: (event: APIGatewayProxyEventV2) => Promise<{ status: number; body: Record<string, any>; headers: Record<string, unknown> }>;

beforeEach(() => {
  world = fakeWorld('2022-12-02T16:05:00+05:30');
  world.gatewayOrders.put(ORDER, SPLIT_ORDER_AT_GATEWAY);
  const handler = makeWebhookHandler(() => world.deps);
  invoke = async (event) => {
    const result = (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
    return { status: result.statusCode ?? 200, body: JSON.parse(String(result.body)), headers: result.headers ?? {} };
  };
});

describe('the webhook path', () => {
  test('a signed payment webhook is processed: the paid order, its split read from the gateway, is published as order.paid', async () => {
    const answer = await invoke(functionUrlEvent('POST', GATEWAY_WEBHOOK_PATH, paymentSuccess, signed(paymentSuccess)));
    expect(answer).toMatchObject({ status: 200, body: { action: 'order_paid_published', orderId: ORDER, vendors: 2 } });
    expect(world.gatewayOrders.lookups).toEqual([ORDER]);
    expect(world.publisher.orderEvents).toEqual([ORDER_PAID_FROM_GATEWAY]);
    expect(world.audit.entries.filter((e) => e.kind === 'webhook_received')).toHaveLength(1);
  });

  test('a body the function URL base64-encoded is verified on its raw bytes, as sent', async () => {
    const raw = paymentSuccess.replace('"customer_id":"c1"', '"customer_name":"Añjali"');
    const answer = await invoke(functionUrlEvent('POST', GATEWAY_WEBHOOK_PATH, raw, { ...signed(raw), 'content-type': 'application/octet-stream' }, true));
    expect(answer.status).toBe(200);
    expect(world.publisher.orderEvents).toHaveLength(1);
  });

  test('a signed settlement webhook marks the release SETTLED', async () => {
    await usePolicy(world, { kind: 'immediate' });
    await send(world, 'order.paid', paid());
    const raw = JSON.stringify({
      type: 'VENDOR_SETTLEMENT_SUCCESS',
      event_time: '2022-12-03T11:00:02+05:30',
      data: { settlement: { order_id: ORDER, vendor_id: VENDOR, settlement_id: 7, settlement_amount: 1250.5, settled_at: '2022-12-03T11:00:00+05:30' } },
    });
    const answer = await invoke(functionUrlEvent('POST', GATEWAY_WEBHOOK_PATH, raw, signed(raw)));
    expect(answer).toMatchObject({ status: 200, body: { action: 'release_settled', orderId: ORDER, vendorId: VENDOR } });
    expect(await release(world)).toMatchObject({ state: 'SETTLED', settledAt: '2022-12-03T11:00:00+05:30' });
  });

  test('an unsigned, tampered or stale webhook is refused with 401 and nothing is published', async () => {
    const tampered = paymentSuccess.replace('"order_amount":1000.05', '"order_amount":9000.05');
    for (const event of [
      functionUrlEvent('POST', GATEWAY_WEBHOOK_PATH, paymentSuccess, { 'content-type': 'application/json' }),
      functionUrlEvent('POST', GATEWAY_WEBHOOK_PATH, tampered, signed(paymentSuccess)),
      // 2022-12-02T16:05:00+05:30 is 1669977300000: six minutes before it is past the replay window.
      functionUrlEvent('POST', GATEWAY_WEBHOOK_PATH, paymentSuccess, signed(paymentSuccess, String(1669977300000 - 6 * 60_000))),
    ]) {
      const answer = await invoke(event);
      expect(answer).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
      expect(JSON.stringify(answer.body)).not.toContain(TEST_WEBHOOK_SECRET);
    }
    // The signature is checked before any work: no gateway lookup, no audit record, nothing listed.
    expect(world.publisher.orderEvents).toEqual([]);
    expect(world.gatewayOrders.lookups).toEqual([]);
    expect(world.audit.entries).toEqual([]);
  });

  test('a signed webhook whose work fails is answered 5xx (the gateway delivers it again) and still audited once, saying why', async () => {
    world.gatewayOrders.failNext(new Error('gateway order lookup timed out'));
    const answer = await invoke(functionUrlEvent('POST', GATEWAY_WEBHOOK_PATH, paymentSuccess, signed(paymentSuccess)));
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(world.publisher.orderEvents).toEqual([]);
    expect(world.audit.entries.filter((e) => e.kind === 'webhook_received').map((e) => e.detail.outcome)).toEqual([
      { action: 'refused', error: 'Error: gateway order lookup timed out' },
    ]);
  });

  test('another method on the webhook path is refused with 405 naming POST', async () => {
    const answer = await invoke(functionUrlEvent('GET', GATEWAY_WEBHOOK_PATH));
    expect(answer).toMatchObject({ status: 405, body: { error: { code: 'method_not_allowed' } }, headers: { allow: 'POST' } });
  });
});

describe('every other path on the open URL', () => {
  /** Each route of the IAM-authorised API, with its parameters filled in as a caller would. */
  const apiRoutes = ROUTES.filter((r) => r.path !== GATEWAY_WEBHOOK_PATH).map((r) => [r.method, r.path.replace(/\{[^/]+\}/g, 'x1')] as const);

  test('the API has routes to try (the list below is not empty)', () => {
    expect(apiRoutes.length).toBeGreaterThan(20);
    expect(apiRoutes).toContainEqual(['PUT', '/settings']);
  });

  test.each(apiRoutes)('%s %s is refused with 404: the IAM-authorised API cannot be reached through the open URL', async (method, path) => {
    const body = JSON.stringify({ deferByDays: 3, actor: 'intruder', reason: 'no IAM' });
    const answer = await invoke(functionUrlEvent(method, path, body, { 'content-type': 'application/json' }));
    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'route_not_found' } } });
    expect(answer.body.error.message).toContain(`it serves only POST ${GATEWAY_WEBHOOK_PATH}`);
  });

  test('nothing the refused requests asked for happened: settings and policies unchanged, nothing published or audited', async () => {
    const before = await world.deps.settings.get();
    for (const [method, path, body] of [
      ['PUT', '/settings', { deferByDays: 3, actor: 'intruder', reason: 'no IAM' }],
      ['PUT', `/vendors/${VENDOR}/policy`, { scheduleOption: 1, release: { kind: 'immediate' }, actor: 'intruder', reason: 'no IAM' }],
      // A signed webhook at another path is refused too: the URL has one route.
      ['POST', '/webhooks/gateway/extra', null],
      ['POST', '/', null],
    ] as const) {
      const raw = body ? JSON.stringify(body) : paymentSuccess;
      expect((await invoke(functionUrlEvent(method, path, raw, signed(raw)))).status).toBe(404);
    }
    expect(await world.deps.settings.get()).toEqual(before);
    expect(await world.deps.policies.current(VENDOR)).toBeNull();
    expect(world.publisher.orderEvents).toEqual([]);
    expect(world.audit.entries).toEqual([]);
  });
});
