/**
 * The bill per million orders of three vendors, counted: every AWS call the production adapters make during an
 * end-to-end run (SDK middleware, all threads), the edge's queue mapping and schedule invocations, and the local
 * containers' Lambda invocations and durations, priced with bench/aws-prices.ts. Compared with a design that polls a
 * due-index every minute instead of scheduling each release.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { AwsCallTally } from './aws-call-meter';
import { RELEASE_SCHEDULE_GROUP, type HandlerName } from '../functions/definitions/routing';
import { EXTRA_PRICES, EXTRA_PRICES_AS_OF, PRICES, PRICES_AS_OF, PRICE_REGION, lambdaComputeMs } from './aws-prices';
import { LogMeter, PLATFORM_LOG_BYTES_PER_INVOCATION, bytesToGb, measureTable, modelledGbSeconds, releaseMetricsLineBytes, sampledTraces } from './whole-bill';
import { AUDIT_TABLE, DEFAULT_AUDIT_TABLE_NAME, DEFAULT_TABLE_NAMES, TABLES, type TableDefinition } from '../functions/definitions/tables';
import { AUDIT_ARCHIVE_BATCH } from '../lib/audit-archive';
import { startHarness, type Harness } from '../test/e2e/harness';

/** lib/holdback-function.ts's default, which every Holdback function uses. */
const LAMBDA_MEMORY_MB = 512;
const MINUTES_PER_MONTH = 43_200;
/** The volume the fixed monthly costs (the minute's sweep, the secret, the key) are spread over. */
const ORDERS_PER_MONTH = 1_000_000;
/** Issue 18 item 5: all in, per million orders at a million a month; and storage a month per million orders kept. */
export const COST_TARGET_PER_MILLION = 40;
export const STORAGE_TARGET_PER_MILLION_KEPT = 1;
/** Function and access logs are kept 400 days (lib/deploy-safety.ts). */
const LOG_MONTHS_KEPT = 400 / 30;
/**
 * lib/audit-archive.ts: the copier writes one object per stream batch (up to 1,000 records, or a minute's worth). At a
 * million orders a month the records come at about 5 a second, so each shard's batch closes on the minute: one PUT a
 * minute per stream shard (4 assumed: a table's stream has a shard per partition), or one per 1,000 records if more.
 */
const ARCHIVE_BATCH = AUDIT_ARCHIVE_BATCH.records;
const ARCHIVE_SHARDS = 4;

/** The three vendors of each order and their policies: one released at once, one a day after payment, one after delivery. */
const VENDORS = [
  // Released early, so each of its releases is exposure (contract 6.4), checked against a cap it never reaches.
  { id: 'cost-v1', release: { kind: 'immediate' }, maxExposure: { INR: '9999999999.99' } },
  { id: 'cost-v2', release: { kind: 'after_payment', delay: 'P1D' } },
  { id: 'cost-v3', release: { kind: 'after_delivery', delay: 'P1D' } },
] as const;

interface Snapshot {
  lambda: Map<HandlerName, { invocations: number; billedMilliseconds: number }>;
  mapping: { receives: number; deleteBatches: number };
  releaseSchedules: number;
  /** The gateway's webhooks: served by the API port locally, by the webhooks function's URL on AWS (one invocation each). */
  api: { invocations: number; billedMilliseconds: number };
}

function snapshot(harness: Harness): Snapshot {
  const { runtime } = harness;
  return {
    lambda: new Map([...runtime.lambdaUsage].map(([name, u]) => [name, { invocations: u.invocations, billedMilliseconds: u.billedMilliseconds }])),
    mapping: { ...(runtime.edge.releaseMapping?.requests ?? { receives: 0, deleteBatches: 0 }) },
    releaseSchedules: runtime.edge.scheduler.invocations.get(RELEASE_SCHEDULE_GROUP) ?? 0,
    api: { invocations: runtime.apiUsage.invocations, billedMilliseconds: runtime.apiUsage.billedMilliseconds },
  };
}

type Line = { service: string; what: string; quantity: number; unit: string; usd: number };

/** The bench's tables by physical name, with their definitions (the table class prices their requests and storage). */
const BENCH_TABLES: Record<string, TableDefinition> = {
  [DEFAULT_TABLE_NAMES.orders]: TABLES.orders, [DEFAULT_TABLE_NAMES.config]: TABLES.config,
  [DEFAULT_TABLE_NAMES.rejected]: TABLES.rejected, [DEFAULT_AUDIT_TABLE_NAME]: AUDIT_TABLE,
};
const infrequentAccess = (table: string): boolean => BENCH_TABLES[table]?.tableClass === 'STANDARD_INFREQUENT_ACCESS';

