/** `npm run bench`: Holdback's throughput, latency and gateway-limit use on this machine, written to bench/results.json. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { DateTime } from 'luxon';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { benchConsoleBundle, consoleBundleLine, CONSOLE_BUNDLE_GOAL_GZIP_BYTES } from './console-bundle';
import { auditVerificationLine, auditVerificationTargets, benchAuditVerification } from './audit-verification';
import { benchPreviewsAndImport, previewsAndImportLine, previewsAndImportTargets } from './previews';
import { benchCost, costLine } from './cost';
import { approvalsLine, approvalsTargets, benchApprovals } from './approvals';
import { benchFunctionBundles, functionBundlesLine } from './function-bundles';
import { benchGatewayFaults, gatewayFaultsLine, gatewayFaultsTargets } from './gateway-faults';
import { startLocal, type LocalRuntime } from '../local/runtime';
import { benchOutcomesCsv, outcomesCsvLine, type OutcomesCsvResult } from './outcomes-csv';
import { SCALE_SECTION, benchScale, scaleLine, scaleTargets } from './scale';
import { RELEASE_QUEUE } from '../functions/definitions/routing';
import { Instant } from '../functions/domain/instant';
import { planRelease, vendorFacts } from '../functions/domain/release';
import { predictSettlement, SCHEDULE_OPTIONS } from '../functions/domain/schedule-options';
import { DEFAULT_SETTINGS, calendarOf, defaultPolicy } from '../functions/domain/settings';
import { maxEligibility } from '../functions/domain/release/plan';
import type { HoldbackEvent, OrderEvent, OrderRecord, ReleaseRule, VendorPolicy } from '../functions/domain/types';

const VENDORS = ['bench-v1', 'bench-v2', 'bench-v3'];
const IST = 'Asia/Kolkata';

interface Gateway {
  call<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

function gatewayOf(runtime: LocalRuntime): Gateway {
  const { clientId, clientSecret } = runtime.sandbox.context.config;
  const headers = { 'content-type': 'application/json', 'x-client-id': clientId, 'x-client-secret': clientSecret, 'x-api-version': '2022-09-01' };
  return {
    async call(method, path, body) {
      const response = await fetch(runtime.sandbox.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
  };
}

/** BENCH_CLIENT_HOOK: a client hook module (see ClientHook) given every SDK client, e.g. to count calls while profiling. */
function profilingHook(): { clientHook?: string } {
  return process.env.BENCH_CLIENT_HOOK ? { clientHook: process.env.BENCH_CLIENT_HOOK } : {};
}

/**
 * BENCH_WINDOW_FILE: the measured window's start and end (monotonic clock, µs, as `node --cpu-prof` stamps its
 * samples) written to that file, so a profile of every thread can be cut to the window.
 */
function profilingWindow(start: bigint): void {
  const file = process.env.BENCH_WINDOW_FILE;
  if (file) writeFileSync(file, JSON.stringify({ startUs: Number(start / 1000n), endUs: Number(process.hrtime.bigint() / 1000n) }));
}

async function inBatches<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/**
 * Vendors, their policy (default immediate: every release due at once), and `count` orders created and paid at the
 * sandbox (set-up, not measured).
 */
async function prepare(runtime: LocalRuntime, prefix: string, count: number, release: ReleaseRule = { kind: 'immediate' }): Promise<string[]> {
  const gateway = gatewayOf(runtime);
  // Payment webhooks would send order.paid on their own; the bench sends every event itself, timed.
  runtime.sandbox.state.merchant.webhookUrl = null;
  for (const vendor_id of VENDORS) {
    await gateway.call('POST', '/pg/easy-split/vendors', { vendor_id, name: vendor_id, email: `${vendor_id}@example.com`, phone: '9999999999', schedule_option: 14, status: 'ACTIVE' });
    const put = await fetch(`${runtime.api.url}/vendors/${vendor_id}/policy`, {
      method: 'PUT', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scheduleOption: 14, release, actor: 'bench', reason: 'benchmark' }),
    });
    if (put.status !== 200) throw new Error(`policy ${vendor_id}: ${await put.text()}`);
  }
  const orderIds = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  await inBatches(orderIds, 16, async (order_id) => {
    const created = await gateway.call('POST', '/pg/orders', {
      order_id, order_amount: 600, order_currency: 'INR', customer_details: { customer_id: 'bench', customer_phone: '9999999999' },
      order_splits: VENDORS.map((vendor_id) => ({ vendor_id, amount: 200 })),
    });
    if (created.status !== 200) throw new Error(`order ${order_id}: ${JSON.stringify(created.body)}`);
    const paid = await gateway.call('POST', `/_sandbox/orders/${order_id}/pay`, {});
    if (paid.status !== 200) throw new Error(`pay ${order_id}: ${JSON.stringify(paid.body)}`);
  });
  return orderIds;
}

