/**
 * `npm start -- --demo`: a marketplace fortnight played into the data folder through the public interfaces, so that
 * every console page and CLI command has something to show at once. The marketplace creates and pays its orders at
 * the gateway sandbox, sends `order.*` events on the local bus with the AWS SDK, finance sets policies (one CSV
 * import), settings, a hold and manual releases through Holdback's API, and the shared clock moves through
 * `POST /_local/clock`. A bank holiday listed in Holdback's settings by mistake makes one settlement differ from its
 * prediction.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';

/** A Monday morning, India time: the fortnight runs from here to the Monday two weeks later. */
export const FORTNIGHT_START = '2022-11-21T09:00:00+05:30';
const ZONE = 'Asia/Kolkata';
const FINANCE = 'finance@marketplace.example';
const RISK = 'risk@marketplace.example';
const DAYS = 14;

/** What the fortnight needs of a running embedded default: its three addresses, its gateway keys, and a way to wait for quiet. */
export interface DemoStack {
  apiUrl: string;
  edgeUrl: string;
  sandboxUrl: string;
  gateway: { clientId: string; clientSecret: string };
  /** Resolves once everything that was sent has been handled (events delivered, schedules fired, webhooks sent). */
  idle: () => Promise<void>;
}

interface FortnightVendor {
  id: string;
  name: string;
  scheduleOption: number;
  /** How finance sets its policy: by the API, by the CSV import, or not at all (released at max eligibility). */
  policy: 'api' | 'import' | 'none';
  release?: { kind: string; delay?: string };
}

export const FORTNIGHT_VENDORS: FortnightVendor[] = [
  { id: 'v-books', name: 'Paper Lane Books', scheduleOption: 1, policy: 'api', release: { kind: 'immediate' } },
  { id: 'v-fashion', name: 'Loom & Thread', scheduleOption: 8, policy: 'api', release: { kind: 'after_delivery', delay: 'P2D' } },
  { id: 'v-electronics', name: 'Circuit Bazaar', scheduleOption: 3, policy: 'api', release: { kind: 'after_payment', delay: 'P3D' } },
  { id: 'v-grocery', name: 'Daily Basket', scheduleOption: 1, policy: 'none' },
  { id: 'v-home', name: 'Hearth Home', scheduleOption: 11, policy: 'import', release: { kind: 'after_delivery', delay: 'P1D' } },
  { id: 'v-toys', name: 'Kite & Top Toys', scheduleOption: 13, policy: 'import', release: { kind: 'after_payment', delay: 'P2D' } },
];

/** Amounts in rupees, cycled through so that every order differs a little. */
const AMOUNTS = ['1250.00', '499.00', '3899.50', '780.00', '15600.00', '2240.00', '649.00', '9999.00', '1375.25', '560.00'];
/** Which vendors share an order, cycled through. */
const BASKETS = [
  ['v-books', 'v-fashion'], ['v-electronics', 'v-grocery'], ['v-home', 'v-toys', 'v-books'], ['v-fashion', 'v-electronics'],
  ['v-grocery', 'v-home'], ['v-toys', 'v-fashion'], ['v-books', 'v-electronics', 'v-grocery'],
];

export interface FortnightOrder {
  id: string;
  /** Day of the fortnight (0 = the first Monday) and India wall-clock hour of the payment. */
  day: number;
  hour: number;
  splits: { vendorId: string; amount: string }[];
}

/** Two orders on weekdays, one on weekend days: 24 orders, 60 vendor splits. */
export function fortnightOrders(): FortnightOrder[] {
  const orders: FortnightOrder[] = [];
  let n = 0;
  for (let day = 0; day < DAYS; day++) {
    const weekend = day % 7 >= 5;
    for (const hour of weekend ? [13] : [10, 16]) {
      const basket = BASKETS[n % BASKETS.length];
      orders.push({
        id: `fn-order-${String(1001 + n)}`,
        day,
        hour,
        splits: basket.map((vendorId, i) => ({ vendorId, amount: AMOUNTS[(n + i * 3) % AMOUNTS.length] })),
      });
      n += 1;
    }
  }
  return orders;
}

