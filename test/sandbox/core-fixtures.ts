/** Shared set-up for the sandbox core tests: a sandbox on an ephemeral port, an SDK client, fetch helpers, a webhook receiver. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Cashfree, CFEnvironment } from 'cashfree-pg';
import { SharedClock } from '../../local/clock';
import { createSandbox, type Sandbox } from '../../sandbox/app';

export const CLIENT_ID = 'core_test_client';
export const CLIENT_SECRET = 'core_test_secret_value';

export interface Harness {
  sandbox: Sandbox;
  clock: SharedClock;
  cf: Cashfree;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  pgHeaders: Record<string, string>;
}

/** A sandbox whose clock stands still at `start` (moved by the test), with fast webhook retries. */
export async function startHarness(start: string): Promise<Harness> {
  const clock = new SharedClock({ start: new Date(start), frozen: true });
  const sandbox = await createSandbox({ port: 0, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, clock, webhooks: { retryDelaysMs: [20, 40] } });
  clock.settle = () => sandbox.webhooks.idle();
  const cf = new Cashfree(CFEnvironment.SANDBOX, CLIENT_ID, CLIENT_SECRET, undefined, undefined, undefined, false);
  cf.basePath = `${sandbox.url}/pg`;
  cf.XApiVersion = '2022-09-01';
  const pgHeaders = { 'x-client-id': CLIENT_ID, 'x-client-secret': CLIENT_SECRET, 'x-api-version': '2022-09-01' };
  const call: Harness['call'] = async (method, path, body, headers = {}) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return { sandbox, clock, cf, call, pgHeaders };
}

/** The eligibility PUT as Holdback sends it (X-Client-Id / X-Client-Secret, no x-api-version). */
export function putEligibility(h: Harness, orderId: string, vendorId: string, value: unknown, headers?: Record<string, string>) {
  return h.call(
    'PUT',
    `/api/v2/easy-split/orders/${encodeURIComponent(orderId)}/settlement-eligibility/vendors/${encodeURIComponent(vendorId)}`,
    { settlementEligibilityDateUpdate: value },
    headers ?? { 'X-Client-Id': CLIENT_ID, 'X-Client-Secret': CLIENT_SECRET },
  );
}

/** The error body an SDK call answered with (axios rejects on 4xx/5xx). */
export async function sdkError(promise: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await promise;
  } catch (error) {
    const response = (error as { response?: { status: number; data: unknown } }).response;
    if (response) return { status: response.status, data: response.data };
    throw error;
  }
  throw new Error('expected the SDK call to fail');
}

export interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
}

/** A loopback server that records every POST; answers `failFirst` times with 500 before accepting. */
export async function startReceiver(failFirst = 0): Promise<{ url: string; received: ReceivedWebhook[]; close(): Promise<void> }> {
  const received: ReceivedWebhook[] = [];
  let failuresLeft = failFirst;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        res.writeHead(500).end();
      } else {
        res.writeHead(200).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

export function customer(extra: Record<string, unknown> = {}) {
  return { customer_id: 'cust_001', customer_phone: '9999999999', customer_email: 'buyer@example.com', customer_name: 'Buyer', ...extra };
}