/** A table's units as the meter counted them: table writes, index writes and reads. */
function tableUnits(t: AwsCallTally, table: string): { wru: number; iwru: number; rru: number } {
  const units = t.breakdown('DynamoDB');
  const total = (prefix: string) => Object.entries(units).filter(([k]) => k.startsWith(prefix)).reduce((n, [, v]) => n + v, 0);
  return { wru: total(`write:${table}:`), iwru: total(`indexWrite:${table}/`), rru: units[`read:${table}`] ?? 0 };
}

/** Prices counted quantities; `per` scales them to one million orders. */
function price(t: AwsCallTally, s: { before: Snapshot; after: Snapshot }, per: number, handlers: HandlerName[], wallDurations = true): Line[] {
  const lines: Line[] = [];
  const add = (service: string, what: string, quantity: number, unit: string, usd: number) => lines.push({ service, what, quantity: quantity * per, unit, usd: usd * per });
  const wru = t.total('DynamoDB', 'writeUnits');
  const iwru = t.total('DynamoDB', 'indexWriteUnits');
  const rru = t.total('DynamoDB', 'readUnits');
  add('DynamoDB', 'table writes', wru, 'WRU', (wru / 1e6) * PRICES.dynamodb.perMillionWriteUnits);
  add('DynamoDB', 'index writes (GSIs)', iwru, 'WRU', (iwru / 1e6) * PRICES.dynamodb.perMillionWriteUnits);
  add('DynamoDB', 'reads', rru, 'RRU', (rru / 1e6) * PRICES.dynamodb.perMillionReadUnits);
  // Tables of the Standard-IA class (the audit log) pay 25% more for each of their request units.
  for (const table of Object.keys(BENCH_TABLES).filter(infrequentAccess)) {
    const u = tableUnits(t, table);
    const premium = EXTRA_PRICES.dynamodb.infrequentAccessRequestFactor - 1;
    const usd = premium * (((u.wru + u.iwru) / 1e6) * PRICES.dynamodb.perMillionWriteUnits + (u.rru / 1e6) * PRICES.dynamodb.perMillionReadUnits);
    add('DynamoDB', `Standard-IA class of ${table}: +${Math.round(premium * 100)}% on its ${round((u.wru + u.iwru) * per, 2)} WRU and ${round(u.rru * per, 2)} RRU an order`, u.wru + u.iwru + u.rru, 'units', usd);
  }
  for (const name of handlers) {
    const a = s.after.lambda.get(name) ?? { invocations: 0, billedMilliseconds: 0 };
    const b = s.before.lambda.get(name) ?? { invocations: 0, billedMilliseconds: 0 };
    const invocations = a.invocations - b.invocations;
    const gbSeconds = ((a.billedMilliseconds - b.billedMilliseconds) / 1000) * (LAMBDA_MEMORY_MB / 1024);
    add('Lambda', `${name} requests`, invocations, 'requests', (invocations / 1e6) * PRICES.lambda.perMillionRequests);
    if (wallDurations) add('Lambda', `${name} duration (${LAMBDA_MEMORY_MB} MB arm64)`, gbSeconds, 'GB-s', gbSeconds * PRICES.lambda.perGbSecondArm64);
  }
  const apiCalls = s.after.api.invocations - s.before.api.invocations;
  const apiGbSeconds = ((s.after.api.billedMilliseconds - s.before.api.billedMilliseconds) / 1000) * (LAMBDA_MEMORY_MB / 1024);
  add('Lambda', 'webhooks requests (the gateway\'s webhooks)', apiCalls, 'requests', (apiCalls / 1e6) * PRICES.lambda.perMillionRequests);
  if (wallDurations) add('Lambda', `webhooks duration (${LAMBDA_MEMORY_MB} MB arm64)`, apiGbSeconds, 'GB-s', apiGbSeconds * PRICES.lambda.perGbSecondArm64);
  // lib/gateway-webhooks.ts: a function URL, not an API Gateway route ($1 per million on an HTTP API). Its own unit, so
  // that perOrder.lambdaInvocations does not count the webhooks' invocations twice.
  add('Lambda', 'function URL requests (the gateway\'s webhooks; not charged beyond the invocation)', apiCalls, 'URL requests', 0);
  const events = t.total('EventBridge', 'eventChunks');
  add('EventBridge', "Holdback's events (PutEvents entries, 64 KB chunks)", events, 'events', (events / 1e6) * PRICES.eventbridge.perMillionCustomEvents);
  const scheduled = s.after.releaseSchedules - s.before.releaseSchedules;
  add('Scheduler', 'release schedule invocations', scheduled, 'invocations', (scheduled / 1e6) * PRICES.scheduler.perMillionInvocations);
  const scheduleCalls = t.total('Scheduler', 'requests');
  add('Scheduler', 'CreateSchedule/DeleteSchedule (not charged)', scheduleCalls, 'requests', 0);
  const sends = t.total('SQS', 'requestChunks');
  const receives = s.after.mapping.receives - s.before.mapping.receives;
  const deletes = s.after.mapping.deleteBatches - s.before.mapping.deleteBatches;
  add('SQS', 'sends by Holdback (64 KB chunks)', sends, 'requests', (sends / 1e6) * PRICES.sqs.perMillionRequests);
  add('SQS', "sends by Scheduler (a schedule's target)", scheduled, 'requests', (scheduled / 1e6) * PRICES.sqs.perMillionRequests);
  add('SQS', 'event source mapping receives and delete batches', receives + deletes, 'requests', ((receives + deletes) / 1e6) * PRICES.sqs.perMillionRequests);
  const signs = t.total('KMS', 'requests');
  add('KMS', 'Sign', signs, 'requests', (signs / 1e4) * PRICES.kms.per10kAsymmetricRequests);
  return lines;
}