/** Sends order.paid for every order (10 per PutEvents) and records when each release's outcome was stored. */
async function sendAndTrack(runtime: LocalRuntime, orderIds: string[], paidAt: Map<string, string>) {
  const appliedAt = new Map<string, number>();
  const publish = runtime.deps.publisher.publish.bind(runtime.deps.publisher);
  // vendor.release_applied is published right after the APPLIED outcome is written: the end of the pipeline.
  runtime.deps.publisher.publish = async (events: HoldbackEvent[]) => {
    const now = performance.now();
    for (const e of events) if (e.type === 'vendor.release_applied') appliedAt.set(`${e.detail.orderId}/${e.detail.vendorId}`, now);
    return publish(events);
  };
  const client = new EventBridgeClient({ endpoint: runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  const sentAt = new Map<string, number>();
  const batches: string[][] = [];
  for (let i = 0; i < orderIds.length; i += 10) batches.push(orderIds.slice(i, i + 10));
  const started = performance.now();
  await inBatches(batches, 8, async (batch) => {
    const at = performance.now();
    const out = await client.send(new PutEventsCommand({
      Entries: batch.map((orderId) => ({
        Source: 'marketplace.orders', DetailType: 'order.paid',
        Detail: JSON.stringify({ orderId, transactionTime: paidAt.get(orderId), vendors: VENDORS.map((vendorId) => ({ vendorId, amount: 200 })) }),
      })),
    }));
    if (out.FailedEntryCount) throw new Error(`PutEvents refused entries: ${JSON.stringify(out.Entries)}`);
    for (const orderId of batch) sentAt.set(orderId, at);
  });
  client.destroy();
  return { started, sentAt, appliedAt };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function paymentTimes(runtime: LocalRuntime, orderIds: string[]): Map<string, string> {
  return new Map(orderIds.map((id) => [id, runtime.sandbox.state.orders.get(id)!.payment_time!]));
}

/**
 * Where the runtime keeps its tables and journals: in memory (the figure compared with earlier sessions' runs), or in a
 * fresh data folder as `npm start` keeps them (dynalite's LevelDB and the edge's journals on disk, each write synced
 * before it is acknowledged): the embedded default as people run it.
 */
export type BenchStore = 'memory' | 'data folder';

/** The runtime's options for `store`, and the folder to remove afterwards (none in memory). */
function storeOptions(store: BenchStore): { dataDir?: string; fresh?: boolean; cleanUp: () => void } {
  if (store === 'memory') return { cleanUp: () => undefined };
  const dataDir = mkdtempSync(join(tmpdir(), 'holdback-bench-'));
  return { dataDir, fresh: true, cleanUp: () => rmSync(dataDir, { recursive: true, force: true }) };
}

export async function benchPipeline(store: BenchStore = 'memory') {
  const { cleanUp, ...folder } = storeOptions(store);
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, gatewayRatePerMinute: 10_000_000, ...folder, ...profilingHook() });
  try {
    const orderIds = await prepare(runtime, 'bench-order', 1000);
    const windowStart = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    const { started, sentAt, appliedAt } = await sendAndTrack(runtime, orderIds, paymentTimes(runtime, orderIds));
    const expected = orderIds.length * VENDORS.length;
    const complete = await waitFor(() => appliedAt.size >= expected, 180_000);
    const cpu = process.cpuUsage(cpuBefore);
    profilingWindow(windowStart);
    const finished = Math.max(...appliedAt.values());
    const latencies = [...appliedAt.entries()].map(([key, at]) => at - sentAt.get(key.split('/')[0])!).sort((a, b) => a - b);
    const applied = runtime.sandbox.state.stats.eligibilityPut;
    return {
      orders: orderIds.length, vendorsPerOrder: VENDORS.length, releases: appliedAt.size, complete,
      seconds: round((finished - started) / 1000, 2),
      releasesPerSecond: round(appliedAt.size / ((finished - started) / 1000), 1),
      latencyMs: { p50: round(percentile(latencies, 50), 1), p99: round(percentile(latencies, 99), 1), max: round(latencies.at(-1) ?? NaN, 1) },
      gatewayPuts: applied.total,
      // Every thread of the process (edge, dynalite, containers, sandbox) while the releases went through.
      cpuMsPerRelease: round((cpu.user + cpu.system) / 1000 / appliedAt.size, 2),
      store,
    };
  } finally {
    await runtime.close();
    cleanUp();
  }
}

/**
 * Ingest of order.paid: 1,000 orders of three vendors whose policy defers each release three days, sent as the pipeline
 * part sends them; measured from the first PutEvents until every event is delivered and handled (the runtime idle),
 * then checked: every release planned and SCHEDULED (a release schedule made), so the figure is whole orders ingested.
 */
export async function benchIngest(store: BenchStore = 'memory') {
  const { cleanUp, ...folder } = storeOptions(store);
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, ...folder, ...profilingHook() });
  try {
    const orderIds = await prepare(runtime, 'ingest-order', 1000, { kind: 'after_payment', delay: 'P3D' });
    const windowStart = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    const { started } = await sendAndTrack(runtime, orderIds, paymentTimes(runtime, orderIds));
    await runtime.idle();
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    profilingWindow(windowStart);
    const states = new Map<string, number>();
    for (const orderId of orderIds) {
      for (const release of await runtime.deps.orders.listReleases(orderId)) states.set(release.state, (states.get(release.state) ?? 0) + 1);
    }
    const scheduled = states.get('SCHEDULED') ?? 0;
    const complete = scheduled === orderIds.length * VENDORS.length;
    return {
      orders: orderIds.length, vendorsPerOrder: VENDORS.length, complete, states: Object.fromEntries(states),
      seconds: round(seconds, 2), ordersPerSecond: round(orderIds.length / seconds, 1),
      cpuMsPerOrder: round((cpu.user + cpu.system) / 1000 / orderIds.length, 2),
      store,
    };
  } finally {
    await runtime.close();
    cleanUp();
  }
}

