/**
 * The embedded default kept in its data folder (contract section 7): killed with SIGKILL while releases are scheduled,
 * in flight and about to be due, it starts again on the same folder and sends every release exactly once, losing
 * nothing it had accepted, even when the gateway had applied a PUT whose answer the kill lost; SIGTERM and SIGINT stop
 * it cleanly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from '../../sandbox/app';
import { call, killStillRunning, readUntil, startHoldback, type HoldbackProcess } from './holdback-process';

jest.setTimeout(120_000);

const T0 = '2022-12-02T16:05:00+05:30';
const GATEWAY = { 'x-api-version': '2022-09-01', 'x-client-id': DEFAULT_CLIENT_ID, 'x-client-secret': DEFAULT_CLIENT_SECRET };

/** Each order has one vendor, whose policy says when its release goes. */
const ORDERS = [
  { orderId: 'order-applied', vendorId: 'vendor-applied', release: { kind: 'immediate' } }, // sent before the kill
  { orderId: 'order-inflight', vendorId: 'vendor-inflight', release: { kind: 'immediate' } }, // its PUT held at the kill
  { orderId: 'order-due', vendorId: 'vendor-due', release: { kind: 'after_payment', delay: 'PT2H' } }, // due while down
  { orderId: 'order-scheduled', vendorId: 'vendor-scheduled', release: { kind: 'after_payment', delay: 'P3D' } },
  { orderId: 'order-last', vendorId: 'vendor-last', release: { kind: 'after_payment', delay: 'P1D' } }, // acknowledged just before the kill
];

const folders: string[] = [];
const running: HoldbackProcess[] = [];

