/** The gateway order lookup against the real sandbox (and a scripted server for retries): the split a payment webhook lacks. */
import { inspect } from 'node:util';
import { GatewayOrderLookupError, HttpGatewayOrders } from '../../../functions/adapters/gateway/http-gateway-orders';
import { handleGatewayWebhook, webhookSignature } from '../../../functions/application/releases/handle-gateway-webhook';
import { createSandbox, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, type Sandbox } from '../../../sandbox/app';
import { paymentWebhookData } from '../../../sandbox/settlement';
import { TEST_WEBHOOK_SECRET, fakeWorld } from '../../fakes/dependencies';
import { answer, startScriptedServer, type ScriptedServer } from './scripted-http-server';
import { sandboxStatusCaller } from './sandbox-requests';

const ORDER_ID = 'ord_lookup_1';
let sandbox: Sandbox;
let scripted: ScriptedServer;

const call = sandboxStatusCaller(() => sandbox.url, DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET);

function lookup(pgBaseUrl = `${sandbox.url}/pg`, clientSecret = DEFAULT_CLIENT_SECRET, maxTries = 3): HttpGatewayOrders {
  return new HttpGatewayOrders({ pgBaseUrl, clientId: DEFAULT_CLIENT_ID, clientSecret, maxTries, sleep: async () => {} });
}

async function lookupError(client: HttpGatewayOrders, orderId: string): Promise<GatewayOrderLookupError> {
  const error = await client.fetchOrder(orderId).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayOrderLookupError);
  return error as GatewayOrderLookupError;
}

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0 });
  scripted = await startScriptedServer(() => answer(500, { message: 'unscripted', code: 'internal_error', type: 'api_error' }));
  for (const vendorId of ['V_alpha', 'V_beta']) {
    expect(await call('POST', '/pg/easy-split/vendors', {
      vendor_id: vendorId, name: vendorId, email: `${vendorId}@example.com`, phone: '9876543210', status: 'ACTIVE', schedule_option: 1,
    })).toBeLessThan(300);
  }
  expect(await call('POST', '/pg/orders', {
    order_id: ORDER_ID, order_amount: 1000.05, order_currency: 'INR',
    customer_details: { customer_id: 'cust_001', customer_phone: '9999999999', customer_email: 'buyer@example.com' },
    order_splits: [{ vendor_id: 'V_alpha', percentage: 33.33 }, { vendor_id: 'V_beta', percentage: 66.67 }],
  })).toBe(200);
  expect(await call('POST', '/pg/orders', {
    order_id: 'ord_lookup_plain', order_amount: 250.5, order_currency: 'INR',
    customer_details: { customer_id: 'cust_001', customer_phone: '9999999999' },
  })).toBe(200);
});
afterAll(async () => {
  await sandbox.close();
  await scripted.close();
});

describe('against the sandbox', () => {
  test("an order's split and amount come back as decimal text", async () => {
    expect(await lookup().fetchOrder(ORDER_ID)).toEqual({
      orderAmount: '1000.05',
      splits: [{ vendorId: 'V_alpha', percentage: '33.33' }, { vendorId: 'V_beta', percentage: '66.67' }],
    });
  });

  test('an order without a split has no splits; an unknown order is null', async () => {
    expect(await lookup().fetchOrder('ord_lookup_plain')).toEqual({ orderAmount: '250.5', splits: [] });
    expect(await lookup().fetchOrder('ord_never_created')).toBeNull();
  });

  test('wrong credentials: the 401 is not retried and the error does not carry the secret that was sent', async () => {
    const wrong = 'not-the-secret-77ab';
    const error = await lookupError(lookup(undefined, wrong), ORDER_ID);
    expect(error.message).toContain('HTTP 401');
    expect(error.message).not.toContain(wrong);
  });

  test("the sandbox's injected 5xx faults are retried, then reported", async () => {
    expect(await call('POST', '/_sandbox/faults', { rate: 1, kinds: ['5xx'], seed: 7 })).toBe(200);
    try {
      const error = await lookupError(lookup(), ORDER_ID);
      expect(error.message).toMatch(/\(3 tries\): HTTP 50[02] internal_error/);
    } finally {
      expect(await call('DELETE', '/_sandbox/faults', {})).toBeLessThan(300);
    }
  });

  test("the sandbox's real payment webhook (no order_splits) becomes order.paid with the looked-up vendors", async () => {
    expect(await call('POST', `/_sandbox/orders/${ORDER_ID}/pay`, { payment_time: '2022-12-02T16:00:00+05:30' })).toBe(200);
    const order = sandbox.state.orders.get(ORDER_ID)!;
    const data = paymentWebhookData(order, sandbox.state.payments.get(order.payments[0]!)!);
    expect(JSON.stringify(data)).not.toContain('order_splits');

    const world = fakeWorld('2022-12-02T16:00:05+05:30');
    const rawBody = Buffer.from(JSON.stringify({ type: 'PAYMENT_SUCCESS_WEBHOOK', event_time: '2022-12-02T16:00:05+05:30', data }));
    const timestamp = '1669977005000';
    const result = await handleGatewayWebhook({ ...world.deps, gatewayOrders: lookup() }, {
      headers: { 'x-webhook-timestamp': timestamp, 'x-webhook-signature': webhookSignature(TEST_WEBHOOK_SECRET, timestamp, rawBody) },
      rawBody,
    });

    expect(result).toEqual({ action: 'order_paid_published', orderId: ORDER_ID, vendors: 2 });
    expect(world.publisher.orderEvents).toEqual([{
      detailType: 'order.paid',
      detail: {
        orderId: ORDER_ID,
        transactionTime: '2022-12-02T16:00:00+05:30',
        // The gateway's own payment time: trusted for the window over a marketplace's order.paid (issue 9.6).
        transactionTimeSource: 'gateway',
        // 33.33 % of 1000.05 is 333.316665 and 66.67 % is 666.733335: two decimals, half up.
        vendors: [{ vendorId: 'V_alpha', amount: '333.32' }, { vendorId: 'V_beta', amount: '666.73' }],
        currency: 'INR',
      },
    }]);
  });
});

