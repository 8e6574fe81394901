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
import { PRICES, PRICES_AS_OF, PRICE_REGION } from './aws-prices';
import { DEFAULT_TABLE_NAMES } from '../functions/definitions/tables';
import { startHarness, type Harness } from '../test/e2e/harness';

/** lib/holdback-function.ts's default, which every Holdback function uses. */
const LAMBDA_MEMORY_MB = 512;
const MINUTES_PER_MONTH = 43_200;
/** The volume the fixed monthly costs (the minute's sweep, the secret, the key) are spread over. */
const ORDERS_PER_MONTH = 1_000_000;
export const COST_TARGET_PER_MILLION = 15;

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

/** Prices counted quantities; `per` scales them to one million orders. */
function price(t: AwsCallTally, s: { before: Snapshot; after: Snapshot }, per: number, handlers: HandlerName[]): Line[] {
  const lines: Line[] = [];
  const add = (service: string, what: string, quantity: number, unit: string, usd: number) => lines.push({ service, what, quantity: quantity * per, unit, usd: usd * per });
  const wru = t.total('DynamoDB', 'writeUnits');
  const iwru = t.total('DynamoDB', 'indexWriteUnits');
  const rru = t.total('DynamoDB', 'readUnits');
  add('DynamoDB', 'table writes', wru, 'WRU', (wru / 1e6) * PRICES.dynamodb.perMillionWriteUnits);
  add('DynamoDB', 'index writes (GSIs)', iwru, 'WRU', (iwru / 1e6) * PRICES.dynamodb.perMillionWriteUnits);
  add('DynamoDB', 'reads', rru, 'RRU', (rru / 1e6) * PRICES.dynamodb.perMillionReadUnits);
  for (const name of handlers) {
    const a = s.after.lambda.get(name) ?? { invocations: 0, billedMilliseconds: 0 };
    const b = s.before.lambda.get(name) ?? { invocations: 0, billedMilliseconds: 0 };
    const invocations = a.invocations - b.invocations;
    const gbSeconds = ((a.billedMilliseconds - b.billedMilliseconds) / 1000) * (LAMBDA_MEMORY_MB / 1024);
    add('Lambda', `${name} requests`, invocations, 'requests', (invocations / 1e6) * PRICES.lambda.perMillionRequests);
    add('Lambda', `${name} duration (${LAMBDA_MEMORY_MB} MB arm64)`, gbSeconds, 'GB-s', gbSeconds * PRICES.lambda.perGbSecondArm64);
  }
  const apiCalls = s.after.api.invocations - s.before.api.invocations;
  const apiGbSeconds = ((s.after.api.billedMilliseconds - s.before.api.billedMilliseconds) / 1000) * (LAMBDA_MEMORY_MB / 1024);
  add('Lambda', 'webhooks requests (the gateway\'s webhooks)', apiCalls, 'requests', (apiCalls / 1e6) * PRICES.lambda.perMillionRequests);
  add('Lambda', `webhooks duration (${LAMBDA_MEMORY_MB} MB arm64)`, apiGbSeconds, 'GB-s', apiGbSeconds * PRICES.lambda.perGbSecondArm64);
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
  const harness = await startHarness({ clientHook: join(__dirname, 'aws-call-meter.ts') });
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
    const sweepsInRun = (after.lambda.get('sweep')?.invocations ?? 0) - (before.lambda.get('sweep')?.invocations ?? 0);
    // The sweep's runs are a fixed cost a minute (below), not the orders'; the few DynamoDB reads of the runs that
    // happened during the clock's jumps stay in the tally (under 1% of it).
    const perOrder = price(tally, { before, after }, 1 / orders, ['orderEvents', 'release']);
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
    const fixedMonthly = sweepMonthly + secretMonthly + PRICES.kms.perKeyMonth;
    const variable = sum(perMillion);
    const total = variable + (fixedMonthly * 1e6) / ORDERS_PER_MONTH;

    // The polling design: no schedule per release and no queue; a poller runs every minute, queries the due index's
    // shards (as the sweep does, so its cost per run is the sweep's counted one), and sends what is due itself.
    // Every other call (events, order writes, index writes, the gateway sends' functions) stays as counted.
    const notInPolling = perMillion.filter((l) => l.service === 'SQS' || (l.service === 'Scheduler'));
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
      fixedMonthlyUsd: { sweepEveryMinute: round(sweepMonthly, 2), sweepPerRunUsd: sweepPerRun, gatewaySecret: round(secretMonthly, 2), auditKey: PRICES.kms.perKeyMonth },
      totalPerMillionUsd: round(total, 2),
      exposure,
      atOrdersPerMonth: ORDERS_PER_MONTH,
      polling: {
        assumptions: 'A poller every minute (43,200 a month) queries the 8 due-index shards and sends what is due itself: no Scheduler schedule and no SQS message per release; its per-run cost is the sweep\'s counted one (the sweep still runs in this design too, so it is counted once). Every order-event, write, index write, event and send-function call stays as counted. Releases wait up to a minute longer.',
        variableUsd: round(pollingVariable, 2),
        totalPerMillionUsd: round(pollingTotal, 2),
      },
      target: { usd: COST_TARGET_PER_MILLION, met: total < COST_TARGET_PER_MILLION },
      contractFloor: contractFloor(),
    };
  } finally {
    await harness.close();
    tally.close();
  }
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
  return `bill per million orders of 3 vendors, counted (${r.region}, prices of ${r.pricesAsOf}): $${r.totalPerMillionUsd.toFixed(2)} (target < $${r.target.usd}) = ${services}`
    + ` + fixed $${(r.fixedMonthlyUsd.sweepEveryMinute + r.fixedMonthlyUsd.gatewaySecret + r.fixedMonthlyUsd.auditKey).toFixed(2)}/month at ${r.atOrdersPerMonth.toLocaleString('en')} orders a month;`
    + ` per order ${r.perOrder.dynamoWriteUnits} WRU + ${r.perOrder.dynamoIndexWriteUnits} index WRU, ${r.perOrder.dynamoReadUnits} RRU, ${r.perOrder.events} events, ${r.perOrder.lambdaInvocations} invocations;`
    + ` polling every minute instead: $${r.polling.totalPerMillionUsd.toFixed(2)};`
    + ` exposure (one early release an order, under a cap) adds ${r.exposure.writeUnitsPerOrder} WRU + ${r.exposure.readUnitsPerOrder} RRU an order: $${r.exposure.usdPerMillionOrders.toFixed(2)};`
    + ` the contract's floor (${r.contractFloor.writeUnitsPerOrder} WRU and ${r.contractFloor.eventsPerOrder} events an order, before any invocation or read): $${r.contractFloor.usdPerMillionOrders.toFixed(2)}`;
}

