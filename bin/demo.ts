/**
 * `npm run demo`: a marketplace week on the shared clock, in one process, ending in a table per vendor release and
 * finance's and the auditor's views: a policy preview, the forecast, the prediction accuracy and the audit check.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SingleBar } from 'cli-progress';
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';
import { isValidWebhookSignature } from '../functions/application/releases/handle-gateway-webhook';
import type { PolicyPreviewAnswer } from '../functions/application/config/preview-changes';
import type { ForecastDay } from '../functions/application/reads/read-vendors';
import type { AccuracyRow } from '../functions/application/releases/settlement-accuracy';
import type { AuditVerification } from '../functions/domain/audit/audit-verification';
import type { ReleaseRule } from '../functions/domain/types';
import { startLocal, type LocalRuntime } from '../local/runtime';

/** The gateway documentation's example week starts here (a Friday afternoon, India time). */
const DEMO_START = '2022-12-02T16:05:00+05:30';
const ZONE = 'Asia/Kolkata';
/** Every order of the week is paid in rupees. */
const CURRENCY = 'INR';
/** Defer by Days, set alike on the gateway's dashboard (sandbox) and in Holdback's mirror, short enough for a week. */
const DEFER_BY_DAYS = 6;
const FAULTS = { rate: 0.2, kinds: ['5xx', '429', 'timeout', 'reset'], seed: 2022, timeoutMs: 300 };
/** Holdback's gateway client gives up on a held ("timeout") request sooner than the sandbox holds it. */
const GATEWAY_TIMEOUT_MS = 250;
const OTP = '111000';
const PRE_APPROVED_PHONE = '9876500001';
const CARD = { card_number: '4111111111111111', card_expiry_mm: '12', card_expiry_yy: '30', card_cvv: '123' };

interface DemoVendor {
  id: string;
  scheduleOption: number;
  release: ReleaseRule;
}