type IngestResult = Awaited<ReturnType<typeof benchIngest>>;

/** Issue 17.7: at least 300 order.paid a second, every one planned. */
function ingestTargets(r: IngestResult) {
  const key = r.store === 'memory' ? 'ingestOrdersPerSecond' : 'ingestOrdersPerSecondDataFolder';
  return { [key]: { target: 300, measured: r.ordersPerSecond, met: r.complete && r.ordersPerSecond >= 300 } };
}

function ingestLine(r: IngestResult): string {
  return `ingest of order.paid (${r.store === 'memory' ? 'tables in memory' : 'a data folder, writes synced'}): ${r.orders} orders of ${r.vendorsPerOrder} vendors planned and scheduled in ${r.seconds} s = ${r.ordersPerSecond}/s (target 300/s)`
    + `${r.complete ? '' : `, INCOMPLETE: ${JSON.stringify(r.states)}`}; ${r.cpuMsPerOrder} ms of CPU per order`;
}

/** Three fresh runs, the median reported: a shared 2-core machine's speed drifts by a fifth from minute to minute. */
async function benchPipelineMedian(store: BenchStore = 'memory') {
  const runs: Awaited<ReturnType<typeof benchPipeline>>[] = [];
  const count = store === 'memory' ? PIPELINE_RUNS : 1;
  for (let run = 1; run <= count; run += 1) {
    progress(`bench: end-to-end pipeline, 1,000 orders of 3 vendors, ${store === 'memory' ? 'tables in memory' : 'in a data folder'} (run ${run} of ${count})...`);
    runs.push(await benchPipeline(store));
  }
  return { ...[...runs].sort((a, b) => a.releasesPerSecond - b.releasesPerSecond)[Math.floor(runs.length / 2)], runs: runs.map((r) => r.releasesPerSecond) };
}

