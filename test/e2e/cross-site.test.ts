/** Issue 10.6: other web pages cannot drive the local tools (edge, API, sandbox); the AWS SDK and the tools' own pages still can. */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { rawRequest } from '../raw-http';
import { START, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => { h = await startHarness(); });
afterAll(() => h.close());

const portOf = (url: string) => new URL(url).port;

async function clockNow(): Promise<string> {
  return ((await (await fetch(`${h.runtime.edge.url}/_local/clock`)).json()) as { now: string }).now;
}

describe('the edge\'s local controls', () => {
  it('refuse a text/plain clock move from a foreign Origin, a form, and Sec-Fetch-Site cross-site; the clock stays', async () => {
    const before = await clockNow();
    const body = JSON.stringify({ advance: 'P30D' });
    const attempts: Record<string, string>[] = [
      { 'content-type': 'text/plain', origin: 'https://evil.example' },
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'application/json', origin: 'https://evil.example' },
      { 'content-type': 'application/json', origin: 'http://127.0.0.1:1' },
      { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of attempts) {
      const answer = await rawRequest(h.runtime.edge.url, { method: 'POST', path: '/_local/clock', headers, body });
      expect([403, 415]).toContain(answer.status);
      expect(JSON.parse(answer.text).error.code).toMatch(/^(cross_origin_refused|content_type_refused)$/);
    }
    expect(await clockNow()).toBe(before);
    // The edge's own origin, and a program sending JSON, still move it.
    const own = await rawRequest(h.runtime.edge.url, {
      method: 'POST', path: '/_local/clock', headers: { 'content-type': 'application/json', origin: h.runtime.edge.url }, body: JSON.stringify({ advance: 'PT1M' }),
    });
    expect(own.status).toBe(200);
  });

  it('answer only loopback Host names (DNS rebinding), for reads too', async () => {
    const port = portOf(h.runtime.edge.url);
    const rebound = await rawRequest(h.runtime.edge.url, { method: 'GET', path: '/_local/clock', headers: { host: `attacker.example:${port}` } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.text).error.code).toBe('host_not_allowed');
    expect((await rawRequest(h.runtime.edge.url, { method: 'GET', path: '/_local/clock', headers: { host: `localhost:${port}` } })).status).toBe(200);
  });

  it('still serve the AWS SDK (x-amz-json, no Origin)', async () => {
    const out = await h.events.send(new PutEventsCommand({
      Entries: [{ Source: 'marketplace.orders', DetailType: 'order.paid', Detail: JSON.stringify({ orderId: 'order_sdk_ok', transactionTime: START, vendors: [{ vendorId: 'vendor_a', amount: '1.00' }] }) }],
    }));
    expect(out.FailedEntryCount).toBe(0);
  });
});

describe('the API', () => {
  it('refuses changes in simple content types or from other sites, and foreign Host names', async () => {
    const put = (headers: Record<string, string>) => rawRequest(h.runtime.api.url, { method: 'PUT', path: '/settings', headers, body: JSON.stringify({ deferByDays: 3 }) });
    expect((await put({ 'content-type': 'text/plain' })).status).toBe(415);
    expect((await put({ 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await put({ 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(415);
    const foreign = await put({ 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text)).toEqual({ error: { code: 'cross_origin_refused', message: expect.stringContaining('"https://evil.example" is another site') } });
    expect((await put({ 'content-type': 'application/json', 'sec-fetch-site': 'same-site' })).status).toBe(403);
    const rebound = await rawRequest(h.runtime.api.url, { method: 'GET', path: '/settings', headers: { host: `evil.example:${portOf(h.runtime.api.url)}` } });
    expect(rebound.status).toBe(403);
    expect((await h.api('GET', '/settings')).body.deferByDays).toBe(15);
    // A program's JSON and the API's own pages go through.
    expect((await put({ 'content-type': 'application/json', origin: h.runtime.api.url })).status).toBe(200);
    expect((await h.api('GET', '/settings')).body.deferByDays).toBe(3);
  });
});

describe('the API\'s body limit', () => {
  it('a 1.5 GB body is answered 413 from its Content-Length, unread', async () => {
    const answer = await rawRequest(h.runtime.api.url, {
      method: 'PUT', path: '/settings', headers: { 'content-type': 'application/json' }, body: '{"holidays":[', declaredLength: 1.5 * 1024 ** 3,
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text).error.code).toBe('payload_too_large');
  });
});

describe('the sandbox', () => {
  it('refuses a form post to /_sandbox/reset from another page, and answers only loopback Host names', async () => {
    const reset = await rawRequest(h.runtime.sandbox.url, {
      method: 'POST', path: '/_sandbox/reset', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: 'x=1',
    });
    expect(reset.status).toBe(403);
    const rebound = await rawRequest(h.runtime.sandbox.url, { method: 'GET', path: '/_sandbox/merchant', headers: { host: `evil.example:${portOf(h.runtime.sandbox.url)}` } });
    expect(rebound.status).toBe(403);
    expect(h.runtime.sandbox.state.merchant.webhookUrl).toBe(`${h.runtime.api.url}/webhooks/gateway`);
  });
});
