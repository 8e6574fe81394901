/** The gateway client against the real gateway sandbox, on the interface's documented example (15 days from 2 Dec 2022). */
import { SharedClock } from '../../local/clock';
import { createSandbox, type Sandbox } from '../../sandbox/app';
import { HttpEligibilityGateway } from '../../functions/adapters/gateway/http-eligibility-gateway';
import { Instant } from '../../functions/domain/instant';

const CLIENT_ID = 'adapter_test_client';
const CLIENT_SECRET = 'adapter_test_secret_4f9a';
let sandbox: Sandbox;
let clock: SharedClock;

async function call(method: string, path: string, body: unknown): Promise<number> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-client-id': CLIENT_ID, 'x-client-secret': CLIENT_SECRET, 'x-api-version': '2022-09-01' },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

function gateway(clientSecret = CLIENT_SECRET): HttpEligibilityGateway {
  return new HttpEligibilityGateway({
    vendorBaseUrl: sandbox.url, clientId: CLIENT_ID, clientSecret, now: () => Instant.fromDateTime(clock.now()), maxWaitMs: 100, sleep: async () => {},
  });
}

beforeAll(async () => {
  clock = new SharedClock({ start: new Date('2022-12-02T16:00:00+05:30'), frozen: true });
  sandbox = await createSandbox({ port: 0, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, clock });
  expect(await call('PUT', '/_sandbox/merchant', { deferByDays: 15, deferredSettlementEnabled: true })).toBe(200);
  expect(await call('POST', '/pg/easy-split/vendors', {
    vendor_id: 'V_one', name: 'V_one', email: 'v1@example.com', phone: '9876543210', status: 'ACTIVE', schedule_option: 1,
  })).toBeLessThan(300);
  expect(await call('POST', '/pg/orders', {
    order_id: 'ord_adapter_1', order_amount: 1000, order_currency: 'INR',
    customer_details: { customer_id: 'cust_001', customer_phone: '9999999999', customer_email: 'buyer@example.com' },
    order_splits: [{ vendor_id: 'V_one', amount: 1000 }],
  })).toBe(200);
  expect(await call('POST', '/_sandbox/orders/ord_adapter_1/pay', {})).toBe(200);
});
afterAll(async () => {
  await sandbox.close();
});

test('the documented update (eligibility 2022-12-06 09:00:00) is applied, stamped with the shared clock', async () => {
  const result = await gateway().updateEligibility('ord_adapter_1', 'V_one', '2022-12-06 09:00:00');
  expect(result.final).toEqual({
    kind: 'response', httpStatus: 200, status: 'OK', subCode: '200', message: 'Updated vendor settlement eligibility date',
  });
  expect(result.attempts).toEqual([{
    at: '2022-12-02T16:00:00+05:30', request: '2022-12-06 09:00:00', httpStatus: 200, status: 'OK', subCode: '200',
    message: 'Updated vendor settlement eligibility date',
  }]);
});

test('beyond transaction + 15 days is refused with the documented message, not retried', async () => {
  const result = await gateway().updateEligibility('ord_adapter_1', 'V_one', '2022-12-17 16:00:01');
  expect(result.attempts).toHaveLength(1);
  expect(result.final).toMatchObject({
    kind: 'response', status: 'ERROR', subCode: '400',
    message: 'Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date',
  });
});

test('wrong credentials: the 401 is reported without the secret that was sent', async () => {
  const wrong = 'not-the-secret-8c1d';
  const result = await gateway(wrong).updateEligibility('ord_adapter_1', 'V_one', '2022-12-06 09:00:00');
  expect(result.final).toMatchObject({ kind: 'response', httpStatus: 401 });
  expect(JSON.stringify(result)).not.toContain(wrong);
});

test("the sandbox's 429 carries x-ratelimit-retry, which ends a call that may not wait that long", async () => {
  expect(await call('PUT', '/_sandbox/rate-limits', { eligibilityPerMinute: 1 })).toBe(200);
  try {
    const client = gateway();
    await client.updateEligibility('ord_adapter_1', 'V_one', '2022-12-07 09:00:00');
    const limited = await client.updateEligibility('ord_adapter_1', 'V_one', '2022-12-07 09:00:00');
    expect(limited.attempts).toHaveLength(1);
    expect(limited.final).toMatchObject({ kind: 'response', httpStatus: 429 });
    const retry = (limited.final as { retryAfterSeconds?: number }).retryAfterSeconds;
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  } finally {
    await call('PUT', '/_sandbox/rate-limits', { eligibilityPerMinute: null });
  }
});