type PipelineResult = Awaited<ReturnType<typeof benchPipelineMedian>>;

function pipelineTargets(pipeline: PipelineResult) {
  const key = pipeline.store === 'memory' ? 'releasesPerSecond' : 'releasesPerSecondDataFolder';
  return { [key]: { target: 300, measured: pipeline.releasesPerSecond, met: pipeline.complete && pipeline.releasesPerSecond >= 300 } };
}

function pipelineLine(pipeline: PipelineResult): string {
  return `end to end (${pipeline.store === 'memory' ? 'tables in memory' : 'a data folder, writes synced'}): ${pipeline.releases} releases of ${pipeline.orders} orders in ${pipeline.seconds} s = ${pipeline.releasesPerSecond}/s, the median of ${pipeline.runs.join(', ')} (target 300/s); ${pipeline.cpuMsPerRelease} ms of CPU per release
  event-to-applied latency: p50 ${pipeline.latencyMs.p50} ms, p99 ${pipeline.latencyMs.p99} ms`;
}

export function benchDomain() {
  const settings = DEFAULT_SETTINGS;
  const calendar = calendarOf(settings);
  const rules: ReleaseRule[] = [{ kind: 'immediate' }, { kind: 'after_payment', delay: 'P3D' }, { kind: 'after_delivery', delay: 'P2D' }, { kind: 'at_max' }];
  const options = SCHEDULE_OPTIONS.map((o) => o.id);
  const start = DateTime.fromISO('2022-12-02T16:00:00+05:30', { setZone: true });
  const inputs = Array.from({ length: 1000 }, (_, i) => {
    const transactionTime = start.plus({ minutes: i * 37 });
    const order: OrderRecord = {
      orderId: `order-${i}`, transactionTime: Instant.fromDateTime(transactionTime), deferByDays: 15,
      maxEligibility: maxEligibility(Instant.fromDateTime(transactionTime), 15), currency: 'INR',
      vendors: [{ vendorId: 'v', amount: '100.00' }], recordedAt: Instant.fromDateTime(transactionTime),
    };
    const policy: VendorPolicy = { ...defaultPolicy('v', settings), version: 1, release: rules[i % rules.length], scheduleOption: options[i % options.length] };
    const events: OrderEvent[] = [
      { type: 'order.paid', orderId: order.orderId, transactionTime: order.transactionTime, vendors: order.vendors, currency: 'INR' },
      ...(i % 2 ? [{ type: 'order.delivered' as const, orderId: order.orderId, deliveredAt: Instant.fromDateTime(transactionTime.plus({ hours: 20 })) }] : []),
    ];
    return { order, policy, facts: vendorFacts(events, 'v'), now: Instant.fromDateTime(transactionTime.plus({ minutes: 5 })) };
  });
  const iterations = 100_000;
  const began = performance.now();
  let predicted = 0;
  for (let i = 0; i < iterations; i += 1) {
    const input = inputs[i % inputs.length];
    // Spelled out rather than `{ ...input, vendorId, ... }`: V8 copies a spread followed by new keys on a slow path that
    // cost ~3 µs, more than the decision itself, so the figure measured the harness instead of the domain.
    const release = planRelease({
      order: input.order, vendorId: 'v', amount: '100.00', policy: input.policy, settings, facts: input.facts, now: input.now, current: null,
    });
    const eligibility = release.targetEligibility ?? release.maxEligibility;
    if (Number.isFinite(predictSettlement(eligibility, input.policy.scheduleOption, calendar).ms)) predicted += 1;
  }
  const seconds = (performance.now() - began) / 1000;
  return { decisionsPlusPredictions: iterations, predicted, seconds: round(seconds, 2), perSecond: round(iterations / seconds, 0) };
}

/** The local containers of the gateway-limit run: twice the default, so a per-container limit would show as 429s. */
const LIMIT_CONTAINERS = 4;

/**
 * The gateway's 600 per minute with a backlog: every due release goes through the release queue, whose consumer runs at
 * most RELEASE_QUEUE.maximumConcurrency at once, each container limited to 600 / that. Counts the sandbox's answers
 * 429 and its eligibility PUTs per order and vendor (a release sent twice would show as two).
 */