/** The fortnight's notable moments, each named so the console's pages can be checked against them. */
export const FORTNIGHT_STORY = {
  cancelled: { orderId: 'fn-order-1005', vendorIds: ['v-home'] },
  /** Opened after delivery, before the release: held by the dispute to the end. */
  disputeOpen: { orderId: 'fn-order-1015', vendorIds: ['v-fashion'] },
  /** Opened and closed in the merchant's favour: released after. */
  disputeClosed: { orderId: 'fn-order-1004', vendorIds: ['v-fashion'] },
  heldVendor: { vendorId: 'v-toys', reason: 'KYC documents expired: compliance review' },
  manualReleases: [{ orderId: 'fn-order-1002', vendorId: 'v-grocery' }, { orderId: 'fn-order-1009', vendorId: 'v-grocery' }],
  policyChanged: { vendorId: 'v-electronics', release: { kind: 'after_payment', delay: 'P2D' } },
  rejectedOrderId: 'fn-order-9999',
};

export interface FortnightResult {
  orders: number;
  releases: number;
  settled: number;
  /** The release Holdback predicted under a bank holiday the gateway does not observe: settled a day earlier than predicted. */
  mismatch: { orderId: string; vendorId: string; holiday: string } | null;
  end: string;
}

const india = (day: number, hour: number, minute = 0): DateTime =>
  DateTime.fromISO(FORTNIGHT_START, { zone: ZONE }).startOf('day').plus({ days: day, hours: hour, minutes: minute });

