/** The gateway client against a scripted loopback server: request shape, body-driven answers, retries, limits, secrets. */
import { inspect } from 'node:util';
import { DateTime } from 'luxon';
import { HttpEligibilityGateway, type HttpEligibilityGatewayOptions } from '../../functions/adapters/gateway/http-eligibility-gateway';
import { answer, startScriptedServer, type ScriptedServer } from './scripted-http-server';
import { at } from '../times';
import { Instant } from '../../functions/domain/instant';

const CLIENT_ID = 'TEST-client-7f3a9c';
const CLIENT_SECRET = 'cfsk_ma_test_9d8e7f6a5b4c3d2e1f';
const APPLIED = { status: 'OK', subCode: '200', message: 'Updated vendor settlement eligibility date' };
const fixedNow = DateTime.fromISO('2022-12-02T10:35:00Z', { zone: 'utc' });

let server: ScriptedServer;
let sleeps: number[];

beforeEach(async () => {
  server = await startScriptedServer(() => answer(200, APPLIED));
  sleeps = [];
});
afterEach(async () => {
  await server.close();
});

function gateway(options: Partial<HttpEligibilityGatewayOptions> = {}): HttpEligibilityGateway {
  return new HttpEligibilityGateway({
    vendorBaseUrl: `${server.url}/`,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    now: () => Instant.fromDateTime(fixedNow),
    // Records the backoff instead of waiting it out; the limiter still runs on real time.
    sleep: async (ms) => { sleeps.push(ms); },
    ...options,
  });
}

test('sends the documented PUT and records the applied answer as one attempt in India time', async () => {
  const result = await gateway().updateEligibility('order_1001', 'vendor-A_1', '2022-12-06 09:00:00');
  expect(server.requests).toHaveLength(1);
  const [request] = server.requests;
  expect(request.method).toBe('PUT');
  expect(request.path).toBe('/api/v2/easy-split/orders/order_1001/settlement-eligibility/vendors/vendor-A_1');
  expect(request.headers['x-client-id']).toBe(CLIENT_ID);
  expect(request.headers['x-client-secret']).toBe(CLIENT_SECRET);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers['x-api-version']).toBeUndefined();
  expect(JSON.parse(request.body)).toEqual({ settlementEligibilityDateUpdate: '2022-12-06 09:00:00' });
  expect(result).toEqual({
    attempts: [{ at: '2022-12-02T16:05:00+05:30', request: '2022-12-06 09:00:00', httpStatus: 200, status: 'OK', subCode: '200', message: APPLIED.message }],
    final: { kind: 'response', httpStatus: 200, ...APPLIED },
  });
});

test('reads the body whatever the HTTP status, and does not retry a documented refusal', async () => {
  server.script(
    answer(400, { status: 'ERROR', subCode: '400', message: 'Order has already been settled' }),
    answer(200, { status: 'ERROR', subCode: '400', message: 'Eligibility time specified is in the past. Specify a new time' }),
  );
  const settled = await gateway().updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(settled.final).toEqual({ kind: 'response', httpStatus: 400, status: 'ERROR', subCode: '400', message: 'Order has already been settled' });
  expect(settled.attempts).toHaveLength(1);
  const past = await gateway().updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00 AM');
  expect(past.final).toMatchObject({ httpStatus: 200, status: 'ERROR', subCode: '400', message: expect.stringContaining('in the past') });
  expect(server.requests).toHaveLength(2);
});