export async function benchGatewayLimit() {
  const limit = 600;
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, gatewayRatePerMinute: limit, containers: LIMIT_CONTAINERS });
  try {
    const put = await fetch(`${runtime.sandbox.url}/_sandbox/rate-limits`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eligibilityPerMinute: limit }) });
    if (put.status !== 200) throw new Error(await put.text());
    // A backlog of one and a half minutes of the limit.
    const orderIds = await prepare(runtime, 'limit-order', 300);
    const stats = runtime.sandbox.state.stats.eligibilityPut;
    const before = { served: stats.servedWithinLimit, limited: stats.rateLimited, log: runtime.sandbox.state.eligibilityLog.length };
    const { appliedAt } = await sendAndTrack(runtime, orderIds, paymentTimes(runtime, orderIds));
    await new Promise((r) => setTimeout(r, 60_000));
    const servedInFirstMinute = stats.servedWithinLimit - before.served;
    const expected = orderIds.length * VENDORS.length;
    // The rest goes out as the window frees: throttled sends are rescheduled, and the sweep re-drives any lost one.
    await waitFor(() => appliedAt.size >= expected, 240_000);
    await runtime.idle();
    const putsPerRelease = new Map<string, number>();
    for (const entry of runtime.sandbox.state.eligibilityLog.slice(before.log)) {
      const key = `${entry.order_id}/${entry.vendor_id}`;
      putsPerRelease.set(key, (putsPerRelease.get(key) ?? 0) + 1);
    }
    const releasesByState = new Map<string, number>();
    for (const orderId of orderIds) {
      for (const release of await runtime.deps.orders.listReleases(orderId)) {
        releasesByState.set(release.state, (releasesByState.get(release.state) ?? 0) + 1);
      }
    }
    const applied = (releasesByState.get('APPLIED') ?? 0) + (releasesByState.get('SETTLED') ?? 0);
    return {
      limitPerMinute: limit, containers: LIMIT_CONTAINERS, releaseMaxConcurrency: RELEASE_QUEUE.maximumConcurrency,
      perContainerLimitPerMinute: Math.floor(limit / RELEASE_QUEUE.maximumConcurrency),
      backlog: expected, servedInFirstMinute,
      // The most the sandbox served in any sliding minute while the backlog lasted (its own count): the limit's use once
      // releases are due, without the minute's first seconds in which the order events are still being planned.
      peakPerMinute: stats.peakPerMinute,
      shareOfLimitUsed: round(stats.peakPerMinute / limit, 3),
      rateLimitedAnswers: stats.rateLimited - before.limited,
      eligibilityPuts: [...putsPerRelease.values()].reduce((sum, n) => sum + n, 0),
      releasesSentTwice: [...putsPerRelease.values()].filter((n) => n > 1).length,
      applied, releasesLost: expected - applied, states: Object.fromEntries(releasesByState),
    };
  } finally {
    await runtime.close();
  }
}

async function benchSandbox() {
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0 });
  const gateway = gatewayOf(runtime);
  const seconds = 3;
  const measure = async (label: string, request: (i: number) => Promise<{ status: number }>) => {
    let done = 0;
    let failed = 0;
    let started = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (performance.now() < end) {
        const { status } = await request(started++);
        if (status === 200) done += 1; else failed += 1;
      }
    }));
    return { label, requestsPerSecond: round(done / seconds, 0), failed };
  };
  try {
    runtime.sandbox.state.merchant.webhookUrl = null;
    await gateway.call('POST', '/pg/easy-split/vendors', { vendor_id: 'sbx-v1', name: 'v', email: 'v@example.com', phone: '9999999999', schedule_option: 14, status: 'ACTIVE' });
    const sessions: string[] = [];
    const create = await measure('create order', async (i) => {
      const answer = await gateway.call('POST', '/pg/orders', {
        order_id: `sbx-${i}`, order_amount: 1000, order_currency: 'INR', customer_details: { customer_id: 'c', customer_phone: '9999999999' },
        order_splits: [{ vendor_id: 'sbx-v1', amount: 1000 }],
      });
      if (answer.status === 200) sessions.push(answer.body.payment_session_id);
      return answer;
    });
    const session = await measure('payment session (UPI collect)', async (i) =>
      gateway.call('POST', '/pg/orders/sessions', { payment_session_id: sessions[i % sessions.length], payment_method: { upi: { channel: 'collect', upi_id: 'bench@upi' } } }));
    await gateway.call('POST', '/_sandbox/orders/sbx-0/pay', {});
    const eligibility = DateTime.fromMillis(runtime.clock.nowMs(), { zone: IST }).plus({ days: 2 }).toFormat('yyyy-MM-dd HH:mm:ss');
    const eligibilityPut = await measure('eligibility PUT', async () => gateway.call('PUT',
      '/api/v2/easy-split/orders/sbx-0/settlement-eligibility/vendors/sbx-v1', { settlementEligibilityDateUpdate: eligibility }));
    return [create, session, eligibilityPut];
  } finally {
    await runtime.close();
  }
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** BENCH_PIPELINE_RUNS runs (default 3; 1 to profile one run). */
const PIPELINE_RUNS = Number(process.env.BENCH_PIPELINE_RUNS) || 3;