afterEach(async () => {
  await killStillRunning(running);
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function dataFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-data-'));
  folders.push(folder);
  return folder;
}

async function start(args: string[], env?: Record<string, string>): Promise<HoldbackProcess> {
  const holdback = await startHoldback(args, env);
  running.push(holdback);
  return holdback;
}

function events(edge: string): EventBridgeClient {
  return new EventBridgeClient({ endpoint: edge, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

async function sendPaid(edge: string, order: typeof ORDERS[number], transactionTime: string): Promise<void> {
  const client = events(edge);
  try {
    const answer = await client.send(new PutEventsCommand({ Entries: [{
      Source: 'marketplace.orders', DetailType: 'order.paid',
      Detail: JSON.stringify({ orderId: order.orderId, transactionTime, vendors: [{ vendorId: order.vendorId, amount: '100.00' }] }),
    }] }));
    expect(answer.FailedEntryCount).toBe(0);
  } finally {
    client.destroy();
  }
}

/** The vendor's policy at Holdback, then the order and its vendor at the gateway (sandbox), paid at the clock's now. */
async function prepare(holdback: HoldbackProcess, order: typeof ORDERS[number], paidAt: string): Promise<void> {
  const { sandbox, api } = holdback;
  // The policy first: the gateway's payment webhook tells Holdback of the order as soon as it is paid.
  await call(`${api}/vendors/${order.vendorId}/policy`, { method: 'PUT', body: JSON.stringify({
    scheduleOption: 1, release: order.release, actor: 'test', reason: 'restart test',
  }) });
  await call(`${sandbox}/pg/easy-split/vendors`, { method: 'POST', headers: GATEWAY, body: JSON.stringify({
    vendor_id: order.vendorId, name: order.vendorId, email: `${order.vendorId}@example.com`, phone: '9999999999', schedule_option: 1, status: 'ACTIVE',
  }) });
  await call(`${sandbox}/pg/orders`, { method: 'POST', headers: GATEWAY, body: JSON.stringify({
    order_id: order.orderId, order_amount: 100, order_currency: 'INR',
    customer_details: { customer_id: 'c1', customer_phone: '9999999999' },
    order_splits: [{ vendor_id: order.vendorId, amount: 100 }],
  }) });
  await call(`${sandbox}/_sandbox/orders/${order.orderId}/pay`, { method: 'POST', body: JSON.stringify({ payment_time: paidAt }) });
}

type OrderView = { vendors: Array<{ vendorId: string; state: string }> };

const until = readUntil;

/** The order's vendor states at Holdback ("unknown" while its event is still being delivered). */
async function stateOf(api: string, orderId: string): Promise<string> {
  const response = await fetch(`${api}/orders/${orderId}`);
  if (response.status === 404) return 'unknown';
  const order = await response.json() as OrderView;
  return order.vendors.map((v) => v.state).join(',');
}

const appliedCounts = async (sandbox: string): Promise<Record<string, number>> => {
  const { applied } = await call<{ applied: Array<{ order_id: string; vendor_id: string; applied: number }> }>(`${sandbox}/_sandbox/eligibility-updates`);
  return Object.fromEntries(applied.map((a) => [`${a.order_id}/${a.vendor_id}`, a.applied]));
};

test('after SIGKILL with releases scheduled, in flight and due, a restart sends each exactly once and loses nothing accepted', async () => {
  const data = dataFolder();
  const first = await start(['--data', data, '--clock', T0, '--frozen']);
  const { now } = await call<{ now: string }>(`${first.edge}/_local/clock`);
  // Only the marketplace's events tell Holdback of these orders: the gateway's payment webhooks are off until the restart.
  await call(`${first.sandbox}/_sandbox/merchant`, { method: 'PUT', body: JSON.stringify({ webhookUrl: null }) });
  for (const order of ORDERS) await prepare(first, order, now);

  // Released and answered before the kill: it must not be sent again after it.
  await sendPaid(first.edge, ORDERS[0], now);
  await until('the first release applied', () => stateOf(first.api, 'order-applied'), (s) => s === 'APPLIED');

  // From now on the gateway holds every request without answering: the next immediate release stays in flight.
  await call(`${first.sandbox}/_sandbox/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['timeout'], timeoutMs: 600_000 }) });
  await sendPaid(first.edge, ORDERS[1], now);
  await sendPaid(first.edge, ORDERS[2], now);
  await sendPaid(first.edge, ORDERS[3], now);
  await until('the in-flight PUT held by the gateway', () => call<{ faultsInjected: { timeout: number } }>(`${first.sandbox}/_sandbox/stats`),
    (stats) => stats.faultsInjected.timeout >= 1);
  await until('two releases scheduled', async () => [await stateOf(first.api, 'order-due'), await stateOf(first.api, 'order-scheduled')],
    (states) => states.every((s) => s === 'SCHEDULED'));
  // Acknowledged by the edge, then killed at once: whether or not it was handled, it must not be lost.
  await sendPaid(first.edge, ORDERS[4], now);
  await first.killHard();

  const second = await start(['--data', data]);
  // The clock resumes where it stood, still frozen; the sandbox kept its state (its faults too, which end now).
  expect((await call<{ now: string }>(`${second.edge}/_local/clock`)).now).toBe(now);
  expect(second.stdout()).toContain('(frozen)');
  expect(await appliedCounts(second.sandbox)).toEqual({ 'order-applied/vendor-applied': 1 });
  await call(`${second.sandbox}/_sandbox/faults`, { method: 'DELETE' });
  await until('the last accepted event handled after the restart', () => stateOf(second.api, 'order-last'), (s) => s === 'SCHEDULED');

  // Three hours on: the due release fires at its time, and the sweep re-drives the one whose send was cut off.
  await call(`${second.edge}/_local/clock`, { method: 'POST', body: JSON.stringify({ advance: 'PT3H' }) });
  await until('the due and the in-flight releases applied', async () => [await stateOf(second.api, 'order-due'), await stateOf(second.api, 'order-inflight')],
    (states) => states.every((s) => s === 'APPLIED'));

  // Four days on: the two scheduled releases (one of them from the event acknowledged just before the kill) go too.
  await call(`${second.edge}/_local/clock`, { method: 'POST', body: JSON.stringify({ advance: 'P4D' }) });
  for (const order of ORDERS) {
    await until(`${order.orderId} applied or settled`, () => stateOf(second.api, order.orderId), (s) => s === 'APPLIED' || s === 'SETTLED');
  }
  expect(await appliedCounts(second.sandbox)).toEqual(Object.fromEntries(ORDERS.map((o) => [`${o.orderId}/${o.vendorId}`, 1])));
  expect(second.stderr()).not.toContain(DEFAULT_CLIENT_SECRET);
});

test('SIGKILL after the gateway applied a PUT it never answered: the restart confirms it from the recon, with no second PUT', async () => {
  const order = { orderId: 'order-unanswered', vendorId: 'vendor-unanswered', release: { kind: 'immediate' } };
  const key = `${order.orderId}/${order.vendorId}`;
  const data = dataFolder();
  const first = await start(['--data', data, '--clock', T0, '--frozen']);
  const { now } = await call<{ now: string }>(`${first.edge}/_local/clock`);
  await call(`${first.sandbox}/_sandbox/merchant`, { method: 'PUT', body: JSON.stringify({ webhookUrl: null }) });
  await prepare(first, order, now);
  // The gateway applies the eligibility PUT and then never answers it (the recon still answers).
  await call(`${first.sandbox}/_sandbox/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['hang_after_apply'], timeoutMs: 600_000 }) });
  await sendPaid(first.edge, order, now);
  await until('the PUT applied by the gateway and left unanswered', () => appliedCounts(first.sandbox), (counts) => counts[key] === 1);
  expect(await stateOf(first.api, order.orderId)).toBe('APPLYING');
  // A changing control answers only once the sandbox's state is on disk, the applied PUT with it.
  await call(`${first.sandbox}/_sandbox/rate-limits`, { method: 'PUT', body: JSON.stringify({ eligibilityPerMinute: null }) });
  await first.killHard();

  const second = await start(['--data', data]);
  // The sandbox kept the applied date, and its faults with its state: they end now.
  expect(await appliedCounts(second.sandbox)).toEqual({ [key]: 1 });
  expect((await call<{ faults: { kinds: string[] } | null }>(`${second.sandbox}/_sandbox/faults`)).faults?.kinds).toEqual(['hang_after_apply']);
  await call(`${second.sandbox}/_sandbox/faults`, { method: 'DELETE' });
  expect(await stateOf(second.api, order.orderId)).toBe('APPLYING');

  // Past the claim's 2-minute deadline: the sweep re-drives it, and the recon shows the gateway already holds the date.
  await call(`${second.edge}/_local/clock`, { method: 'POST', body: JSON.stringify({ advance: 'PT3M' }) });
  await until('the unanswered release applied', () => stateOf(second.api, order.orderId), (s) => s === 'APPLIED');
  const timeline = await call<{ items: Array<{ kind: string; vendorId?: string; detail: Record<string, unknown> }> }>(`${second.api}/orders/${order.orderId}/timeline`);
  // The send was on the record before it left (the first process wrote it), and its answer came from the recon.
  const attempts = timeline.items.filter((i) => i.kind === 'gateway_attempt');
  expect(attempts.map((i) => i.detail.phase)).toEqual(['sent', 'confirmed_from_recon']);
  expect(attempts[1]).toMatchObject({ vendorId: order.vendorId, detail: { from: 'APPLYING', to: 'APPLIED', answer: { source: 'recon', status: 'OK' } } });
  expect(String(attempts[1].detail.reason)).toContain("found at the gateway's order recon");
  const view = await call<{ vendors: Array<{ state: string; appliedEligibility: string | null; sends: number; attempts: Array<{ status: string; confirmedFromRecon?: unknown }> }> }>(`${second.api}/orders/${order.orderId}`);
  expect(view.vendors[0]).toMatchObject({ state: 'APPLIED', appliedEligibility: expect.any(String), sends: 1 });
  expect(view.vendors[0].attempts).toEqual([expect.objectContaining({ status: 'OK', confirmedFromRecon: expect.objectContaining({ eligibility: view.vendors[0].appliedEligibility }) })]);
  const byApplied = await call<{ items: Array<{ orderId: string }> }>(`${second.api}/outcomes?by=applied&orderId=${order.orderId}`);
  expect(byApplied.items.map((i) => i.orderId)).toEqual([order.orderId]);
  // One eligibility PUT reached the gateway for this order and vendor, in all.
  expect(await appliedCounts(second.sandbox)).toEqual({ [key]: 1 });
  const { updates } = await call<{ updates: Array<{ order_id: string; vendor_id: string }> }>(`${second.sandbox}/_sandbox/eligibility-updates`);
  expect(updates.filter((u) => u.order_id === order.orderId && u.vendor_id === order.vendorId)).toHaveLength(1);
});

/** Whether nothing listens on the address's port any more (a clean stop frees it). */
function portFree(url: string): Promise<boolean> {
  const port = Number(new URL(url).port);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

test('SIGTERM stops cleanly: exit code 0, every port freed, and the log says so', async () => {
  const data = dataFolder();
  const holdback = await start(['--data', data, '--clock', T0, '--frozen']);
  await call(`${holdback.api}/health`);
  holdback.child.kill('SIGTERM');
  const { code } = await holdback.exited;
  expect(code).toBe(0);
  expect(holdback.stdout()).toContain('SIGTERM: stopping');
  expect(holdback.stdout()).toContain('stopping: no work in flight; every send finished');
  expect(holdback.stdout()).toContain('stopped: every port closed, state saved');
  for (const url of [holdback.api, holdback.edge, holdback.sandbox]) expect(await portFree(url)).toBe(true);
  // The folder is free for the next start, which resumes the stored clock.
  const again = await start(['--data', data]);
  expect((await call<{ now: string }>(`${again.edge}/_local/clock`)).now).toBe('2022-12-02T10:35:00.000Z');
});

test('SIGINT with a send in flight stops cleanly, hands the send back, and the next start sends it exactly once', async () => {
  const data = dataFolder();
  const holdback = await start(['--data', data, '--clock', T0, '--frozen'], { HOLDBACK_STOP_WAIT_MS: '500' });
  const { now } = await call<{ now: string }>(`${holdback.edge}/_local/clock`);
  await call(`${holdback.sandbox}/_sandbox/merchant`, { method: 'PUT', body: JSON.stringify({ webhookUrl: null }) });
  await prepare(holdback, ORDERS[1], now);
  await call(`${holdback.sandbox}/_sandbox/faults`, { method: 'POST', body: JSON.stringify({ rate: 1, kinds: ['timeout'], timeoutMs: 600_000 }) });
  await sendPaid(holdback.edge, ORDERS[1], now);
  await until('the PUT held by the gateway', () => call<{ faultsInjected: { timeout: number } }>(`${holdback.sandbox}/_sandbox/stats`),
    (stats) => stats.faultsInjected.timeout >= 1);
  holdback.child.kill('SIGINT');
  const { code } = await holdback.exited;
  expect(code).toBe(0);
  expect(holdback.stdout()).toMatch(/stopping: 1 invocation still in flight after 0.5 s handed back: their events and schedules are kept/);
  for (const url of [holdback.api, holdback.edge, holdback.sandbox]) expect(await portFree(url)).toBe(true);

  const again = await start(['--data', data]);
  await call(`${again.sandbox}/_sandbox/faults`, { method: 'DELETE' });
  await call(`${again.edge}/_local/clock`, { method: 'POST', body: JSON.stringify({ advance: 'PT3H' }) });
  await until('the handed-back release applied', () => stateOf(again.api, 'order-inflight'), (s) => s === 'APPLIED');
  expect(await appliedCounts(again.sandbox)).toEqual({ 'order-inflight/vendor-inflight': 1 });
});