/** Finance's policies: every rule, on several of the gateway's schedule options. */
const DEMO_VENDORS: DemoVendor[] = [
  { id: 'v-instant-8', scheduleOption: 8, release: { kind: 'immediate' } },
  { id: 'v-instant-13', scheduleOption: 13, release: { kind: 'immediate' } },
  { id: 'v-p3d-3', scheduleOption: 3, release: { kind: 'after_payment', delay: 'P3D' } },
  { id: 'v-p3d-1', scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' } },
  { id: 'v-deliver-1', scheduleOption: 1, release: { kind: 'after_delivery', delay: 'P2D' } },
  { id: 'v-deliver-8', scheduleOption: 8, release: { kind: 'after_delivery', delay: 'P2D' } },
  // Weekly settlement: left at max after its cancellation, it would settle only on Monday 12 Dec, after the demo.
  { id: 'v-returns-11', scheduleOption: 11, release: { kind: 'after_delivery', delay: 'P2D' } },
  { id: 'v-max-1', scheduleOption: 1, release: { kind: 'at_max' } },
  { id: 'v-max-14', scheduleOption: 14, release: { kind: 'at_max' } },
];

/** How the customer pays at the gateway's checkout: the method's name and the sessions request's payment_method. */
interface Checkout {
  method: string;
  paymentMethod: object;
}

interface DemoOrder {
  id: string;
  splits: { vendorId: string; amount: string }[];
  checkout: Checkout;
  /** Who tells Holdback the order is paid: the gateway's payment webhook, or the marketplace backend's own event. */
  reportedBy: 'gateway webhook' | 'marketplace event';
}

const upi = { upi: { channel: 'collect', upi_id: 'asha@okbank' } };
const netbanking = { netbanking: { channel: 'link', netbanking_bank_code: 3044 } };
const creditEmi = { emi: { channel: 'link', ...CARD, card_bank_name: 'iss-01', emi_tenure: 3 } };
const payLater = { paylater: { channel: 'link', provider: 'pl-2', phone: '9876543210' } };
const debitEmi = { emi: { channel: 'post', ...CARD, card_holder_name: 'Asha Rao', phone: PRE_APPROVED_PHONE, card_bank_name: 'iss-01', emi_tenure: 3 } };

export const DEMO_ORDERS: DemoOrder[] = [
  {
    id: 'week-order-1001', reportedBy: 'gateway webhook', checkout: { method: 'upi collect', paymentMethod: upi },
    splits: [{ vendorId: 'v-instant-8', amount: '400.00' }, { vendorId: 'v-p3d-3', amount: '350.00' }, { vendorId: 'v-max-1', amount: '250.00' }],
  },
  {
    id: 'week-order-1002', reportedBy: 'gateway webhook', checkout: { method: 'net banking', paymentMethod: netbanking },
    splits: [{ vendorId: 'v-instant-13', amount: '800.00' }, { vendorId: 'v-deliver-1', amount: '700.00' }],
  },
  {
    id: 'week-order-1003', reportedBy: 'gateway webhook', checkout: { method: 'debit card EMI + OTP', paymentMethod: debitEmi },
    splits: [{ vendorId: 'v-deliver-8', amount: '2500.00' }, { vendorId: 'v-p3d-1', amount: '900.00' }],
  },
  {
    id: 'week-order-1004', reportedBy: 'marketplace event', checkout: { method: 'credit card EMI', paymentMethod: creditEmi },
    splits: [{ vendorId: 'v-instant-8', amount: '300.00' }, { vendorId: 'v-deliver-1', amount: '450.00' }, { vendorId: 'v-max-14', amount: '650.00' }],
  },
  {
    id: 'week-order-1005', reportedBy: 'marketplace event', checkout: { method: 'pay later', paymentMethod: payLater },
    splits: [{ vendorId: 'v-returns-11', amount: '600.00' }, { vendorId: 'v-p3d-1', amount: '300.00' }],
  },
];

/** What happens in the week, at India wall-clock times; the clock moves an hour at a time between them. */
type WeekEvent =
  | { at: string; detailType: 'order.delivered'; orderId: string }
  | { at: string; detailType: 'order.dispute_opened'; orderId: string; vendorIds: string[] }
  | { at: string; detailType: 'order.dispute_closed'; orderId: string; vendorIds: string[]; resolution: 'merchant_won' }
  | { at: string; detailType: 'order.cancelled'; orderId: string; vendorIds: string[] }
  | { at: string; detailType: 'faults.cleared' };

/** Finance stops the fault injection two days before the end, so retries and the sweep have time to finish. */
const FAULTS_CLEARED_AT = '2022-12-07T12:00';

export const DISPUTED = { orderId: 'week-order-1003', vendorId: 'v-deliver-8' };
export const CANCELLED = { orderId: 'week-order-1005', vendorId: 'v-returns-11' };

const WEEK: WeekEvent[] = [
  { at: '2022-12-03T11:00', detailType: 'order.delivered', orderId: 'week-order-1002' },
  { at: '2022-12-03T12:00', detailType: 'order.delivered', orderId: 'week-order-1003' },
  { at: '2022-12-03T15:00', detailType: 'order.cancelled', orderId: CANCELLED.orderId, vendorIds: [CANCELLED.vendorId] },
  { at: '2022-12-04T10:00', detailType: 'order.delivered', orderId: 'week-order-1004' },
  { at: '2022-12-04T18:00', detailType: 'order.dispute_opened', orderId: DISPUTED.orderId, vendorIds: [DISPUTED.vendorId] },
  { at: '2022-12-06T15:00', detailType: 'order.dispute_closed', orderId: DISPUTED.orderId, vendorIds: [DISPUTED.vendorId], resolution: 'merchant_won' },
  { at: FAULTS_CLEARED_AT, detailType: 'faults.cleared' },
];
/** Late enough that the at_max releases (payment + 6 days, Thursday) settle on Friday's T+1 slot. */
const WEEK_END = '2022-12-09T12:00';

export interface DemoRow {
  vendor: string;
  rule: string;
  scheduleOption: number;
  order: string;
  state: string;
  target: string | null;
  applied: string | null;
  predicted: string | null;
  actual: string | null;
  /** Predicted settlement equals the gateway's settled_at: "yes", "no", or "-" when either is missing. */
  match: 'yes' | 'no' | '-';
}

export interface DemoSummary {
  releases: number;
  applied: number;
  settled: number;
  heldByDispute: number;
  cancelled: number;
  atMax: number;
  failed: number;
  faultsInjected: number;
  /** Eligibility PUT attempts that failed and were tried again by Holdback. */
  holdbackRetries: number;
  /** Webhooks the sandbox had to deliver more than once. */
  webhookRedeliveries: number;
  /** Requests the marketplace (this demo) had to send again after an injected fault. */
  marketplaceRetries: number;
  predictedMatches: number;
  predictedMismatches: number;
}

/** The policy change finance previews on Friday evening, with the week's orders paid: it changes nothing. */
export const PREVIEWED = {
  vendorId: 'v-p3d-1',
  candidate: { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P1D' } as ReleaseRule },
};
/** The forecast's India-time days: from the week's first day far enough on to hold every settlement of its orders. */
export const FORECAST_RANGE = { from: '2022-12-02', to: '2023-01-31' };

/** A release as Holdback showed it when finance looked ahead (what the forecast counted). */
export interface OpenRelease {
  orderId: string;
  vendorId: string;
  state: string;
  amount: string;
  targetEligibility: string | null;
  predictedSettlement: string | null;
}

/** What finance and the auditor read through Holdback's API: ahead on Friday evening, back at the week's end. */
export interface FinanceStory {
  lookedAheadAt: string;
  preview: PolicyPreviewAnswer;
  /** The policy in force when the preview was asked, as its rule text. */
  previewFrom: string;
  forecast: { from: string; to: string; days: ForecastDay[] };
  /** Every release of the week at the forecast's moment, from GET /orders. */
  openAtForecast: OpenRelease[];
  accuracy: { from: string; to: string; scheduleOptions: AccuracyRow[] };
  verification: AuditVerification;
}

export interface DemoResult {
  rows: DemoRow[];
  summary: DemoSummary;
  finance: FinanceStory;
  /** When the dispute was closed, and the disputed release's state while it was open. */
  dispute: { openedAt: string; closedAt: string; stateWhileOpen: string };
  cancelledAt: string;
}

export interface DemoOptions {
  /** Called as the week moves: step done, steps in all, and what is happening. */
  onProgress?: (done: number, total: number, phase: string) => void;
}

const india = (iso: string): DateTime => DateTime.fromISO(iso, { zone: ZONE });
const shown = (dt: DateTime): string => dt.setZone(ZONE).toISO({ suppressMilliseconds: true })!;

function ruleText(rule: ReleaseRule): string {
  return rule.kind === 'after_payment' || rule.kind === 'after_delivery' ? `${rule.kind} ${rule.delay}` : rule.kind;
}

function vendorOf(id: string): DemoVendor {
  const vendor = DEMO_VENDORS.find((v) => v.id === id);
  if (!vendor) throw new Error(`vendor ${id} is not one of the demo's vendors`);
  return vendor;
}

interface JsonAnswer {
  status: number;
  body: any;
}

/** The marketplace's side of the demo: its gateway client (retrying injected faults), Holdback's API and its events. */
class Marketplace {
  retries = 0;
  readonly events: EventBridgeClient;
  private readonly gatewayHeaders: Record<string, string>;

  constructor(private readonly runtime: LocalRuntime) {
    const { clientId, clientSecret } = runtime.sandbox.context.config;
    this.gatewayHeaders = { 'x-client-id': clientId, 'x-client-secret': clientSecret, 'x-api-version': '2022-09-01' };
    this.events = new EventBridgeClient({
      endpoint: runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'demo', secretAccessKey: 'demo' },
    });
  }

  /**
   * A gateway call as a careful merchant makes it: 429, 5xx, a reset or no answer is tried again. Injected faults are
   * decided before the gateway does anything, so a retried create never creates twice.
   */
  async gateway(method: string, path: string, body?: unknown, headers: Record<string, string> = this.gatewayHeaders): Promise<JsonAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await request(this.runtime.sandbox.url + path, method, body, headers, 1_000);
        if (answer.status !== 429 && answer.status < 500) return expectOk(method, path, answer);
        if (attempt >= 10) return expectOk(method, path, answer);
      } catch (error) {
        if (attempt >= 10) throw error;
      }
      this.retries += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async control(method: string, path: string, body?: unknown): Promise<any> {
    return expectOk(method, path, await request(this.runtime.sandbox.url + path, method, body, {}, 5_000)).body;
  }

  async api(method: string, path: string, body?: unknown): Promise<any> {
    return expectOk(method, path, await request(this.runtime.api.url + path, method, body, {}, 5_000)).body;
  }

  async publish(detailType: string, detail: object): Promise<void> {
    const out = await this.events.send(new PutEventsCommand({
      Entries: [{ Source: 'marketplace.orders', DetailType: detailType, Detail: JSON.stringify(detail) }],
    }));
    if (out.FailedEntryCount) throw new Error(`PutEvents refused ${detailType}: ${JSON.stringify(out.Entries)}`);
  }
}

