/**
 * Acknowledged means kept until done (issue 15), with real processes: `holdback start` on a data folder gets
 * `order.paid` events through @aws-sdk/client-eventbridge from the first moment its edge answers, and payments at its
 * gateway sandbox from the first moment the sandbox answers, while it is killed with SIGKILL again and again (during
 * its start-up too) and started again. In the end every acknowledged order is at Holdback (GET /orders/{id}), or
 * listed with a reason in GET /rejected-events: zero lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from '../../sandbox/app';
import { launchHoldback, pollUntil, type LaunchedHoldback } from './holdback-process';

// Generous for a loaded machine; on an idle one the event test takes well under a minute.
jest.setTimeout(240_000);

const T0 = '2022-12-02T16:05:00+05:30';
const GATEWAY = { 'content-type': 'application/json', 'x-api-version': '2022-09-01', 'x-client-id': DEFAULT_CLIENT_ID, 'x-client-secret': DEFAULT_CLIENT_SECRET };
const VENDOR = 'vendor-kills';

const folders: string[] = [];
const running: LaunchedHoldback[] = [];

afterEach(async () => {
  for (const holdback of running.splice(0)) await holdback.killHard();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A port free right now (the same ports serve every start, so that clients find the restarted process). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the API is up and ready (GET /health answers 200; while starting it answers 503). */