/**
 * The least the contract lets an order of three vendors cost, priced like the counted bill: what it requires to be
 * durable or emitted per vendor release, each a DynamoDB write of at least one unit (an item's first KB), before any
 * Lambda invocation, schedule, queue message, read, or the order's own record. Not counted: it bounds the counted bill.
 */
export function contractFloor(vendors = VENDORS.length) {
  const perRelease = [
    { what: 'the release stored when the order is paid (contract 4, 5: its state, target and policy version)', writeUnits: 1 },
    { what: 'APPLYING stored before the PUT (contract 5; the claim that keeps a dispute or hold from racing the send)', writeUnits: 1 },
    { what: 'APPLIED stored with the gateway\'s answer (contract 5, GET /orders attempts)', writeUnits: 1 },
    { what: 'the gateway attempt appended to the audit log (contract 6.2)', writeUnits: 1 },
    { what: 'SETTLED stored from the settlement webhook (contract 5)', writeUnits: 1 },
    { what: 'the received webhook appended to the audit log (contract 6.2)', writeUnits: 1 },
    { what: 'an index entry by applied time (contract 6.1: by=applied served from an index, never a scan)', writeUnits: 1 },
    { what: 'an index entry by settlement time (contract 6.1: by=settled)', writeUnits: 1 },
  ];
  const writeUnits = vendors * perRelease.reduce((n, p) => n + p.writeUnits, 0);
  const events = vendors; // vendor.release_applied, one per release (contract 3)
  const usd = (writeUnits * PRICES.dynamodb.perMillionWriteUnits) + (events * PRICES.eventbridge.perMillionCustomEvents);
  return { perRelease, writeUnitsPerOrder: writeUnits, eventsPerOrder: events, usdPerMillionOrders: round(usd, 2), targetReachable: usd < COST_TARGET_PER_MILLION };
}