async function request(url: string, method: string, body: unknown, headers: Record<string, string>, timeoutMs: number): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

function expectOk(method: string, path: string, answer: JsonAnswer): JsonAnswer {
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer;
}

/**
 * The marketplace backend's webhook receiver for the orders it reports itself: it checks the gateway's signature and
 * sends `order.paid` with its own order book's split, through its AWS SDK, before it acknowledges the webhook.
 */
async function startMarketplaceBackend(runtime: LocalRuntime, marketplace: Marketplace): Promise<{ url: string; server: Server }> {
  const book = new Map(DEMO_ORDERS.map((o) => [o.id, o]));
  const secret = runtime.sandbox.context.config.clientSecret;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const rawBody = Buffer.concat(chunks);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
        if (!isValidWebhookSignature(secret, { headers, rawBody })) {
          res.writeHead(401).end();
          return;
        }
        const hook = JSON.parse(rawBody.toString('utf8')) as { type: string; data: { order: { order_id: string }; payment: { payment_time: string } } };
        const order = book.get(hook.data.order.order_id);
        if (hook.type === 'PAYMENT_SUCCESS_WEBHOOK' && order) {
          await marketplace.publish('order.paid', {
            orderId: order.id,
            transactionTime: hook.data.payment.payment_time,
            vendors: order.splits.map((s) => ({ vendorId: s.vendorId, amount: s.amount })),
            currency: CURRENCY,
          });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      })().catch(() => { res.writeHead(500).end(); });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/gateway-webhooks`, server };
}

/** Creates the order at the gateway and pays it through the checkout the customer chose (redirect page or OTP). */
async function checkout(marketplace: Marketplace, order: DemoOrder, notifyUrl: string): Promise<void> {
  const amount = order.splits.reduce((sum, s) => sum.plus(s.amount), new Decimal(0));
  const created = await marketplace.gateway('POST', '/pg/orders', {
    order_id: order.id,
    order_amount: amount.toNumber(),
    order_currency: CURRENCY,
    customer_details: { customer_id: 'asha', customer_phone: PRE_APPROVED_PHONE, customer_name: 'Asha Rao' },
    order_splits: order.splits.map((s) => ({ vendor_id: s.vendorId, amount: new Decimal(s.amount).toNumber() })),
    order_meta: { notify_url: notifyUrl },
  });
  const session = await marketplace.gateway('POST', '/pg/orders/sessions', {
    payment_session_id: created.body.payment_session_id,
    payment_method: order.checkout.paymentMethod,
  });
  const { action, data, cf_payment_id: paymentId } = session.body as { action: string; data: { url: string }; cf_payment_id: number };
  let outcome: { payment_status?: string; authenticate_status?: string };
  if (action === 'post') {
    outcome = (await marketplace.gateway('POST', new URL(data.url).pathname, { action: 'SUBMIT_OTP', otp: OTP })).body;
    if (outcome.authenticate_status !== 'SUCCESS') throw new Error(`OTP of payment ${paymentId} was not accepted: ${JSON.stringify(outcome)}`);
  } else {
    // The customer approves on the bank's, UPI app's or provider's page.
    outcome = (await marketplace.gateway('POST', new URL(data.url).pathname, { outcome: 'approve' }, {})).body;
    if (outcome.payment_status !== 'SUCCESS') throw new Error(`payment ${paymentId} did not succeed: ${JSON.stringify(outcome)}`);
  }
}

/** Plays the week on a running embedded default and reads back what Holdback and the gateway did. Prints nothing. */
export async function playMarketplaceWeek(runtime: LocalRuntime, opts: DemoOptions = {}): Promise<DemoResult> {
  const marketplace = new Marketplace(runtime);
  const backend = await startMarketplaceBackend(runtime, marketplace);
  const start = DateTime.fromISO(DEMO_START);
  const end = india(WEEK_END);
  const hours = Math.ceil(end.diff(start).as('hours'));
  // Settings, vendors, policies, the orders and finance's look ahead; at the end the read back and the look back.
  const setupSteps = 4 + DEMO_ORDERS.length;
  const total = setupSteps + hours + 2;
  let done = 0;
  const step = (phase: string): void => { done += 1; opts.onProgress?.(Math.min(done, total), total, phase); };
  const now = (): string => shown(runtime.clock.now());
  /** Moves the shared clock forward to `at` (never back), firing what falls due on the way, and waits for quiet. */
  const moveTo = async (at: DateTime): Promise<void> => {
    if (at.toMillis() > runtime.clock.nowMs()) await runtime.clock.set(at.toJSDate());
    await runtime.idle();
  };

  try {
    // Finance configures the gateway dashboard and Holdback alike, then sets each vendor's policy.
    await marketplace.control('PUT', '/_sandbox/merchant', { deferByDays: DEFER_BY_DAYS });
    await marketplace.control('PUT', '/_sandbox/pre-approved-phones', { phones: [PRE_APPROVED_PHONE] });
    await marketplace.api('PUT', '/settings', { deferByDays: DEFER_BY_DAYS, actor: 'finance@marketplace.example', reason: 'mirror of the dashboard Defer by Days' });
    step('settings');
    for (const vendor of DEMO_VENDORS) {
      await marketplace.gateway('POST', '/pg/easy-split/vendors', {
        vendor_id: vendor.id, name: vendor.id, email: `${vendor.id}@vendors.example`, phone: '9999999999',
        schedule_option: vendor.scheduleOption, status: 'ACTIVE',
      });
    }
    step('vendors at the gateway');
    for (const vendor of DEMO_VENDORS) {
      await marketplace.api('PUT', `/vendors/${encodeURIComponent(vendor.id)}/policy`, {
        scheduleOption: vendor.scheduleOption, release: vendor.release, actor: 'finance@marketplace.example', reason: `demo week: ${ruleText(vendor.release)}`,
      });
    }
    step('vendor policies');

    // From here on, a fifth of the gateway's answers are injected faults.
    await marketplace.control('POST', '/_sandbox/faults', FAULTS);
    for (const order of DEMO_ORDERS) {
      const notifyUrl = order.reportedBy === 'gateway webhook' ? `${runtime.api.url}/webhooks/gateway` : backend.url;
      await checkout(marketplace, order, notifyUrl);
      await runtime.idle();
      await moveTo(runtime.clock.now().plus({ minutes: 5 }));
      step(`${order.id} paid by ${order.checkout.method}`);
    }
    const ahead = await lookAhead(marketplace, now());
    step('finance looks ahead');

    const pending = [...WEEK];
    let disputeState = '';
    let news = '';
    const stamps: Record<string, string> = {};
    let cursor = runtime.clock.now();
    while (cursor < end) {
      const next = DateTime.min(cursor.plus({ hours: 1 }), end);
      // Each event of the week happens at its own time: the clock stops there, then goes on.
      while (pending.length && india(pending[0].at) <= next) {
        const event = pending.shift()!;
        await moveTo(india(event.at));
        stamps[event.detailType] = now();
        await happen(marketplace, event, now());
        news = 'orderId' in event ? `${event.detailType} ${event.orderId}` : event.detailType;
        await runtime.idle();
        if (event.detailType === 'order.dispute_opened') disputeState = (await releaseOf(marketplace, DISPUTED.orderId, DISPUTED.vendorId)).state;
      }
      await moveTo(next);
      cursor = next;
      step(`${cursor.setZone(ZONE).toFormat('ccc d LLL HH:mm')}${news ? `  (${news})` : ''}`);
      news = '';
    }

    const { rows, summary } = await readBack(marketplace);
    step('read back');
    const back = await lookBack(marketplace);
    step('finance and audit look back');
    return {
      finance: { ...ahead, ...back },
      rows,
      summary: { ...summary, heldByDispute: disputeState === 'HELD' ? 1 : 0 },
      dispute: { openedAt: stamps['order.dispute_opened'], closedAt: stamps['order.dispute_closed'], stateWhileOpen: disputeState },
      cancelledAt: stamps['order.cancelled'],
    };
  } finally {
    marketplace.events.destroy();
    await new Promise<void>((resolve) => { backend.server.close(() => resolve()); backend.server.closeAllConnections(); });
  }
}

async function happen(marketplace: Marketplace, event: WeekEvent, at: string): Promise<void> {
  switch (event.detailType) {
    case 'faults.cleared':
      await marketplace.control('DELETE', '/_sandbox/faults');
      return;
    case 'order.delivered':
      return marketplace.publish(event.detailType, { orderId: event.orderId, deliveredAt: at });
    case 'order.dispute_opened':
      return marketplace.publish(event.detailType, { orderId: event.orderId, openedAt: at, vendorIds: event.vendorIds });
    case 'order.dispute_closed':
      return marketplace.publish(event.detailType, { orderId: event.orderId, closedAt: at, resolution: event.resolution, vendorIds: event.vendorIds });
    case 'order.cancelled':
      return marketplace.publish(event.detailType, { orderId: event.orderId, cancelledAt: at, vendorIds: event.vendorIds });
  }
}

interface ReleaseView {
  vendorId: string;
  state: string;
  amount: string;
  targetEligibility: string | null;
  appliedEligibility: string | null;
  predictedSettlement: string | null;
  attempts: { status: string }[];
}

async function releaseOf(marketplace: Marketplace, orderId: string, vendorId: string): Promise<ReleaseView> {
  const order = await marketplace.api('GET', `/orders/${encodeURIComponent(orderId)}`);
  const release = (order.vendors as ReleaseView[]).find((v) => v.vendorId === vendorId);
  if (!release) throw new Error(`Holdback has no release of ${vendorId} in ${orderId}`);
  return release;
}

function sameInstant(a: string | null, b: string | null): DemoRow['match'] {
  if (!a || !b) return '-';
  return DateTime.fromISO(a).toMillis() === DateTime.fromISO(b).toMillis() ? 'yes' : 'no';
}

/** Holdback's view of every order next to the gateway's recon of it, and the week's counts. */
async function readBack(marketplace: Marketplace): Promise<{ rows: DemoRow[]; summary: Omit<DemoSummary, 'heldByDispute'> }> {
  const rows: DemoRow[] = [];
  let holdbackRetries = 0;
  for (const order of DEMO_ORDERS) {
    const view = await marketplace.api('GET', `/orders/${encodeURIComponent(order.id)}`);
    const recon = (await marketplace.gateway('GET', `/pg/easy-split/orders/${encodeURIComponent(order.id)}`)).body as {
      vendors: { vendor_id: string; settled_at: string | null }[];
    };
    for (const release of view.vendors as ReleaseView[]) {
      const vendor = vendorOf(release.vendorId);
      const settledAt = recon.vendors.find((v) => v.vendor_id === release.vendorId)?.settled_at ?? null;
      holdbackRetries += release.attempts.filter((a) => a.status !== 'OK').length;
      rows.push({
        vendor: vendor.id,
        rule: ruleText(vendor.release),
        scheduleOption: vendor.scheduleOption,
        order: order.id,
        state: release.state,
        target: release.targetEligibility,
        applied: release.appliedEligibility,
        predicted: release.predictedSettlement,
        actual: settledAt,
        match: sameInstant(release.predictedSettlement, settledAt),
      });
    }
  }
  rows.sort((a, b) => a.vendor.localeCompare(b.vendor) || a.order.localeCompare(b.order));

  const stats = await marketplace.control('GET', '/_sandbox/stats') as { faultsInjected: Record<string, number> };
  const hooks = await marketplace.control('GET', '/_sandbox/webhooks') as { deliveries: { attempts: number }[] };
  const count = (test: (row: DemoRow) => boolean): number => rows.filter(test).length;
  return {
    rows,
    summary: {
      releases: rows.length,
      applied: count((r) => r.applied !== null),
      settled: count((r) => r.actual !== null),
      cancelled: count((r) => r.state === 'CANCELLED'),
      atMax: count((r) => r.rule === 'at_max'),
      failed: count((r) => r.state === 'FAILED'),
      faultsInjected: Object.values(stats.faultsInjected).reduce((a, b) => a + b, 0),
      holdbackRetries,
      webhookRedeliveries: hooks.deliveries.filter((d) => d.attempts > 1).length,
      marketplaceRetries: marketplace.retries,
      predictedMatches: count((r) => r.match === 'yes'),
      predictedMismatches: count((r) => r.match === 'no'),
    },
  };
}

/**
 * Finance on Friday evening, the orders paid and nothing settled yet: what a faster release for one vendor would move
 * (a preview changes nothing), and the money the gateway will settle per day.
 */
async function lookAhead(marketplace: Marketplace, at: string): Promise<Omit<FinanceStory, 'accuracy' | 'verification'>> {
  const vendorPath = `/vendors/${encodeURIComponent(PREVIEWED.vendorId)}/policy`;
  const policy = await marketplace.api('GET', vendorPath) as { release: ReleaseRule };
  const preview = await marketplace.api('POST', `${vendorPath}/preview`, {
    ...PREVIEWED.candidate, applyTo: 'open_orders', actor: 'finance@marketplace.example', reason: 'demo: would a faster release help this vendor?',
  }) as PolicyPreviewAnswer;
  const forecast = await marketplace.api('GET', `/forecast?from=${FORECAST_RANGE.from}&to=${FORECAST_RANGE.to}`);
  const openAtForecast: OpenRelease[] = [];
  for (const order of DEMO_ORDERS) {
    const view = await marketplace.api('GET', `/orders/${encodeURIComponent(order.id)}`);
    for (const r of view.vendors as ReleaseView[]) {
      openAtForecast.push({
        orderId: order.id, vendorId: r.vendorId, state: r.state, amount: r.amount, targetEligibility: r.targetEligibility, predictedSettlement: r.predictedSettlement,
      });
    }
  }
  return { lookedAheadAt: at, preview, previewFrom: ruleText(policy.release), forecast, openAtForecast };
}

/** At the week's end: how the gateway's settlements compared with the predictions, and whether the audit log holds. */
async function lookBack(marketplace: Marketplace): Promise<Pick<FinanceStory, 'accuracy' | 'verification'>> {
  const accuracy = await marketplace.api('GET', `/reports/prediction-accuracy?from=${FORECAST_RANGE.from}&to=${india(WEEK_END).toISODate()}`);
  const verification = await marketplace.api('GET', '/audit/verify') as AuditVerification;
  return { accuracy, verification };
}

/** Times as India wall clock, short: "Mon 05 Dec 16:05". */
function brief(iso: string | null): string {
  return iso ? DateTime.fromISO(iso, { setZone: true }).setZone(ZONE).toFormat('ccc dd LLL HH:mm') : '-';
}

/** A hand-aligned table: the header, a rule under it, then one line per row. */
function alignedLines(header: string[], cells: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]): string => c.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
}

/** The table of the week, one row per vendor and order, a blank line between vendors. */
export function formatTable(rows: DemoRow[]): string {
  const header = ['vendor', 'rule', 'opt', 'order', 'state', 'target', 'applied eligibility', 'predicted settlement', 'actual settlement', 'match'];
  const cells = rows.map((r) => [r.vendor, r.rule, String(r.scheduleOption), r.order, r.state, brief(r.target), brief(r.applied), brief(r.predicted), brief(r.actual), r.match]);
  const lines = alignedLines(header, cells);
  const out = lines.slice(0, 2);
  cells.forEach((c, i) => {
    if (i > 0 && c[0] !== cells[i - 1][0]) out.push('');
    out.push(lines[i + 2]);
  });
  return out.join('\n');
}

const indent = (lines: string[]): string => lines.map((l) => `  ${l}`.trimEnd()).join('\n');

/** Finance's and the auditor's views, each a small table saying its units and time zone. */
export function formatFinance(story: FinanceStory): string {
  const { preview, forecast, accuracy, verification } = story;
  const releases = preview.releases.map((r) => [
    r.orderId, r.state, `${r.amount} ${CURRENCY}`, brief(r.current.targetEligibility), brief(r.candidate.targetEligibility),
    brief(r.current.predictedSettlement), brief(r.candidate.predictedSettlement), r.moves ? 'yes' : 'no',
  ]);
  const perDay = preview.perDay.map((d) => [d.date, d.currency, String(d.current.count), d.current.amount, String(d.candidate.count), d.candidate.amount]);
  const days = forecast.days.filter((d) => d.firm.count + d.projected.count > 0)
    .map((d) => [d.date, d.currency, String(d.firm.count), d.firm.amount, String(d.projected.count), d.projected.amount]);
  const options = accuracy.scheduleOptions.map((a) => [String(a.scheduleOption), String(a.settled), String(a.asPredicted), String(a.maxDifferenceMinutes), String(a.unpredicted)]);
  const broken = verification.firstBroken ? `${verification.firstBroken.stream} #${verification.firstBroken.sequence}: ${verification.firstBroken.reason}` : 'none';
  const rule = `${ruleText(PREVIEWED.candidate.release)} on schedule option ${PREVIEWED.candidate.scheduleOption}`;
  return [
    `Finance looks ahead on ${brief(story.lookedAheadAt)} (India time), the week's orders paid:`,
    '',
    `Policy preview for ${preview.vendorId}: ${story.previewFrom} (version ${preview.fromVersion}) -> ${rule}, applied to open orders; nothing changed.`,
    `${preview.moved} of ${preview.covered} unsent releases would move (times India time):`,
    indent(alignedLines(['order', 'state', 'amount', 'current target', 'candidate target', 'current settlement', 'candidate settlement', 'moves'], releases)),
    `Per India-time day of predicted settlement (amounts in ${CURRENCY}):`,
    indent(alignedLines(['date', 'currency', 'current count', 'current amount', 'candidate count', 'candidate amount'], perDay)),
    '',
    `Forecast ${forecast.from} to ${forecast.to}, per India-time day of predicted settlement (firm: applied at the gateway; `
      + 'projected: not sent yet; days with nothing left out):',
    indent(alignedLines(['date', 'currency', 'firm count', 'firm amount', 'projected count', 'projected amount'], days)),
    '',
    `Prediction accuracy at the week's end, settlements ${FORECAST_RANGE.from} to ${india(WEEK_END).toISODate()} (India time), per gateway schedule option:`,
    indent(alignedLines(['schedule option', 'settled', 'as predicted', 'largest difference (minutes)', 'not predicted before settling'], options)),
    '',
    'Audit log verification (GET /audit/verify: hash chains and signed checkpoints):',
    indent(alignedLines(['ok', 'records', 'streams', 'checkpoints', 'first broken link'],
      [[String(verification.ok), String(verification.records), String(verification.streams), String(verification.checkpoints), broken]])),
  ].join('\n');
}

