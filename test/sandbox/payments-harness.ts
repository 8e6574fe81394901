/** Shared setup of the payments contract tests: a sandbox on port 0, the official SDK pointed at it, a webhook receiver. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Cashfree, CFEnvironment } from 'cashfree-pg';
import { createSandbox, type Sandbox } from '../../sandbox/app';
import { OpenApiContract } from './payments-openapi';

export const CLIENT_ID = 'payments_test_client';
export const CLIENT_SECRET = 'payments_test_secret';
export const TEST_CARD = { card_number: '4111111111111111', card_expiry_mm: '12', card_expiry_yy: '30', card_cvv: '123' };

export interface ReceivedWebhook {
  type: string;
  body: any;
  signatureValid: boolean;
}

/** A loopback server that records webhooks and checks their signature (gateway-facts section 4). */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const timestamp = String(req.headers['x-webhook-timestamp'] ?? '');
        const given = Buffer.from(String(req.headers['x-webhook-signature'] ?? ''));
        const expected = Buffer.from(createHmac('sha256', CLIENT_SECRET).update(timestamp + raw).digest('base64'));
        const body = JSON.parse(raw);
        this.received.push({ type: body.type, body, signatureValid: given.length === expected.length && timingSafeEqual(given, expected) });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  forPayment(cfPaymentId: number): ReceivedWebhook[] {
    return this.received.filter((w) => w.body?.data?.payment?.cf_payment_id === cfPaymentId);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export interface Harness {
  sandbox: Sandbox;
  cf: Cashfree;
  contract: OpenApiContract;
  hooks: WebhookReceiver;
  /** Creates an order through the SDK; notify_url points at the webhook receiver. */
  order(amount: number, customer?: Record<string, unknown>): Promise<{ order_id: string; payment_session_id: string }>;
  /** PUT/GET on a sandbox control. */
  control(method: 'PUT' | 'GET', path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

let orderSeq = 0;

export async function startHarness(): Promise<Harness> {
  const sandbox = await createSandbox({ port: 0, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, webhooks: { retryDelaysMs: [] } });
  const cf = new Cashfree(CFEnvironment.SANDBOX, CLIENT_ID, CLIENT_SECRET, undefined, undefined, undefined, false);
  cf.basePath = `${sandbox.url}/pg`;
  cf.XApiVersion = '2022-09-01';
  const hooks = new WebhookReceiver();
  await hooks.start();
  return {
    sandbox,
    cf,
    contract: new OpenApiContract(),
    hooks,
    async order(amount, customer = {}) {
      const orderId = `pay_test_${process.pid}_${++orderSeq}`;
      const response = await cf.PGCreateOrder({
        order_id: orderId,
        order_amount: amount,
        order_currency: 'INR',
        customer_details: { customer_id: 'cust_1', customer_phone: '9876543210', customer_email: 'buyer@example.com', customer_name: 'Asha', ...customer } as any,
        order_meta: { notify_url: hooks.url, return_url: 'https://merchant.example.com/return' },
      });
      return { order_id: response.data.order_id as string, payment_session_id: response.data.payment_session_id as string };
    },
    async control(method, path, body) {
      const response = await fetch(`${sandbox.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    },
    async close() {
      await sandbox.webhooks.idle();
      await sandbox.close();
      await hooks.close();
    },
  };
}

/** The gateway's answer to a refused SDK call (the SDK throws axios errors). */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await call;
  } catch (error: any) {
    if (error?.response) return { status: error.response.status, data: error.response.data };
    throw error;
  }
  throw new Error('expected the gateway to refuse the request, but it succeeded');
}