function sum(lines: Line[], service?: string): number {
  return lines.filter((l) => !service || l.service === service).reduce((total, l) => total + l.usd, 0);
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

export async function benchCost(orders = 200) {
  const tally = new AwsCallTally();
  // Every SDK client of the runtime and its containers counts its calls (the composition root's client hook).
  const logs = new LogMeter();
  const harness = await startHarness({ clientHook: join(__dirname, 'aws-call-meter.ts'), logger: logs });
  try {
    await harness.createVendors(VENDORS.map((v) => ({ id: v.id, scheduleOption: 1 })));
    for (const v of VENDORS) {
      const answer = await harness.api('PUT', `/vendors/${v.id}/policy`, { scheduleOption: 1, release: v.release, ...('maxExposure' in v ? { maxExposure: v.maxExposure } : {}), actor: 'bench', reason: 'cost' });
      if (answer.status !== 200) throw new Error(`policy ${v.id}: ${JSON.stringify(answer.body)}`);
    }
    const orderIds = Array.from({ length: orders }, (_, i) => `cost-order-${i + 1}`);
    const paid = new Map<string, string>();
    for (const id of orderIds) paid.set(id, await harness.createPaidOrder(id, VENDORS.map((v) => ({ vendorId: v.id, amount: 200 }))));
    await harness.runtime.idle();
    await sleep(200);
    // Only what the orders cause from here on: set-up calls (policies) are not part of an order's bill.
    const setUp = new Map(tally.calls);
    tally.calls.clear();
    const before = snapshot(harness);
    logs.counting = true;
    const cpuBefore = process.cpuUsage();
    // One event at a time, each processed before the next: the durations are an invocation's own, not a queue's wait.
    for (const id of orderIds) {
      await harness.send('order.paid', { orderId: id, transactionTime: paid.get(id), vendors: VENDORS.map((v) => ({ vendorId: v.id, amount: 200 })) });
      await harness.send('order.delivered', { orderId: id, deliveredAt: paid.get(id) });
    }
    // The scheduled releases (a day after payment or delivery), then the gateway's settlements and their webhooks.
    await harness.advance('P2D');
    await harness.advance('P10D');
    await sleep(300);
    const after = snapshot(harness);
    logs.counting = false;
    const cpu = process.cpuUsage(cpuBefore);
    const whole = await wholeBill(harness, tally, { before, after }, logs, orders, (cpu.user + cpu.system) / 1000);
    const sweepsInRun = (after.lambda.get('sweep')?.invocations ?? 0) - (before.lambda.get('sweep')?.invocations ?? 0);
    // The sweep's runs are a fixed cost a minute (below), not the orders'; the few DynamoDB reads of the runs that
    // happened during the clock's jumps stay in the tally (under 1% of it).
    // Durations from the handlers' own work (whole-bill.ts: CPU time and the waits on AWS), not the loaded machine's wall time.
    const perOrder = price(tally, { before, after }, 1 / orders, ['orderEvents', 'release'], false);
    const perMillion = perOrder.map((l) => ({ ...l, quantity: round(l.quantity * 1e6, 0), usd: round(l.usd * 1e6, 3) }));
    const applied = (await harness.appliedAtGateway()).size;
    const runUnits = {
      dynamoWriteUnits: round(tally.total('DynamoDB', 'writeUnits') / orders, 2),
      dynamoIndexWriteUnits: round(tally.total('DynamoDB', 'indexWriteUnits') / orders, 2),
      dynamoReadUnits: round(tally.total('DynamoDB', 'readUnits') / orders, 2),
      events: round(tally.total('EventBridge', 'eventChunks') / orders, 2),
    };

    // The sweep's own cost per minute, counted: one idle sweep (nothing due) after the run.
    const calls = new Map(tally.calls);
    tally.calls.clear();
    const idleBefore = snapshot(harness);
    await harness.advance('PT1M');
    await sleep(200);
    const idleAfter = snapshot(harness);
    const sweepRuns = Math.max(1, (idleAfter.lambda.get('sweep')?.invocations ?? 0) - (idleBefore.lambda.get('sweep')?.invocations ?? 0));
    const sweepLines = price(tally, { before: idleBefore, after: idleAfter }, 1 / sweepRuns, ['sweep']);
    const sweepPerRun = sum(sweepLines);
    const sweepMonthly = sweepPerRun * MINUTES_PER_MONTH;
    // Fixed a month: the sweep every minute (counted above), the gateway secret, the audit key. Secret reads: at
    // most one GetSecretValue per container per 5 minutes (Powertools cache); 10 warm containers assumed.
    const secretMonthly = PRICES.secretsManager.perSecretMonth + ((10 * MINUTES_PER_MONTH) / 5 / 1e4) * PRICES.secretsManager.per10kCalls;
    // The sweep traces actively: Lambda samples its one run a minute (43,200 traces a month).
    const sweepTracesMonthly = (sampledTraces(MINUTES_PER_MONTH) / 1e6) * EXTRA_PRICES.xray.perMillionTracesRecorded;
    const fixedMonthly = sweepMonthly + secretMonthly + PRICES.kms.perKeyMonth + sweepTracesMonthly;
    perMillion.push(...whole.lines);
    const variable = sum(perMillion);
    const total = variable + (fixedMonthly * 1e6) / ORDERS_PER_MONTH;

    // The polling design: no schedule per release and no queue; a poller runs every minute, queries the due index's
    // shards (as the sweep does, so its cost per run is the sweep's counted one), and sends what is due itself.
    // Every other call (events, order writes, index writes, the gateway sends' functions) stays as counted.
    const notInPolling = perMillion.filter((l) => l.service === 'SQS' || (l.service === 'Scheduler'));
    // Step Functions instead of a schedule and a queue message per release: a standard workflow per release (start,
    // wait, invoke the send, choice, end: 5 state transitions at $0.025 per 1,000 in ap-south-1 list) replaces the
    // Scheduler invocation, its SQS message and the mapping's receive and delete; everything else stays as counted.
    const releasesPerOrder = VENDORS.length;
    const stepFunctionsUsd = (releasesPerOrder * 5 * 1e6 / 1000) * 0.025;
    const stepFunctionsTotal = variable - sum(notInPolling) + stepFunctionsUsd + (fixedMonthly * 1e6) / ORDERS_PER_MONTH;
    const pollingVariable = variable - sum(notInPolling);
    const pollingTotal = pollingVariable + (fixedMonthly * 1e6) / ORDERS_PER_MONTH;

    const exposure = exposureCost(calls, orders);
    const byService = Object.fromEntries([...new Set(perMillion.map((l) => l.service))].map((service) => [service, round(sum(perMillion, service), 3)]));
    return {
      region: PRICE_REGION, pricesAsOf: PRICES_AS_OF, prices: PRICES,
      orders, vendorsPerOrder: VENDORS.length, policies: VENDORS.map((v) => `${v.id}: ${JSON.stringify(v.release)}`),
      releasesApplied: applied, sweepsDuringRun: sweepsInRun,
      lambdaMemoryMb: LAMBDA_MEMORY_MB,
      perMillionOrders: { lines: perMillion, byService, variableUsd: round(variable, 2) },
      perOrder: {
        ...runUnits,
        lambdaInvocations: round(perOrder.filter((l) => l.service === 'Lambda' && l.unit === 'requests').reduce((s2, l) => s2 + l.quantity, 0), 2),
      },
      dynamoBreakdownPerOrder: Object.fromEntries(Object.entries(breakdownOf(calls, 'DynamoDB')).map(([k, v]) => [k, round(v / orders, 2)])),
      callsPerOrder: Object.fromEntries([...calls.values()].map((c) => [`${c.service} ${c.operation}`, round(c.calls / orders, 2)])),
      setUpCalls: [...setUp.values()].reduce((n, c) => n + c.calls, 0),
      fixedMonthlyUsd: { sweepEveryMinute: round(sweepMonthly, 2), sweepTraces: round(sweepTracesMonthly, 2), sweepPerRunUsd: sweepPerRun, gatewaySecret: round(secretMonthly, 2), auditKey: PRICES.kms.perKeyMonth },
      totalPerMillionUsd: round(total, 2),
      exposure,
      atOrdersPerMonth: ORDERS_PER_MONTH,
      polling: {
        assumptions: 'A poller every minute (43,200 a month) queries the 8 due-index shards and sends what is due itself: no Scheduler schedule and no SQS message per release; its per-run cost is the sweep\'s counted one (the sweep still runs in this design too, so it is counted once). Every order-event, write, index write, event and send-function call stays as counted. Releases wait up to a minute longer.',
        variableUsd: round(pollingVariable, 2),
        totalPerMillionUsd: round(pollingTotal, 2),
      },
      stepFunctions: {
        assumptions: 'A standard Step Functions workflow per release (5 state transitions: start, wait until due, invoke the send, check, end; $0.025 per 1,000 transitions) instead of a Scheduler schedule, its SQS message and the queue mapping; every other line as counted.',
        workflowUsd: round(stepFunctionsUsd, 2),
        totalPerMillionUsd: round(stepFunctionsTotal, 2),
      },
      extraPricesAsOf: EXTRA_PRICES_AS_OF, extraPrices: EXTRA_PRICES,
      storage: whole.storage,
      logsPerOrder: whole.logsPerOrder,
      xrayIfActiveOnEveryFunctionUsd: whole.activeTracingEverywhereUsd,
      target: { usd: COST_TARGET_PER_MILLION, met: total <= COST_TARGET_PER_MILLION, storageUsdPerMillionKeptMonthly: STORAGE_TARGET_PER_MILLION_KEPT, storageMet: whole.storage.usdPerMillionKeptMonthly <= STORAGE_TARGET_PER_MILLION_KEPT },
      contractFloor: contractFloor(),
    };
  } finally {
    await harness.close();
    tally.close();
  }
}

/**
 * The lines beyond the requests, per million orders: the write-once copy's S3 PUTs and its copier, CloudWatch Logs
 * (measured bytes), X-Ray traces, and Lambda's billed waits on AWS; and what keeping the orders costs a month.
 */
async function wholeBill(harness: Harness, t: AwsCallTally, s: { before: Snapshot; after: Snapshot }, logs: LogMeter, orders: number, cpuMs: number) {
  const per = 1e6 / orders;
  const lines: Line[] = [];
  const add = (service: string, what: string, quantity: number, unit: string, usd: number) => lines.push({ service, what, quantity: round(quantity, 0), unit, usd: round(usd, 3) });
  const endpoint = harness.runtime.edge.dynamodbUrl;
  // At the stack's clock after the run (twelve days on): the exposure entries closed by then are gone by TTL.
  const nowS = Math.floor(harness.runtime.clock.now().toMillis() / 1000);
  const ordersTable = await measureTable(endpoint, DEFAULT_TABLE_NAMES.orders, nowS);
  const auditTable = await measureTable(endpoint, DEFAULT_AUDIT_TABLE_NAME, nowS);
  // The write-once copy: one S3 object per stream batch (functions/adapters/s3/audit-archive-copy.ts).
  const auditItemsPerOrder = auditTable.items / orders;
  const batchesPerMonth = Math.max(ARCHIVE_SHARDS * MINUTES_PER_MONTH, (auditItemsPerOrder * ORDERS_PER_MONTH) / ARCHIVE_BATCH);
  const copierInvocations = batchesPerMonth * (1e6 / ORDERS_PER_MONTH);
  add('S3', `audit write-once copy: PUTs (one per stream batch of up to ${ARCHIVE_BATCH} records or a minute, ${round(auditItemsPerOrder, 1)} records an order)`, copierInvocations, 'PUTs', copierInvocations / 1000 * EXTRA_PRICES.s3.per1kPuts);
  const copierMs = copierInvocations * EXTRA_PRICES.latencyMs.S3;
  add('Lambda', 'audit copier requests (one per stream batch)', copierInvocations, 'requests', (copierInvocations / 1e6) * PRICES.lambda.perMillionRequests);
  add('Lambda', 'audit copier duration (its PUT\'s wait)', (copierMs / 1000) * (LAMBDA_MEMORY_MB / 1024), 'GB-s', (copierMs / 1000) * (LAMBDA_MEMORY_MB / 1024) * PRICES.lambda.perGbSecondArm64);
  // Lambda's billed waits: every AWS call and gateway send at its in-region latency (the wall-time lines hold the rest).
  const calls: Record<string, number> = {};
  for (const c of t.calls.values()) calls[c.service] = (calls[c.service] ?? 0) + c.calls;
  const sends = (await harness.appliedAtGateway()).size;
  // The handlers' own computing: the CPU time of the whole local stack during the run (handlers, and also the local
  // edge, dynalite, the sandbox and the harness: an upper bound), which a loaded machine does not inflate as wall time,
  // stretched to the duration it takes at the fraction of a vCPU the function's memory gets (lambdaComputeMs).
  const ownMs = lambdaComputeMs(cpuMs, LAMBDA_MEMORY_MB);
  const own = (ownMs / 1000) * (LAMBDA_MEMORY_MB / 1024) * per;
  add('Lambda', `duration: own computing (${round(cpuMs / orders, 1)} ms CPU an order, the whole local stack's: an upper bound; ${round(ownMs / orders, 0)} ms at ${LAMBDA_MEMORY_MB} MB's ${round(Math.min(1, LAMBDA_MEMORY_MB / EXTRA_PRICES.lambdaOneVcpuAtMb), 2)} of a vCPU)`, own, 'GB-s', own * PRICES.lambda.perGbSecondArm64);
  const waits = modelledGbSeconds(calls, sends, 0, LAMBDA_MEMORY_MB);
  add('Lambda', `duration: billed waits on AWS calls and gateway sends (${Object.entries(calls).map(([k, v]) => `${round(v / orders, 1)} ${k}`).join(', ')}, ${round(sends / orders, 1)} sends an order)`,
    waits.gbSeconds * per, 'GB-s', waits.gbSeconds * per * PRICES.lambda.perGbSecondArm64);
  // CloudWatch Logs: the handlers' lines as measured, and Lambda's START/END/REPORT per invocation.
  const invocations = [...s.after.lambda].reduce((n, [name, u]) => n + u.invocations - (s.before.lambda.get(name)?.invocations ?? 0), 0)
    + s.after.api.invocations - s.before.api.invocations;
  // Each release invocation also writes its metrics (embedded metric format), one line, billed as log bytes.
  const releaseInvocations = (s.after.lambda.get('release')?.invocations ?? 0) - (s.before.lambda.get('release')?.invocations ?? 0);
  const metricBytes = releaseInvocations * releaseMetricsLineBytes();
  // Lambda's START/END/REPORT lines are not written (system log level WARN, lib/holdback-function.ts): 0 bytes; at the
  // default level they would add PLATFORM_LOG_BYTES_PER_INVOCATION an invocation (printed as platformBytesIfInfo).
  const platformBytesIfInfo = (invocations + copierInvocations / per) * PLATFORM_LOG_BYTES_PER_INVOCATION;
  const logBytes = logs.bytes + metricBytes;
  const logGb = bytesToGb(logBytes) * per;
  add('CloudWatch Logs', `ingestion (${round(logs.bytes / orders, 0)} B logged by the handlers and ${round(metricBytes / orders, 0)} B of metrics an order; Lambda's own lines off)`, logGb, 'GB', logGb * EXTRA_PRICES.logs.ingestionPerGb);
  add('CloudWatch Logs', `storage for ${Math.round(LOG_MONTHS_KEPT * 30)} days`, logGb * LOG_MONTHS_KEPT, 'GB-months', logGb * LOG_MONTHS_KEPT * EXTRA_PRICES.logs.storagePerGbMonth);
  // X-Ray: the per-order functions (order events, release, webhooks) pass through (lib/holdback-stack.ts): their
  // callers (EventBridge, SQS, the function URL) send no sampled trace, so they record none. The copier samples
  // actively: Lambda's 1 a second and 5% of the rest, on its batches. (Active on all would be sampledTraces of every
  // invocation: about 2.9 million traces, $14.35 a million orders, at a million a month.)
  const traces = sampledTraces(batchesPerMonth) * (1e6 / ORDERS_PER_MONTH);
  add('X-Ray', 'traces recorded (per-order functions pass through; the copier samples 1 a second + 5%)', traces, 'traces', (traces / 1e6) * EXTRA_PRICES.xray.perMillionTracesRecorded);
  const activeTracingEverywhereUsd = (sampledTraces((invocations / orders) * ORDERS_PER_MONTH + batchesPerMonth) * (1e6 / ORDERS_PER_MONTH) / 1e6) * EXTRA_PRICES.xray.perMillionTracesRecorded;
  // Keeping them: a month of a million orders' items, indexes, continuous backups and the S3 copy; each table's
  // storage at its class's price (the audit log's Standard-IA).
  const tableGb = bytesToGb((ordersTable.bytes + auditTable.bytes) * per);
  const storagePrice = (table: string) => (infrequentAccess(table) ? EXTRA_PRICES.dynamodb.infrequentAccessStoragePerGbMonth : EXTRA_PRICES.dynamodb.storagePerGbMonth);
  const storageUsd = bytesToGb(ordersTable.bytes * per) * storagePrice(DEFAULT_TABLE_NAMES.orders) + bytesToGb(auditTable.bytes * per) * storagePrice(DEFAULT_AUDIT_TABLE_NAME);
  // Continuous backups are billed on the table's size, which leaves its global secondary indexes out.
  const backedUpGb = bytesToGb((ordersTable.bytes - ordersTable.indexBytes + auditTable.bytes - auditTable.indexBytes) * per);
  const s3Gb = bytesToGb((auditTable.bytes - auditTable.indexBytes) * per);
  const storage = {
    bytesPerOrder: { orders: round(ordersTable.bytes / orders, 0), ordersIndexes: round(ordersTable.indexBytes / orders, 0), audit: round(auditTable.bytes / orders, 0), auditIndexes: round(auditTable.indexBytes / orders, 0) },
    itemsPerOrder: { orders: round(ordersTable.items / orders, 2), audit: round(auditItemsPerOrder, 2) },
    expiredByTtlPerOrder: { items: round((ordersTable.expired.items + auditTable.expired.items) / orders, 2), bytes: round((ordersTable.expired.bytes + auditTable.expired.bytes) / orders, 0) },
    kinds: { orders: ordersTable.kinds, audit: auditTable.kinds },
    usdPerMillionKeptMonthly: 0,
    lines: [
      { what: `DynamoDB storage (items, 100 B overhead each, index entries; the orders table ${round(bytesToGb(ordersTable.bytes * per), 2)} GB at $${storagePrice(DEFAULT_TABLE_NAMES.orders)}, the audit log ${round(bytesToGb(auditTable.bytes * per), 2)} GB at $${storagePrice(DEFAULT_AUDIT_TABLE_NAME)} a GB-month)`, gbMonths: round(tableGb, 3), usd: round(storageUsd, 3) },
      { what: 'DynamoDB point-in-time recovery (continuous backups, on the tables without their indexes)', gbMonths: round(backedUpGb, 3), usd: round(backedUpGb * EXTRA_PRICES.dynamodb.pitrPerGbMonth, 3) },
      { what: 'S3 write-once copy of the audit log (Object Lock, never deleted)', gbMonths: round(s3Gb, 3), usd: round(s3Gb * EXTRA_PRICES.s3.storagePerGbMonth, 3) },
    ],
  };
  storage.usdPerMillionKeptMonthly = round(storage.lines.reduce((n, l) => n + l.usd, 0), 3);
  return { lines, storage, activeTracingEverywhereUsd: round(activeTracingEverywhereUsd, 2), logsPerOrder: { handlerBytes: round(logs.bytes / orders, 0), handlerLines: round(logs.lines / orders, 2), metricBytes: round(metricBytes / orders, 0), platformBytesIfInfo: round(platformBytesIfInfo / orders, 0) } };
}

/**
 * What early-release exposure adds (contract 6.4), counted: the entry written when an early release is claimed, the
 * cap check's reads (the vendor-currency version and the open entries) and its conditional version write. One of
 * the three vendors releases early here, under a cap; a vendor without a cap pays the entry's write alone.
 */
function exposureCost(calls: AwsCallTally['calls'], orders: number) {
  const units = breakdownOf(calls, 'DynamoDB');
  const table = DEFAULT_TABLE_NAMES.orders;
  const writeUnits = (units[`write:${table}:E`] ?? 0) + (units[`write:${table}:V`] ?? 0);
  const readUnits = units['read:exposure'] ?? 0;
  const usd = (writeUnits / 1e6) * PRICES.dynamodb.perMillionWriteUnits + (readUnits / 1e6) * PRICES.dynamodb.perMillionReadUnits;
  return {
    earlyReleasesPerOrder: 1,
    writeUnitsPerOrder: round(writeUnits / orders, 2),
    readUnitsPerOrder: round(readUnits / orders, 2),
    usdPerMillionOrders: round((usd / orders) * 1e6, 3),
  };
}

function breakdownOf(calls: AwsCallTally['calls'], service: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls.values()) {
    if (c.service !== service) continue;
    for (const [k, v] of Object.entries(c.units)) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

export function costLine(r: Awaited<ReturnType<typeof benchCost>>): string {
  const services = Object.entries(r.perMillionOrders.byService).map(([s, usd]) => `${s} $${usd.toFixed(2)}`).join(', ');
  return `bill per million orders of 3 vendors, counted (${r.region}, prices of ${r.pricesAsOf}): $${r.totalPerMillionUsd.toFixed(2)} (target <= $${r.target.usd}) = ${services}`
    + ` + fixed $${(r.fixedMonthlyUsd.sweepEveryMinute + r.fixedMonthlyUsd.gatewaySecret + r.fixedMonthlyUsd.auditKey).toFixed(2)}/month at ${r.atOrdersPerMonth.toLocaleString('en')} orders a month;`
    + ` per order ${r.perOrder.dynamoWriteUnits} WRU + ${r.perOrder.dynamoIndexWriteUnits} index WRU, ${r.perOrder.dynamoReadUnits} RRU, ${r.perOrder.events} events, ${r.perOrder.lambdaInvocations} invocations;`
    + ` storage $${r.storage.usdPerMillionKeptMonthly.toFixed(2)}/month per million orders kept (target <= $${r.target.storageUsdPerMillionKeptMonthly}; ${r.storage.bytesPerOrder.orders + r.storage.bytesPerOrder.audit} B an order);`
    + ` polling every minute instead: $${r.polling.totalPerMillionUsd.toFixed(2)}; Step Functions instead: $${r.stepFunctions.totalPerMillionUsd.toFixed(2)};`
    + ` exposure (one early release an order, under a cap) adds ${r.exposure.writeUnitsPerOrder} WRU + ${r.exposure.readUnitsPerOrder} RRU an order: $${r.exposure.usdPerMillionOrders.toFixed(2)};`
    + ` the contract's floor (${r.contractFloor.writeUnitsPerOrder} WRU and ${r.contractFloor.eventsPerOrder} events an order, before any invocation or read): $${r.contractFloor.usdPerMillionOrders.toFixed(2)}`;
}

