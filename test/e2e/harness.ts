/** End-to-end harness: the whole embedded default on ephemeral ports, driven as a marketplace and a user would. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { runApiCommand } from '../../bin/api-commands';
import { startLocal, type LocalRuntime, type LocalRuntimeOptions } from '../../local/runtime';

export interface Harness {
  runtime: LocalRuntime;
  events: EventBridgeClient;
  /** Sends one marketplace event through the real EventBridge client into the edge; resolves once it is processed. */
  send(detailType: string, detail: object): Promise<void>;
  api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Runs one CLI command line in-process against the stack's API; answers its exit code and what it printed. */
  cli(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
  gateway<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  advance(iso: string): Promise<void>;
  createVendors(vendors: { id: string; scheduleOption: number }[]): Promise<void>;
  /** Creates an order with splits at the sandbox and pays it at the clock's now; returns the payment time. */
  createPaidOrder(orderId: string, splits: { vendorId: string; amount: number }[]): Promise<string>;
  setPolicy(vendorId: string, release: object, scheduleOption?: number): Promise<void>;
  /** Successful eligibility PUTs the sandbox recorded, by "order/vendor". */
  appliedAtGateway(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

export const START = '2022-12-02T16:05:00+05:30';

export async function startHarness(opts: LocalRuntimeOptions = {}): Promise<Harness> {
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, clockStart: new Date(START), frozen: true, ...opts });
  const events = new EventBridgeClient({
    endpoint: runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const { clientId, clientSecret } = runtime.sandbox.context.config;
  const request = async (base: string, headers: Record<string, string>, method: string, path: string, body?: unknown) => {
    const response = await fetch(base + path, {
      method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const gatewayHeaders = { 'x-client-id': clientId, 'x-client-secret': clientSecret, 'x-api-version': '2022-09-01' };
  const harness: Harness = {
    runtime,
    events,
    async send(detailType, detail) {
      const out = await events.send(new PutEventsCommand({
        Entries: [{ Source: 'marketplace.orders', DetailType: detailType, Detail: JSON.stringify(detail) }],
      }));
      if (out.FailedEntryCount) throw new Error(`PutEvents refused the entry: ${JSON.stringify(out.Entries)}`);
      await runtime.idle();
    },
    api: (method, path, body) => request(runtime.api.url, {}, method, path, body),
    async cli(...argv) {
      let out = '';
      let err = '';
      const code = await runApiCommand([...argv, '--api-url', runtime.api.url], { out: (t) => { out += t; }, err: (t) => { err += t; } });
      return { code, out, err };
    },
    gateway: (method, path, body) => request(runtime.sandbox.url, gatewayHeaders, method, path, body),
    async advance(iso) {
      const answer = await request(runtime.edge.url, {}, 'POST', '/_local/clock', { advance: iso });
      if (answer.status !== 200) throw new Error(`clock advance failed: ${JSON.stringify(answer.body)}`);
      await runtime.idle();
    },
    async createVendors(vendors) {
      for (const v of vendors) {
        const answer = await harness.gateway('POST', '/pg/easy-split/vendors', {
          vendor_id: v.id, name: v.id, email: `${v.id}@example.com`, phone: '9999999999', schedule_option: v.scheduleOption, status: 'ACTIVE',
        });
        if (answer.status >= 300) throw new Error(`vendor ${v.id}: ${JSON.stringify(answer.body)}`);
      }
    },
    async createPaidOrder(orderId, splits) {
      const amount = splits.reduce((sum, s) => sum + s.amount, 0);
      const created = await harness.gateway('POST', '/pg/orders', {
        order_id: orderId, order_amount: amount, order_currency: 'INR',
        customer_details: { customer_id: 'customer-1', customer_phone: '9999999999' },
        order_splits: splits.map((s) => ({ vendor_id: s.vendorId, amount: s.amount })),
      });
      if (created.status >= 300) throw new Error(`order ${orderId}: ${JSON.stringify(created.body)}`);
      const paymentTime = runtime.clock.now().setZone('Asia/Kolkata').toISO({ suppressMilliseconds: true })!;
      // Payment webhooks would also turn the payment into an order.paid; these tests send their own events, so that
      // what Holdback receives is exactly what each test says. Settlement webhooks (merchant URL) stay on.
      const merchant = runtime.sandbox.state.merchant;
      const webhookUrl = merchant.webhookUrl;
      merchant.webhookUrl = null;
      const paid = await harness.gateway('POST', `/_sandbox/orders/${orderId}/pay`, { payment_time: paymentTime }).finally(() => {
        merchant.webhookUrl = webhookUrl;
      });
      if (paid.status >= 300) throw new Error(`pay ${orderId}: ${JSON.stringify(paid.body)}`);
      await runtime.idle();
      return paymentTime;
    },
    async setPolicy(vendorId, release, scheduleOption = 1) {
      const answer = await harness.api('PUT', `/vendors/${vendorId}/policy`, { scheduleOption, release, actor: 'finance@test', reason: 'e2e' });
      if (answer.status !== 200) throw new Error(`policy ${vendorId}: ${JSON.stringify(answer.body)}`);
    },
    async appliedAtGateway() {
      const { body } = await request(runtime.sandbox.url, {}, 'GET', '/_sandbox/eligibility-updates');
      return new Map((body.applied as { order_id: string; vendor_id: string; applied: number }[]).map((a) => [`${a.order_id}/${a.vendor_id}`, a.applied]));
    },
    async close() {
      events.destroy();
      await runtime.close();
    },
  };
  return harness;
}

/** One vendor of `GET /orders/{orderId}` (contract section 6). */
export interface VendorView {
  vendorId: string;
  state: string;
  policyVersion: number;
  targetEligibility: string | null;
  appliedEligibility: string | null;
  predictedSettlement: string | null;
  attempts: { at: string; request: string; status: string; subCode: string | null; message: string; confirmedFromRecon?: { at: string; eligibility: string } }[];
}

export function vendorOf(order: { vendors: VendorView[] }, vendorId: string): VendorView {
  const found = order.vendors.find((v) => v.vendorId === vendorId);
  if (!found) throw new Error(`vendor ${vendorId} not in ${JSON.stringify(order)}`);
  return found;
}

/** Runs the `holdback` command as a user does (a child process, no AWS variables in its environment): its exit code and output. */
export function holdbackCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(__dirname, '../../bin/holdback.js'), ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}