async function http(url: string, method: string, body?: unknown, headers: Record<string, string> = {}, type = 'application/json'): Promise<any> {
  const response = await fetch(url, {
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': type }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`demo: ${method} ${new URL(url).pathname} answered ${response.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Plays the fortnight on a running embedded default whose clock stands at (or before) FORTNIGHT_START. `progress` is
 * called at each step with a line to print. Deterministic: the same stack state and the same story every time.
 */
export async function playFortnight(stack: DemoStack, progress: (done: number, total: number, what: string) => void = () => undefined): Promise<FortnightResult> {
  const gw = { 'x-client-id': stack.gateway.clientId, 'x-client-secret': stack.gateway.clientSecret, 'x-api-version': '2022-09-01' };
  const api = (method: string, path: string, body?: unknown) => http(stack.apiUrl + path, method, body);
  const sandbox = (method: string, path: string, body?: unknown) => http(stack.sandboxUrl + path, method, body, path.startsWith('/pg') ? gw : {});
  const events = new EventBridgeClient({
    endpoint: stack.edgeUrl, region: 'us-east-1', credentials: { accessKeyId: 'demo', secretAccessKey: 'demo' },
  });
  const publish = async (detailType: string, detail: object): Promise<void> => {
    const out = await events.send(new PutEventsCommand({
      Entries: [{ Source: 'marketplace.orders', DetailType: detailType, Detail: JSON.stringify(detail) }],
    }));
    if (out.FailedEntryCount) throw new Error(`demo: PutEvents refused ${detailType}: ${JSON.stringify(out.Entries)}`);
  };
  const clockNow = async (): Promise<string> => (await http(`${stack.edgeUrl}/_local/clock`, 'GET')).now as string;
  const moveTo = async (at: DateTime): Promise<void> => {
    if (at.toMillis() > Date.parse(await clockNow())) await http(`${stack.edgeUrl}/_local/clock`, 'POST', { now: at.toISO() });
    await stack.idle();
  };
  const orders = fortnightOrders();
  const story = FORTNIGHT_STORY;
  const total = 3 + DAYS;
  let done = 0;
  const step = (what: string) => progress(++done, total, what);

  try {
    await moveTo(DateTime.fromISO(FORTNIGHT_START));
    // Finance mirrors the gateway dashboard's Defer by Days (the sandbox's default, 15) and the release lead.
    await api('PUT', '/settings', { deferByDays: 15, actor: FINANCE, reason: 'mirror of the gateway dashboard: Defer by Days 15' });
    for (const v of FORTNIGHT_VENDORS) {
      await sandbox('POST', '/pg/easy-split/vendors', {
        vendor_id: v.id, name: v.name, email: `${v.id}@vendors.example`, phone: '9999999999', schedule_option: v.scheduleOption, status: 'ACTIVE',
      });
    }
    step('settings and the vendors at the gateway');
    for (const v of FORTNIGHT_VENDORS.filter((x) => x.policy === 'api')) {
      await api('PUT', `/vendors/${encodeURIComponent(v.id)}/policy`, {
        scheduleOption: v.scheduleOption, release: v.release, actor: FINANCE, reason: `onboarding terms of ${v.name}`,
      });
    }
    const csv = ['vendorId,scheduleOption,release,delay,reason',
      ...FORTNIGHT_VENDORS.filter((x) => x.policy === 'import').map((v) => `${v.id},${v.scheduleOption},${v.release!.kind},${v.release!.delay ?? ''},onboarding terms (CSV import)`)].join('\n');
    const imported = await http(`${stack.apiUrl}/policies/import?dryRun=false&actor=${encodeURIComponent(FINANCE)}`, 'POST', csv, {}, 'text/csv');
    if (imported?.errors?.length) throw new Error(`demo: the policy import found errors: ${JSON.stringify(imported.errors)}`);
    step('vendor policies (three by the API, two by a CSV import)');

    // Set inside the day's moments (closures): typed wide, so that the result is not narrowed to null.
    let mismatch = null as FortnightResult['mismatch'];
    for (let day = 0; day < DAYS; day++) {
      const what: string[] = [];
      // Moments of the day in time order: payments, deliveries two days after, and the story's own events.
      const moments: Array<{ at: DateTime; run: () => Promise<void> }> = [];
      for (const order of orders.filter((o) => o.day === day)) {
        moments.push({ at: india(day, order.hour), run: async () => {
          const amount = order.splits.reduce((sum, s) => sum.plus(s.amount), new Decimal(0));
          await sandbox('POST', '/pg/orders', {
            order_id: order.id, order_amount: amount.toNumber(), order_currency: 'INR',
            customer_details: { customer_id: `c-${order.id}`, customer_phone: '9876500001', customer_name: 'Asha Rao' },
            order_splits: order.splits.map((s) => ({ vendor_id: s.vendorId, amount: new Decimal(s.amount).toNumber() })),
          });
          const paidAt = await clockNow();
          await sandbox('POST', `/_sandbox/orders/${encodeURIComponent(order.id)}/pay`, { payment_time: paidAt });
          await publish('order.paid', { orderId: order.id, transactionTime: paidAt, vendors: order.splits, currency: 'INR' });
          what.push(`${order.id} paid`);
        } });
      }
      for (const order of orders.filter((o) => o.day === day - 2 && o.id !== story.cancelled.orderId)) {
        moments.push({ at: india(day, 12, order.hour), run: async () => {
          await publish('order.delivered', { orderId: order.id, deliveredAt: await clockNow() });
          what.push(`${order.id} delivered`);
        } });
      }
      const at = (d: number, hour: number, run: () => Promise<void>) => { if (d === day) moments.push({ at: india(d, hour), run }); };
      at(2, 18, async () => {
        await publish('order.cancelled', { orderId: story.cancelled.orderId, cancelledAt: await clockNow(), vendorIds: story.cancelled.vendorIds });
        what.push(`${story.cancelled.orderId} cancelled for ${story.cancelled.vendorIds.join(', ')}`);
      });
      at(2, 13, async () => {
        await publish('order.dispute_opened', { orderId: story.disputeClosed.orderId, openedAt: await clockNow(), vendorIds: story.disputeClosed.vendorIds });
        what.push(`dispute opened on ${story.disputeClosed.orderId}`);
      });
      at(4, 11, async () => {
        await publish('order.dispute_closed', { orderId: story.disputeClosed.orderId, closedAt: await clockNow(), resolution: 'merchant_won', vendorIds: story.disputeClosed.vendorIds });
        what.push(`dispute closed on ${story.disputeClosed.orderId} (merchant won)`);
      });
      at(3, 15, async () => {
        await api('POST', `/orders/${story.manualReleases[0].orderId}/vendors/${story.manualReleases[0].vendorId}/release`, {
          actor: FINANCE, reason: 'Daily Basket asked for working capital before Diwali stock',
        });
        what.push(`manual release of ${story.manualReleases[0].vendorId} in ${story.manualReleases[0].orderId}`);
      });
      at(5, 17, async () => {
        await publish('order.delivered', { orderId: story.rejectedOrderId, deliveredAt: 'yesterday evening' });
        what.push('a malformed order.delivered (rejected)');
      });
      at(6, 10, async () => {
        await api('PUT', `/vendors/${story.policyChanged.vendorId}/policy`, {
          scheduleOption: 3, release: story.policyChanged.release, applyTo: 'open_orders', actor: FINANCE, reason: 'a year without a dispute: two days after payment',
        });
        what.push(`${story.policyChanged.vendorId}'s policy changed for its open orders`);
      });
      at(7, 11, async () => {
        // Finance lists a bank holiday the gateway does not observe, on the day this release settles, and takes it out
        // again once the release is sent: Holdback predicts it a working day late, the gateway settles it on the day
        // (the one settlement mismatch: the outcomes, the CSV and the accuracy page show it).
        const { orderId, vendorId } = story.manualReleases[1];
        const { settlementAt } = await api('POST', '/predictions', { eligibility: india(7, 11, 1).toISO(), scheduleOption: 1 });
        const day = DateTime.fromISO(settlementAt as string).setZone(ZONE).toISODate()!;
        await api('PUT', '/settings', { deferByDays: 15, holidays: [day], actor: FINANCE, reason: `bank holiday ${day} (listed by mistake: the gateway does not observe it)` });
        await api('POST', `/orders/${orderId}/vendors/${vendorId}/release`, { actor: FINANCE, reason: 'settlement dispute with the vendor resolved: pay now' });
        await stack.idle();
        await api('PUT', '/settings', { deferByDays: 15, holidays: [], actor: FINANCE, reason: `bank holiday ${day} removed: the gateway settles that day` });
        mismatch = { orderId, vendorId, holiday: day };
        what.push(`manual release of ${vendorId} in ${orderId}, predicted under a bank holiday (${day}) the gateway does not observe`);
      });
      at(9, 16, async () => {
        await api('POST', `/vendors/${story.heldVendor.vendorId}/hold`, { actor: RISK, reason: story.heldVendor.reason });
        what.push(`${story.heldVendor.vendorId} held`);
      });
      at(10, 12, async () => {
        await publish('order.dispute_opened', { orderId: story.disputeOpen.orderId, openedAt: await clockNow(), vendorIds: story.disputeOpen.vendorIds });
        what.push(`dispute opened on ${story.disputeOpen.orderId}`);
      });
      at(11, 9, async () => {
        await api('PUT', '/settings', { deferByDays: 15, holidays: [], actor: FINANCE, reason: 'quarterly review of the mirrored dashboard settings' });
        what.push('settings reviewed');
      });
      moments.sort((a, b) => a.at.toMillis() - b.at.toMillis());
      for (const moment of moments) {
        await moveTo(moment.at);
        await moment.run();
        await stack.idle();
      }
      await moveTo(india(day + 1, 0));
      step(`${india(day, 0).toFormat('ccc d LLL')}: ${what.length ? what.join('; ') : 'a quiet day'}`);
    }
    await moveTo(DateTime.fromISO(FORTNIGHT_START).plus({ days: DAYS, hours: 1 }));
    const settlements = ((await sandbox('GET', '/_sandbox/settlements')).settlements as Array<{ status: string }>);
    step('the fortnight is played');
    return {
      orders: orders.length,
      releases: orders.reduce((n, o) => n + o.splits.length, 0),
      settled: settlements.filter((s) => s.status === 'SETTLED').length,
      mismatch,
      end: await clockNow(),
    };
  } finally {
    events.destroy();
  }
}

/** Written into the data folder once the fortnight is played: a second `--demo` on it starts without playing again. */
export const DEMO_MARKER = 'demo-fortnight.json';

export class DemoFolderNotEmpty extends Error {
  readonly code = 'demo_folder_not_empty';
}

/**
 * What `start --demo` does with a data folder: play the fortnight into an empty one (the clock starts at the
 * fortnight's first morning), start as usual on one that already holds it, and refuse one that holds other state
 * (the demo never mixes its orders with someone's own).
 */
export function demoPlan(folder: { root: string; clock: string }, fresh: boolean): 'play' | 'already played' {
  if (fresh || !existsSync(folder.clock)) return 'play';
  if (existsSync(join(folder.root, DEMO_MARKER))) return 'already played';
  throw new DemoFolderNotEmpty(
    `--demo: the data folder ${folder.root} already holds state of its own; add --fresh to empty it first, or --data <another folder>`,
  );
}

/** The summary `npm start -- --demo` prints under the addresses: where to look first. */
function demoSummary(result: FortnightResult, apiUrl: string): string {
  const mismatch = result.mismatch
    ? ` One settlement differs from its prediction: ${result.mismatch.orderId} for ${result.mismatch.vendorId}, predicted under a bank holiday (${result.mismatch.holiday}) the gateway does not observe.`
    : '';
  return `Demo: a marketplace fortnight is in the data folder: ${result.orders} orders, ${result.releases} vendor releases, ${result.settled} settled by the gateway, `
    + `a held vendor (${FORTNIGHT_STORY.heldVendor.vendorId}), an open dispute, a cancellation, two manual releases, a CSV import and a rejected event.${mismatch}\n`
    + `Open ${apiUrl}/console, or try: npx holdback vendors --api-url ${apiUrl} ; npx holdback outcomes --api-url ${apiUrl}`;
}

/**
 * The `prepare` step of `start --demo`: plays the fortnight (or says it is there already) and writes the marker. Each
 * step is one line on stdout, on a terminal or not, so that a log or CI output shows the progress too.
 */
export function demoPrepare(plan: 'play' | 'already played', write: (line: string) => void = (line) => { process.stdout.write(`${line}\n`); }) {
  return async (runtime: { api: { url: string }; edge: { url: string }; sandbox: { url: string; context: { config: { clientId: string; clientSecret: string } } }; idle: () => Promise<void>; dataFolder?: { root: string } | null }): Promise<string> => {
    if (plan === 'already played') return `Demo: the fortnight was played into this data folder before; it carries on from where it stopped. Open ${runtime.api.url}/console`;
    const began = Date.now();
    write(`Demo: playing a marketplace fortnight (${FORTNIGHT_START.slice(0, 10)} onwards, India time) into the data folder through the API, the local bus and the gateway sandbox...`);
    const { clientId, clientSecret } = runtime.sandbox.context.config;
    const result = await playFortnight(
      { apiUrl: runtime.api.url, edgeUrl: runtime.edge.url, sandboxUrl: runtime.sandbox.url, gateway: { clientId, clientSecret }, idle: () => runtime.idle() },
      (done, total, what) => write(`  [${String(done).padStart(2)}/${total}] ${what}`),
    );
    if (runtime.dataFolder) writeFileSync(join(runtime.dataFolder.root, DEMO_MARKER), `${JSON.stringify({ ...result, playedIn: `${((Date.now() - began) / 1000).toFixed(1)} s` })}\n`);
    write(`Demo: done in ${((Date.now() - began) / 1000).toFixed(1)} s; the clock stands at ${result.end}.`);
    return demoSummary(result, runtime.api.url);
  };
}