const progress = (line: string) => { process.stderr.write(`${line}\n`); };

export async function runBench(): Promise<void> {
  progress('bench: domain decisions and predictions...');
  const domain = benchDomain();
  const pipeline = await benchPipelineMedian();
  progress('bench: ingest of order.paid, 1,000 orders of 3 vendors...');
  const ingest = await benchIngest();
  const pipelineDataFolder = await benchPipelineMedian('data folder');
  progress('bench: ingest of order.paid, 1,000 orders of 3 vendors, in a data folder...');
  const ingestDataFolder = await benchIngest('data folder');
  progress('bench: gateway sandbox request throughput...');
  const sandbox = await benchSandbox();
  progress(`bench: gateway limit of 600 per minute with a backlog, ${LIMIT_CONTAINERS} containers (about 2 minutes)...`);
  const rateLimit = await benchGatewayLimit();
  progress('bench: fault run, 200 orders of 3 vendors with a fifth of gateway calls faulted (a few minutes)...');
  const faults = await benchGatewayFaults(progress);
  progress('bench: console bundle size...');
  const consoleBundle = await benchConsoleBundle();
  progress('bench: audit verification of 1,000,000 records (about a minute)...');
  const auditVerification = await benchAuditVerification();
  const previewsAndImport = await benchPreviewsAndImport(progress);
  progress('bench: outcomes CSV of 200,000 rows, streamed...');
  const outcomesCsv = await benchOutcomesCsv(progress);
  progress('bench: the bill, every AWS call of 200 orders of 3 vendors counted (about 30 s)...');
  const cost = await benchCost();
  progress('bench: function bundles from the synthesized cloud assembly, sizes and cold starts beside the Powertools reference (a few minutes)...');
  const functionBundles = benchFunctionBundles();
  const targets = {
    ...pipelineTargets(pipeline),
    ...ingestTargets(ingest),
    ...pipelineTargets(pipelineDataFolder),
    ...ingestTargets(ingestDataFolder),
    // issue 17 item 7: domain decisions plus predictions, at least 200,000 a second (the part `domain` writes the same)
    ...domainTargets(domain),
    ...gatewayLimitTargets(rateLimit),
    ...gatewayFaultsTargets(faults),
    ...consoleBundleTargets(consoleBundle),
    ...auditVerificationTargets(auditVerification),
    ...previewsAndImportTargets(previewsAndImport),
    ...outcomesCsvTargets(outcomesCsv),
    ...costTargets(cost),
    ...functionBundleTargets(functionBundles),
  };
  const { file, results } = writeResults({ pipeline, ingest, pipelineDataFolder, ingestDataFolder, domain, rateLimit, faults, sandbox, consoleBundle, auditVerification, previewsAndImport, outcomesCsv, cost, functionBundles, targets });
  console.log(`Holdback benchmark (${results.machine.cpus} cores, Node ${process.version}) -> ${file}
  ${pipelineLine(pipeline)}
  ${ingestLine(ingest)}
  ${pipelineLine(pipelineDataFolder)}
  ${ingestLine(ingestDataFolder)}
  domain decisions + predictions: ${domain.perSecond}/s (target 100,000/s)
  ${gatewayLimitLine(rateLimit)}
  ${gatewayFaultsLine(faults)}
  sandbox: ${sandbox.map((s) => `${s.label} ${s.requestsPerSecond}/s`).join(', ')}
  ${consoleBundleLine(consoleBundle)}
  ${auditVerificationLine(auditVerification)}
  ${previewsAndImportLine(previewsAndImport)}
  ${outcomesCsvLine(outcomesCsv)}
  ${costLine(cost)}
  ${functionBundlesLine(functionBundles)}`);
}