/** Which checkout paid each order, and who told Holdback about it. */
function formatOrders(): string {
  return DEMO_ORDERS.map((o) => `  ${o.id}  paid by ${o.checkout.method.padEnd(20)}  reported by ${o.reportedBy.padEnd(17)}  `
    + `split ${o.splits.map((s) => `${s.vendorId} ${s.amount}`).join(', ')}`).join('\n');
}

function summaryLine(s: DemoSummary): string {
  return `${s.releases} releases: ${s.applied} applied, ${s.settled} settled (${s.predictedMatches} exactly as predicted, ${s.predictedMismatches} not), `
    + `${s.heldByDispute} held by a dispute, ${s.cancelled} cancelled, ${s.atMax} at max, ${s.failed} failed; `
    + `${s.faultsInjected} gateway faults injected, ${s.holdbackRetries} eligibility retries by Holdback, `
    + `${s.webhookRedeliveries} webhook redeliveries, ${s.marketplaceRetries} marketplace retries.`;
}

/** Starts the embedded default on free ports with the clock frozen at the demo's start. */
export function startDemoRuntime(): Promise<LocalRuntime> {
  return startLocal({
    apiPort: 0, edgePort: 0, sandboxPort: 0, clockStart: new Date(DEMO_START), frozen: true, gatewayTimeoutMs: GATEWAY_TIMEOUT_MS,
  });
}

export async function runDemo(): Promise<void> {
  const began = Date.now();
  const runtime = await startDemoRuntime();
  const bar = new SingleBar({
    stream: process.stderr,
    format: 'marketplace week [{bar}] {percentage}% | {phase}',
    hideCursor: true,
    clearOnComplete: false,
  });
  bar.start(1, 0, { phase: 'starting' });
  try {
    const result = await playMarketplaceWeek(runtime, {
      onProgress: (done, total, phase) => { bar.setTotal(total); bar.update(done, { phase }); },
    });
    bar.stop();
    console.log(`\nHoldback demo week from ${brief(DEMO_START)} to ${brief(shown(runtime.clock.now()))} (India time), Defer by Days ${DEFER_BY_DAYS}, `
      + `${FAULTS.rate * 100}% gateway faults until ${brief(shown(india(FAULTS_CLEARED_AT)))}\n`);
    console.log(`${formatOrders()}\n`);
    console.log(formatTable(result.rows));
    console.log(`\n${summaryLine(result.summary)}\n`);
    console.log(formatFinance(result.finance));
    console.log(`\n(${((Date.now() - began) / 1000).toFixed(1)} s)`);
  } finally {
    bar.stop();
    await runtime.close();
  }
}
