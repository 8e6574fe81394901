/** Sandbox hardening (issue 10.5, 10.6): bodies limited before they are read, no echo, other web pages and metadata URLs refused. */
import { rawRequest } from '../raw-http';
import { MAX_BODY_BYTES, MAX_UPLOAD_BYTES } from '../../sandbox/http';
import { CLIENT_ID, CLIENT_SECRET, customer, startHarness, type Harness } from './core-fixtures';

let h: Harness;
beforeAll(async () => { h = await startHarness('2022-12-02T16:00:00+05:30'); });
afterAll(() => h.sandbox.close());

const pg = { 'x-client-id': CLIENT_ID, 'x-client-secret': CLIENT_SECRET, 'x-api-version': '2022-09-01' };

describe('bodies are limited before they are read (10.5)', () => {
  it('a 1.5 GB POST /pg/orders is answered 413 from its Content-Length, in the gateway\'s error shape', async () => {
    const answer = await rawRequest(h.sandbox.url, {
      method: 'POST', path: '/pg/orders', headers: { 'content-type': 'application/json' }, body: '{"order_id":', declaredLength: 1.5 * 1024 ** 3,
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({
      code: 'request_too_large', type: 'invalid_request_error',
      message: `request body: 1610612736 bytes, more than the ${MAX_BODY_BYTES} bytes this endpoint takes. Send a smaller body`,
    });
  });

  it('a body streamed without a length is cut off at the limit', async () => {
    const response = await fetch(`${h.sandbox.url}/pg/orders`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...pg },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 3; i += 1) controller.enqueue(new Uint8Array(MAX_BODY_BYTES / 2).fill(32));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit).catch(() => null);
    // The server answers 413 and closes; a client still sending may see the reset instead of the answer.
    if (response) expect(response.status).toBe(413);
    expect((await h.call('GET', '/_sandbox/stats')).status).toBe(200);
  });

  it('a 30 MB CSV upload is 413 without reading it; a bad CSV under the limit is not echoed back', async () => {
    const answer = await rawRequest(h.sandbox.url, {
      method: 'POST', path: '/pg/links/bulk', headers: { ...pg, 'content-type': 'text/csv' }, body: 'x'.repeat(64 * 1024), declaredLength: 30 * 1024 * 1024,
    });
    expect(answer.status).toBe(413);
    expect(answer.text.length).toBeLessThan(1000);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'request_too_large', message: expect.stringContaining(`more than the ${MAX_UPLOAD_BYTES} bytes`) });
    const bad = `${'y'.repeat(200_000)}\n`;
    const refused = await h.call('POST', '/pg/links/bulk', bad, { ...pg, 'content-type': 'text/csv' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('file_header_invalid');
    expect(JSON.stringify(refused.body).length).toBeLessThan(2000);
  });

  it('a field error quotes at most the start of a long value', async () => {
    const answer = await h.call('POST', '/pg/orders', { order_id: 'o'.repeat(500_000), order_amount: 10, order_currency: 'INR', customer_details: customer() }, pg);
    expect(answer.status).toBe(400);
    expect(answer.body.message.length).toBeLessThan(1000);
  });
});

describe('other web pages cannot drive the sandbox (10.6)', () => {
  it('a form post to /_sandbox/reset is refused, as is a JSON post from another origin', async () => {
    await h.call('PUT', '/_sandbox/merchant', { deferByDays: 9 });
    const form = await rawRequest(h.sandbox.url, { method: 'POST', path: '/_sandbox/reset', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(form.status).toBe(415);
    expect(JSON.parse(form.text)).toMatchObject({ code: 'content_type_refused', type: 'invalid_request_error' });
    const textPlain = await rawRequest(h.sandbox.url, { method: 'POST', path: '/_sandbox/reset', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(textPlain.status).toBe(415);
    const foreign = await rawRequest(h.sandbox.url, {
      method: 'POST', path: '/_sandbox/reset', headers: { 'content-type': 'application/json', origin: 'https://evil.example' }, body: '{}',
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text).code).toBe('cross_origin_refused');
    const crossSite = await rawRequest(h.sandbox.url, { method: 'POST', path: '/_sandbox/reset', headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).toBe(403);
    expect((await h.call('GET', '/_sandbox/merchant')).body.deferByDays).toBe(9);
    // Its own page's origin and a program (no Origin) still work.
    const own = await rawRequest(h.sandbox.url, { method: 'POST', path: '/_sandbox/reset', headers: { 'content-type': 'application/json', origin: h.sandbox.url }, body: '{}' });
    expect(own.status).toBe(200);
  });

  it('a Host that is not a loopback name (DNS rebinding) is refused, even for a read', async () => {
    const port = new URL(h.sandbox.url).port;
    const rebound = await rawRequest(h.sandbox.url, { method: 'GET', path: '/_sandbox/merchant', headers: { host: `evil.example:${port}` } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.text).code).toBe('host_not_allowed');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect((await rawRequest(h.sandbox.url, { method: 'GET', path: '/_sandbox/merchant', headers: { host } })).status).toBe(200);
    }
    expect((await rawRequest(h.sandbox.url, { method: 'GET', path: '/_sandbox/merchant', headers: { host: 'localhost:1' } })).status).toBe(403);
  });

  it('notify_url and the merchant webhook URL refuse link-local and metadata addresses', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/', 'http://[::ffff:169.254.169.254]/', 'http://2852039166/', 'http://metadata.google.internal/', 'http://[fd00:ec2::254]/']) {
      const order = await h.call('POST', '/pg/orders', {
        order_id: `order_meta_${Math.random().toString(36).slice(2, 8)}`, order_amount: 10, order_currency: 'INR', customer_details: customer(), order_meta: { notify_url: url },
      }, pg);
      expect(order.status).toBe(400);
      expect(order.body).toMatchObject({ code: 'order_meta.notify_url_invalid', message: expect.stringContaining('link-local or metadata address') });
      const merchant = await h.call('PUT', '/_sandbox/merchant', { webhookUrl: url });
      expect(merchant.status).toBe(400);
    }
    expect((await h.call('PUT', '/_sandbox/merchant', { webhookUrl: 'http://127.0.0.1:4000/webhooks/gateway' })).status).toBe(200);
  });
});