/** Issue 17 item 7: domain decisions plus predictions at least 200,000 a second. */
const DOMAIN_GOAL_PER_SECOND = 200_000;
function domainTargets(r: ReturnType<typeof benchDomain>) {
  return { domainDecisionsPerSecond: { target: DOMAIN_GOAL_PER_SECOND, measured: r.perSecond, met: r.perSecond >= DOMAIN_GOAL_PER_SECOND } };
}

function costTargets(r: Awaited<ReturnType<typeof benchCost>>) {
  return { costPerMillionOrdersUsd: { target: r.target.usd, measured: r.totalPerMillionUsd, met: r.target.met } };
}

/**
 * Issue 17.7's 150 KB per bundle, judged on the gzipped bundle (raw and with the source map are reported beside it), and
 * its cold start (import and first invocation, CPU) no slower than the Powertools reference's measured beside it (the
 * slowest function's, with a tenth of slack); the import alone is kept as a figure of its own.
 */
function functionBundleTargets(r: ReturnType<typeof benchFunctionBundles>) {
  const largest = Math.max(...r.bundles.map((b) => b.gzipBytes));
  return {
    functionBundleGzipBytes: { target: r.goalBytes, measured: largest, met: r.gzipMeetsGoal },
    functionColdImportVsReference: { target: 1, measured: r.importVsReference, met: r.importMeetsReference },
    functionColdStartVsReference: { target: 1, measured: r.coldStartVsReference, met: r.coldStartMeetsReference },
  };
}

/** The outcomes CSV's target: every row of 200,000 streamed with the heap flat. */
function outcomesCsvTargets(r: OutcomesCsvResult) {
  return { outcomesCsvMemoryFlat: { target: true, measured: r.flat, met: r.flat && r.rows >= 200_000 } };
}

function consoleBundleTargets(r: Awaited<ReturnType<typeof benchConsoleBundle>>) {
  return { consoleBundleGzipBytes: { target: CONSOLE_BUNDLE_GOAL_GZIP_BYTES, measured: r.gzipBytes, met: r.gzipBytes < CONSOLE_BUNDLE_GOAL_GZIP_BYTES } };
}

type GatewayLimitResult = Awaited<ReturnType<typeof benchGatewayLimit>>;

function gatewayLimitTargets(rateLimit: GatewayLimitResult) {
  return {
    shareOfGatewayLimitUsed: { target: 0.95, measured: rateLimit.shareOfLimitUsed, met: rateLimit.shareOfLimitUsed >= 0.95 },
    rateLimitedAnswers: { target: 0, measured: rateLimit.rateLimitedAnswers, met: rateLimit.rateLimitedAnswers === 0 },
    releasesLost: { target: 0, measured: rateLimit.releasesLost, met: rateLimit.releasesLost === 0 },
    releasesSentTwice: { target: 0, measured: rateLimit.releasesSentTwice, met: rateLimit.releasesSentTwice === 0 },
  };
}

function gatewayLimitLine(r: GatewayLimitResult): string {
  return `gateway limit ${r.limitPerMinute}/min, ${r.containers} containers, ${r.releaseMaxConcurrency} release environments of ${r.perContainerLimitPerMinute}/min, backlog ${r.backlog}: `
    + `busiest minute ${r.peakPerMinute} = ${(r.shareOfLimitUsed * 100).toFixed(1)}% (target 95%; ${r.servedInFirstMinute} in the minute from the first event), ${r.rateLimitedAnswers} answered 429 (target 0), `
    + `${r.releasesLost} lost (target 0), ${r.releasesSentTwice} sent twice (target 0)`;
}