describe('against a scripted server', () => {
  test('sends the documented GET with credentials and x-api-version, the order id percent-encoded', async () => {
    scripted.script(answer(200, { order_id: 'ord-A_1', order_amount: 99.9, order_splits: [{ vendor_id: 'V_alpha', amount: 99.9 }] }));
    const before = scripted.requests.length;
    expect(await lookup(`${scripted.url}/pg/`).fetchOrder('ord-A_1')).toEqual({ orderAmount: '99.9', splits: [{ vendorId: 'V_alpha', amount: '99.9' }] });
    const request = scripted.requests[before]!;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/pg/orders/ord-A_1');
    expect(request.headers).toMatchObject({
      'x-client-id': DEFAULT_CLIENT_ID, 'x-client-secret': DEFAULT_CLIENT_SECRET, 'x-api-version': '2022-09-01',
    });
  });

  test('a 429 and a reset are retried; the third try answers', async () => {
    scripted.script(
      answer(429, { message: 'too many', code: 'rate_limit_exceeded', type: 'rate_limit_error' }, { 'x-ratelimit-retry': '1' }),
      { kind: 'reset' },
      answer(200, { order_id: ORDER_ID, order_amount: 1000, order_splits: [] }),
    );
    const before = scripted.requests.length;
    expect(await lookup(scripted.url).fetchOrder(ORDER_ID)).toEqual({ orderAmount: '1000', splits: [] });
    expect(scripted.requests.length - before).toBe(3);
  });

  test("a 429's x-ratelimit-retry sets the least wait before the next try; a reset waits only the jittered backoff", async () => {
    scripted.script(
      answer(429, { message: 'too many', code: 'rate_limit_exceeded', type: 'rate_limit_error' }, { 'x-ratelimit-retry': '2' }),
      { kind: 'reset' },
      answer(200, { order_id: ORDER_ID, order_amount: 1000, order_splits: [] }),
    );
    const sleeps: number[] = [];
    const client = new HttpGatewayOrders({
      pgBaseUrl: scripted.url, clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET,
      random: () => 0, sleep: async (ms) => { sleeps.push(ms); },
    });
    expect(await client.fetchOrder(ORDER_ID)).toEqual({ orderAmount: '1000', splits: [] });
    expect(sleeps).toEqual([2000, 0]);
  });

  test('a 429 asking for longer than the lookup may wait ends it at once, naming the tries', async () => {
    scripted.script(answer(429, { message: 'too many', code: 'rate_limit_exceeded' }, { 'x-ratelimit-retry': '60' }));
    const before = scripted.requests.length;
    const error = await lookupError(lookup(scripted.url), ORDER_ID);
    expect(error.message).toMatch(/\(1 try\): HTTP 429 rate_limit_exceeded: too many$/);
    expect(scripted.requests.length - before).toBe(1);
  });

  test('a bare 404 (a wrong base URL, not order_not_found) is an error, never "no such order"', async () => {
    scripted.script(answer(404, '<html>Not Found</html>'));
    const error = await lookupError(lookup(scripted.url), ORDER_ID);
    expect(error.message).toContain('HTTP 404');
  });

  test('a server echoing the secret has it redacted', async () => {
    scripted.script(answer(400, { message: `bad header ${DEFAULT_CLIENT_SECRET}`, code: 'request_invalid', type: 'invalid_request_error' }));
    const error = await lookupError(lookup(scripted.url), ORDER_ID);
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(DEFAULT_CLIENT_SECRET);
  });

  test('the client itself never shows the credentials', () => {
    const client = lookup(scripted.url);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(DEFAULT_CLIENT_SECRET);
    expect(JSON.stringify(client)).not.toContain(DEFAULT_CLIENT_SECRET);
  });

  test('bad options are refused at construction, naming the option and what to send', () => {
    const base = { pgBaseUrl: scripted.url, clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET };
    expect(() => new HttpGatewayOrders({ ...base, pgBaseUrl: 'api.example.com/pg' }))
      .toThrow('pgBaseUrl: "api.example.com/pg" is not a URL; send e.g. "https://api.example.com/pg"');
    expect(() => new HttpGatewayOrders({ ...base, pgBaseUrl: 'ftp://api.example.com/pg' })).toThrow(/^pgBaseUrl: protocol ftp: is not supported/);
    expect(() => new HttpGatewayOrders({ ...base, clientSecret: '' })).toThrow(/^clientSecret: missing/);
    expect(() => new HttpGatewayOrders({ ...base, maxTries: 0 })).toThrow(/^maxTries: 0 is not a positive integer/);
  });

  test('an order id unfit for a URL is refused before any request, naming the field', async () => {
    const before = scripted.requests.length;
    await expect(lookup(scripted.url).fetchOrder('../admin')).rejects.toThrow(/orderId: is "..\/admin", not a valid id/);
    expect(scripted.requests.length).toBe(before);
  });
});