async function healthy(api: string): Promise<boolean> {
  try {
    return (await fetch(`${api}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}

/** Whether the address answers HTTP at all right now (any status). */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

/** One Holdback on fixed ports and one data folder, killed and started again on demand. */
async function killableHoldback() {
  const data = mkdtempSync(join(tmpdir(), 'holdback-kills-'));
  folders.push(data);
  const ports = { api: await freePort(), edge: await freePort(), sandbox: await freePort() };
  const urls = { api: `http://127.0.0.1:${ports.api}`, edge: `http://127.0.0.1:${ports.edge}`, sandbox: `http://127.0.0.1:${ports.sandbox}` };
  const env = { HOLDBACK_API_PORT: String(ports.api), HOLDBACK_EDGE_PORT: String(ports.edge), SANDBOX_PORT: String(ports.sandbox) };
  let current: LaunchedHoldback | null = null;
  const kills: Array<{ when: string; apiWasUp: boolean }> = [];
  const launch = (): LaunchedHoldback => {
    // Every life on the same frozen instant (a kill may come before the first life saved its clock).
    current = launchHoldback(['--data', data, '--clock', T0, '--frozen'], env);
    running.push(current);
    return current;
  };
  return {
    urls,
    kills,
    /** SIGKILL now, noting whether the API answered at that moment (a kill during start-up finds it closed). */
    async kill(when: string): Promise<void> {
      const apiWasUp = await answers(`${urls.api}/health`);
      await current!.killHard();
      kills.push({ when, apiWasUp });
    },
    output: () => `${current?.stdout() ?? ''}\n${current?.stderr() ?? ''}`,
    /** Resolves a random moment (up to `withinMs`) after the API answers. */
    async apiUpThen(withinMs: number): Promise<void> {
      await pollUntil('the API answering', () => answers(`${urls.api}/health`), 120_000, 20)
        .catch((error: Error) => { throw new Error(`${error.message}; the process said:\n${current?.stdout() ?? ''}\n${current?.stderr() ?? ''}`); });
      await sleep(Math.random() * withinMs);
    },
    /** Launches, then for each moment of the plan waits for it, kills with SIGKILL and launches again. */
    async killAlongThe<T extends string>(plan: readonly T[], moment: (when: T) => Promise<void>): Promise<void> {
      launch();
      for (const when of plan) {
        await moment(when);
        await this.kill(when);
        launch();
      }
    },
  };
}

/** The orders of `ids` not (yet) at Holdback, asked 16 at a time. */
async function missingAt(api: string, ids: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += 16) {
    const statuses = await Promise.all(ids.slice(i, i + 16).map(async (id) => {
      const response = await fetch(`${api}/orders/${encodeURIComponent(id)}`);
      await response.arrayBuffer();
      return { id, status: response.status };
    }));
    for (const { id, status } of statuses) if (status !== 200) missing.push(id);
  }
  return missing;
}

/** The order ids listed in GET /rejected-events, each with its reasons. */
async function rejectedOrders(api: string): Promise<Map<string, string[]>> {
  const listed = new Map<string, string[]>();
  let cursor: string | null = null;
  do {
    const response = await fetch(`${api}/rejected-events?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (!response.ok) throw new Error(`GET /rejected-events answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
    const page = await response.json() as { rejectedEvents: Array<{ reasons: string[]; detail: { orderId?: unknown; data?: { order?: { order_id?: unknown } } } }>; nextCursor: string | null };
    for (const event of page.rejectedEvents) {
      const id = event.detail?.orderId ?? event.detail?.data?.order?.order_id;
      if (typeof id === 'string') listed.set(id, event.reasons);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return listed;
}

/**
 * Polls until every acknowledged order is at Holdback or listed with a reason; answers those still missing. It asks
 * about a few orders at a time and pauses while they are missing, so that the checking takes little from the work.
 */
async function lostAfterAll(api: string, acknowledged: string[], limitMs = 150_000): Promise<{ lost: string[]; listed: Map<string, string[]> }> {
  const deadline = Date.now() + limitMs;
  let waiting = acknowledged;
  let listed = new Map<string, string[]>();
  while (waiting.length > 0 && Date.now() < deadline) {
    if (!(await healthy(api))) {
      await sleep(250);
      continue;
    }
    const missing = await missingAt(api, waiting.slice(0, 32));
    waiting = [...missing, ...waiting.slice(32)];
    if (missing.length === 0) continue;
    listed = await rejectedOrders(api);
    waiting = waiting.filter((id) => !listed.has(id));
    await sleep(300);
  }
  // At the deadline, each order still waiting is asked once more, so that the count of the lost is exact.
  if (waiting.length > 0 && (await answers(`${api}/health`))) {
    listed = await rejectedOrders(api);
    waiting = (await missingAt(api, waiting)).filter((id) => !listed.has(id));
  }
  return { lost: waiting, listed };
}

test('1,000+ order.paid acknowledged while Holdback is killed with SIGKILL again and again (start-up included): none lost', async () => {
  const began = Date.now();
  const holdback = await killableHoldback();
  const client = new EventBridgeClient({
    endpoint: holdback.urls.edge, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // One try per call: a call the kill cut is put again by this producer, so only real answers count as acknowledged.
    maxAttempts: 1,
  });
  const acknowledged = new Set<string>();
  const TARGET = 1_000;
  let batch = 0;
  let producing = true;
  /** Batches of 10 from the first moment the edge answers: a batch whose call failed (process down) is put again. */
  const producer = (async () => {
    while (producing || acknowledged.size < TARGET) {
      const ids = Array.from({ length: 10 }, (_, i) => `kill-${String(batch).padStart(4, '0')}-${i}`);
      try {
        const answer = await client.send(new PutEventsCommand({ Entries: ids.map((orderId) => ({
          Source: 'marketplace.orders', DetailType: 'order.paid',
          Detail: JSON.stringify({ orderId, transactionTime: T0, vendors: [{ vendorId: VENDOR, amount: '100.00' }] }),
        })) }), { abortSignal: AbortSignal.timeout(10_000) });
        answer.Entries?.forEach((entry, i) => { if (entry.EventId) acknowledged.add(ids[i]); });
        batch += 1;
        if (acknowledged.size >= TARGET) producing = false;
      } catch {
        await sleep(10); // not listening (killed, or not started yet): the same batch again
      }
    }
  })();

  // Kills at different moments of a life: just after the edge's first acknowledgement (start-up), at a random moment
  // after launch (before the edge answers, or while starting), and a random moment after the API answered.
  const ackedNow = () => acknowledged.size;
  const plan: Array<'first-ack' | 'random' | 'running'> = ['first-ack', 'random', 'running', 'first-ack', 'random', 'running'];
  await holdback.killAlongThe(plan, (when) => ({
    'first-ack': () => { const from = ackedNow(); return pollUntil('an acknowledgement', () => ackedNow() > from || acknowledged.size >= TARGET, 120_000, 2); },
    random: () => sleep(200 + Math.random() * 2_500),
    running: () => holdback.apiUpThen(1_500),
  })[when]());
  await producer;
  client.destroy();
  const produced = Date.now();

  const { lost, listed } = await lostAfterAll(holdback.urls.api, [...acknowledged]);
  const done = Date.now();
  // eslint-disable-next-line no-console
  console.log(`acknowledged ${acknowledged.size} order.paid over ${holdback.kills.length} SIGKILLs (${holdback.kills.map((k) => `${k.when}${k.apiWasUp ? '' : ' during start-up'}`).join(', ')}); ${listed.size} listed as rejected; producing ${((produced - began) / 1000).toFixed(1)} s, all at Holdback ${((done - produced) / 1000).toFixed(1)} s later`);
  expect(acknowledged.size).toBeGreaterThanOrEqual(TARGET);
  expect(holdback.kills).toHaveLength(plan.length);
  // Some kills found the API still closed: the events acknowledged then were taken by a later life.
  expect(holdback.kills.some((k) => !k.apiWasUp)).toBe(true);
  if (lost.length > 0) throw new Error(`${lost.length} acknowledged orders lost, e.g. ${lost.slice(0, 5).join(', ')}\n${holdback.output()}`);
  for (const reasons of listed.values()) expect(reasons.join(' ')).not.toBe('');
});

test('payments at the gateway sandbox while Holdback\'s API is closed or killed all reach Holdback once it is back', async () => {
  const holdback = await killableHoldback();
  const { sandbox, api } = holdback.urls;
  const ORDERS = 60;
  const paid: string[] = [];
  const post = async (url: string, body: unknown): Promise<Response> => fetch(url, {
    method: 'POST', headers: GATEWAY, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000),
  });
  /** Creates (once) and pays each order at the sandbox, from the first moment it answers; a cut call is made again. */
  const payer = (async () => {
    let vendorReady = false;
    for (let n = 0; n < ORDERS;) {
      const orderId = `webhook-kill-${String(n).padStart(3, '0')}`;
      try {
        if (!vendorReady) {
          const vendor = await post(`${sandbox}/pg/easy-split/vendors`, {
            vendor_id: VENDOR, name: VENDOR, email: 'kills@example.com', phone: '9999999999', schedule_option: 1, status: 'ACTIVE',
          });
          if (vendor.status !== 200 && vendor.status !== 409) throw new Error(`vendor: ${vendor.status} ${await vendor.text()}`);
          vendorReady = true;
        }
        const created = await post(`${sandbox}/pg/orders`, {
          order_id: orderId, order_amount: 100, order_currency: 'INR',
          customer_details: { customer_id: 'c1', customer_phone: '9999999999' },
          order_splits: [{ vendor_id: VENDOR, amount: 100 }],
        });
        // 409: made before a kill cut its answer.
        if (created.status !== 200 && created.status !== 409) throw new Error(`order: ${created.status} ${await created.text()}`);
        const payment = await post(`${sandbox}/_sandbox/orders/${orderId}/pay`, {});
        const text = await payment.text();
        if (payment.status === 200 || (payment.status === 400 && text.includes('order_not_payable'))) {
          paid.push(orderId);
          n += 1;
        } else {
          throw new Error(`pay: ${payment.status} ${text}`);
        }
      } catch (error) {
        if (error instanceof Error && /^(vendor|order|pay):/.test(error.message)) throw error;
        await sleep(10); // not listening: the same order again
      }
    }
  })();

  await holdback.killAlongThe(['sandbox-first-answer', 'random', 'api-up'] as const, (when) => ({
    'sandbox-first-answer': () => { const from = paid.length; return pollUntil('a payment', () => paid.length > from || paid.length >= ORDERS, 120_000, 2); },
    random: () => sleep(300 + Math.random() * 2_000),
    'api-up': () => holdback.apiUpThen(500),
  })[when]());
  await payer;

  const { lost, listed } = await lostAfterAll(api, paid);
  // eslint-disable-next-line no-console
  console.log(`paid ${paid.length} orders at the sandbox over ${holdback.kills.length} SIGKILLs (${holdback.kills.map((k) => `${k.when}${k.apiWasUp ? '' : ' while the API was closed'}`).join(', ')}); ${listed.size} listed as rejected`);
  expect(paid).toHaveLength(ORDERS);
  expect(holdback.kills.some((k) => !k.apiWasUp)).toBe(true);
  if (lost.length > 0) throw new Error(`${lost.length} paid orders never reached Holdback, e.g. ${lost.slice(0, 5).join(', ')}\n${holdback.output()}`);
  // Each reached Holdback by the gateway's own payment webhook: the order keeps the gateway's payment time.
  const order = await (await fetch(`${api}/orders/${paid[0]}`)).json() as { transactionTimeSource?: string };
  expect(order.transactionTimeSource).toBe('gateway');
});