/**
 * Writes bench/results.json: the sections given replace those of the file (a part run alone keeps the others'
 * figures), targets merged by name, with the time and the machine of this run.
 */
function writeResults(sections: Record<string, unknown> & { targets: Record<string, unknown> }) {
  const file = join(__dirname, 'results.json');
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    previous = {};
  }
  const results = {
    ...previous,
    ...sections,
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: round(totalmem() / 2 ** 30, 1), node: process.version },
    targets: { ...(previous.targets as Record<string, unknown> | undefined), ...sections.targets },
  };
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return { file, results };
}

/** One part run alone: measured, written to results.json under `section` with its targets, and its line printed. */
function part<R>(section: string, measure: () => R | Promise<R>, targets: (r: R) => Record<string, unknown>, line: (r: R) => string) {
  return async () => {
    // The machine's load average (1 minute) before and after: on a shared machine it says what a rate is worth.
    const before = round(loadavg()[0], 2);
    const measured = await measure();
    const loadAverage = { before, after: round(loadavg()[0], 2) };
    const { file } = writeResults({ [section]: { ...measured, loadAverage }, targets: targets(measured) });
    console.log(`${line(measured)} (load average ${loadAverage.before} -> ${loadAverage.after}) -> ${file}`);
  };
}

/** The parts that run alone: `npx tsx bench/run.ts <part>` (the README lists them). */
const PARTS: Record<string, () => Promise<void>> = {
  // seconds; the figure is wall time, so on a busy machine it measures the machine's load as much as the domain
  domain: part('domain', benchDomain, domainTargets, (r) => `domain decisions + predictions: ${r.perSecond}/s (target ${DOMAIN_GOAL_PER_SECOND.toLocaleString('en')}/s)`),
  pipeline: part('pipeline', () => benchPipelineMedian(), pipelineTargets, pipelineLine), // about a minute and a half
  ingest: part('ingest', () => benchIngest(), ingestTargets, ingestLine), // about half a minute
  // the same two as `npm start` keeps its state: tables and journals in a data folder, each write synced
  'pipeline-disk': part('pipelineDataFolder', () => benchPipelineMedian('data folder'), pipelineTargets, pipelineLine), // about a minute
  'ingest-disk': part('ingestDataFolder', () => benchIngest('data folder'), ingestTargets, ingestLine), // about half a minute
  'gateway-limit': part('rateLimit', benchGatewayLimit, gatewayLimitTargets, gatewayLimitLine), // about 2 minutes
  faults: part('faults', () => benchGatewayFaults(progress), gatewayFaultsTargets, gatewayFaultsLine), // a few minutes (timeouts are waited out)
  audit: part('auditVerification', benchAuditVerification, auditVerificationTargets, auditVerificationLine), // about a minute
  previews: part('previewsAndImport', () => benchPreviewsAndImport(progress), previewsAndImportTargets, previewsAndImportLine), // about two minutes
  // BENCH_CSV_ORDERS orders of 3 vendors, default 66,667
  'outcomes-csv': part('outcomesCsv', () => benchOutcomesCsv(progress), outcomesCsvTargets, outcomesCsvLine),
  cost: part('cost', () => benchCost(), costTargets, costLine), // about 30 s
  approvals: part('approvals', () => benchApprovals(), approvalsTargets, approvalsLine), // about a minute
  bundles: part('functionBundles', benchFunctionBundles, functionBundleTargets, functionBundlesLine), // a few minutes
  'console-bundle': part('consoleBundle', benchConsoleBundle, consoleBundleTargets, consoleBundleLine), // seconds
  // BENCH_SCALE_RELEASES open releases of one vendor (default 100,000), issue 17
  // --releases N (BENCH_SCALE_RELEASES): a quick run at a smaller size, written under scaleQuick
  scale: part(SCALE_SECTION, () => benchScale(progress), scaleTargets, scaleLine),
};

if (require.main === module) {
  const run = PARTS[process.argv[2]];
  if (!run) {
    console.error(`bench/run.ts runs one part: ${Object.keys(PARTS).join('|')} (all of them: npm run bench)`);
    process.exit(2);
  }
  run().then(() => process.exit(0), (error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