test('a 5xx, a reset or a timeout ends the call at once (the PUT may have applied: the caller reads the recon first)', async () => {
  server.script(answer(503, { message: 'upstream unavailable', code: 'api_error', type: 'api_error' }), { kind: 'reset' });
  const unavailable = await gateway({ random: () => 0.999 }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(unavailable.attempts.map((a) => [a.httpStatus, a.status])).toEqual([[503, 'ERROR']]);
  expect(unavailable.attempts[0]).toMatchObject({ subCode: '503', message: 'upstream unavailable' });
  const reset = await gateway().updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(reset.attempts.map((a) => [a.httpStatus, a.status])).toEqual([[null, 'NETWORK']]);
  expect(server.requests).toHaveLength(2);
  expect(sleeps).toEqual([]);
});

test('runs beforePut before each PUT leaves, with the try and its stamp; a beforePut that throws sends nothing', async () => {
  server.script(answer(429, { message: 'Too many requests' }, { 'x-ratelimit-retry': '1' }));
  const seen: Array<[number, unknown, number]> = [];
  const result = await gateway({ random: () => 0 }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00', async (attempt, at) => {
    seen.push([attempt, at, server.requests.length]);
  });
  // Each call of beforePut came before its request reached the server.
  expect(seen).toEqual([[1, result.attempts[0].at, 0], [2, result.attempts[1].at, 1]]);
  await expect(gateway().updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00', async () => { throw new Error('not recorded'); }))
    .rejects.toThrow('not recorded');
  expect(server.requests).toHaveLength(2);
});

test('honours x-ratelimit-retry on a 429 before trying again', async () => {
  server.script(answer(429, { message: 'Too many requests', code: 'request_failed', type: 'rate_limit_error' }, {
    'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '0', 'x-ratelimit-retry': '3', 'x-ratelimit-type': 'app_id',
  }));
  const result = await gateway({ random: () => 0 }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(sleeps).toEqual([3000]);
  expect(result.attempts.map((a) => [a.httpStatus, a.status, a.message])).toEqual([
    [429, 'RATE_LIMITED', 'Too many requests'], [200, 'OK', APPLIED.message],
  ]);
});

test('a 429 asking for longer than the call may wait ends the call with the retry time', async () => {
  server.script(answer(429, { message: 'Too many requests' }, { 'x-ratelimit-retry': '60' }));
  const result = await gateway({ maxWaitMs: 20_000 }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(server.requests).toHaveLength(1);
  expect(sleeps).toEqual([]);
  expect(result.final).toEqual({
    kind: 'response', httpStatus: 429, status: 'RATE_LIMITED', subCode: '429', message: 'Too many requests', retryAfterSeconds: 60,
  });
});

test('times out a request that gets no answer, and does not try again', async () => {
  server.fallback = () => ({ kind: 'hang' });
  const result = await gateway({ timeoutMs: 50, maxTries: 2 }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  // One try (on a busy machine the 50 ms may run out before the server has even read the request).
  expect(server.requests.length).toBeLessThanOrEqual(1);
  expect(result.attempts.map((a) => [a.httpStatus, a.status, a.subCode])).toEqual([[null, 'TIMEOUT', null]]);
  expect(result.final).toEqual({ kind: 'timeout', message: 'no answer within 50 ms' });
});

test('times out an answer whose body stops coming: the timeout covers the whole exchange', async () => {
  server.fallback = () => ({ kind: 'stall', status: 200 });
  const result = await gateway({ timeoutMs: 50, maxTries: 1 }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(server.requests).toHaveLength(1);
  expect(result.final).toEqual({ kind: 'timeout', message: 'no answer within 50 ms' });
});

test('gives up on 429s after maxTries and returns the last answer', async () => {
  server.fallback = () => answer(429, { message: 'Too many requests' });
  const result = await gateway({ maxTries: 3 }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(result.attempts).toHaveLength(3);
  expect(result.final).toMatchObject({ kind: 'response', httpStatus: 429, message: 'Too many requests' });
});

test('the per-minute limit is shared by concurrent calls; without room a call is throttled and sends nothing', async () => {
  const client = gateway({ ratePerMinute: 2, maxWaitMs: 0 });
  const results = await Promise.all(['order_1', 'order_2', 'order_3'].map((id) =>
    client.updateEligibility(`${id}xx`, 'vendor_A', '2022-12-06 09:00:00')));
  expect(server.requests).toHaveLength(2);
  const throttled = results.filter((r) => r.final.kind === 'throttled');
  expect(throttled).toHaveLength(1);
  expect(throttled[0].attempts).toEqual([]);
  const wait = (throttled[0].final as { retryAfterSeconds: number }).retryAfterSeconds;
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(60);
  // The window is still full for the next call.
  expect((await client.updateEligibility('order_4xx', 'vendor_A', '2022-12-06 09:00:00')).final.kind).toBe('throttled');
  expect(server.requests).toHaveLength(2);
});

test('ids and dates are validated before any request', async () => {
  const client = gateway();
  await expect(client.updateEligibility('ab', 'vendor_A', '2022-12-06 09:00:00')).rejects.toThrow(/^orderId: is "ab", not a valid id; send 3 to 45 characters/);
  await expect(client.updateEligibility('order_1001', '../admin', '2022-12-06 09:00:00')).rejects.toThrow(/^vendorId: /);
  await expect(client.updateEligibility('o'.repeat(46), 'vendor_A', '2022-12-06 09:00:00')).rejects.toThrow(/^orderId: /);
  await expect(client.updateEligibility('order 1001', 'vendor_A', '2022-12-06 09:00:00')).rejects.toThrow(/^orderId: /);
  await expect(client.updateEligibility('order_1001', 'vendor_A', '2022-12-06T09:00:00+05:30')).rejects.toThrow(/^eligibility: .*send "YYYY-MM-DD HH:MM:SS"/);
  expect(server.requests).toHaveLength(0);
});

test('credentials never appear in attempts, answers, errors or the client itself, even when the server echoes them', async () => {
  server.script(
    answer(500, { message: `bad secret ${CLIENT_SECRET} for ${CLIENT_ID}` }),
    answer(401, `authentication failed for x-client-secret=${CLIENT_SECRET}`),
  );
  const client = gateway({ maxTries: 2 });
  const result = await client.updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  const text = JSON.stringify(result);
  expect(text).toContain('[redacted]');
  expect(text).not.toContain(CLIENT_SECRET);
  expect(text).not.toContain(CLIENT_ID);
  const error = await client.updateEligibility('x', 'vendor_A', '2022-12-06 09:00:00').catch((e: Error) => e);
  expect(`${(error as Error).message} ${(error as Error).stack}`).not.toContain(CLIENT_SECRET);
  expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(CLIENT_SECRET);
  expect(JSON.stringify(client)).not.toContain(CLIENT_SECRET);
});

test('a refused connection is a network answer that ends the call', async () => {
  // Port 2 on loopback has no listener (fetch refuses port 1 outright); a just-closed ephemeral port could be
  // taken by a parallel test's server.
  const result = await new HttpEligibilityGateway({
    vendorBaseUrl: 'http://127.0.0.1:2', clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, maxTries: 2, sleep: async () => {},
  }).updateEligibility('order_1001', 'vendor_A', '2022-12-06 09:00:00');
  expect(result.attempts.map((a) => a.status)).toEqual(['NETWORK']);
  expect(result.final).toMatchObject({ kind: 'network', message: expect.stringContaining('ECONNREFUSED') });
  expect(result.attempts[0].at.toText()).toMatch(/\+05:30$/);
});

test('bad options are refused at construction, naming the option and what to send', () => {
  const base = { vendorBaseUrl: server.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };
  expect(() => new HttpEligibilityGateway({ ...base, vendorBaseUrl: 'not a url' }))
    .toThrow('vendorBaseUrl: "not a url" is not a URL; send e.g. "https://api.example.com"');
  expect(() => new HttpEligibilityGateway({ ...base, vendorBaseUrl: 'file:///etc' })).toThrow(/^vendorBaseUrl: protocol file: is not supported/);
  expect(() => new HttpEligibilityGateway({ ...base, clientId: '' })).toThrow(/^clientId: missing/);
  expect(() => new HttpEligibilityGateway({ ...base, timeoutMs: 1.5 })).toThrow(/^timeoutMs: 1.5 is not a positive integer/);
  expect(() => new HttpEligibilityGateway({ ...base, maxWaitMs: -1 })).toThrow(/^maxWaitMs: -1 is negative/);
  expect(() => new HttpEligibilityGateway({ ...base, ratePerMinute: 0 })).toThrow(/^ratePerMinute: 0 is not a positive integer/);
});
