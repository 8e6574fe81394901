/**
 * Bench section: GET /outcomes?format=csv of 200,000 rows through the local API server, read from dynalite's indexes:
 * rows per second, and the process's memory while it streams (flat: one index page and one chunk at a time).
 * Alone: `npx tsx --expose-gc bench/run.ts outcomes-csv` (without --expose-gc the heap peak includes garbage).
 */
import { get } from 'node:http';
import { BatchWriteItemCommand, DynamoDBClient, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { Instant } from '../functions/domain/instant';
import { DocumentClient, documentClientConfig, storedTimes } from '../functions/adapters/dynamodb/document-client';
import { orderItem, releaseItem } from '../functions/adapters/dynamodb/order-repository';
import { DynamoReleaseReads } from '../functions/adapters/dynamodb/release-reads';
import { DynamoSettingsRepository } from '../functions/adapters/dynamodb/settings-repository';
import { createTableInputs, DEFAULT_TABLE_NAMES } from '../functions/definitions/tables';
import type { Dependencies } from '../functions/application/ports';
import type { OrderRecord, VendorRelease } from '../functions/domain/types';
import { makeApiHandler } from '../functions/handlers/api-functions';
import { createApiServer } from '../local/api-server';
import { LocalDynamo } from '../local/edge/dynamodb';
import { lambdaContext } from '../local/lambda/lambda-context';

const REGION = 'local';
const VENDORS = ['bench-v1', 'bench-v2', 'bench-v3'];
/** 66,667 orders of three vendors: 200,001 rows. */
const ORDERS = Number(process.env.BENCH_CSV_ORDERS ?? 66_667);
/** BatchWriteItem's limit of items per call, and how many calls are in flight. */
const BATCH = 25;
const WRITERS = 16;
const SAMPLE_MS = 50;
/**
 * Every this often the sampler collects garbage first (when node runs with --expose-gc, as `npm run bench` does), so
 * that the heap peak is what the stream holds alive, not what the collector had not reached yet.
 */
const LIVE_SAMPLE_MS = 1000;
const MiB = 2 ** 20;

function orderAt(i: number): { order: OrderRecord; releases: VendorRelease[] } {
  // One order a minute from 1 Nov 2022 (India time): about 46 days, two India months of the paid index.
  const ms = Date.parse('2022-11-01T00:00:00+05:30') + i * 60_000;
  const iso = (at: number): Instant => Instant.withOffset(Math.floor(at / 1000) * 1000, 330);
  const orderId = `bench-order-${String(i).padStart(6, '0')}`;
  const order: OrderRecord = {
    orderId, transactionTime: iso(ms), maxEligibility: iso(ms + 15 * 86_400_000), deferByDays: 15, currency: 'INR',
    vendors: VENDORS.map((vendorId, v) => ({ vendorId, amount: `${100 + v}.50` })), recordedAt: iso(ms),
  };
  const releases = order.vendors.map(({ vendorId, amount }, v): VendorRelease => ({
    orderId, vendorId, amount, state: v === 0 ? 'APPLIED' : 'SCHEDULED', policyVersion: 1, rule: { kind: 'after_payment', delay: 'P3D' },
    scheduleOption: 1, transactionTime: order.transactionTime, maxEligibility: order.maxEligibility,
    targetEligibility: iso(ms + 3 * 86_400_000), sendAt: v === 0 ? null : iso(ms + 3 * 86_400_000 - 3_600_000), releaseKey: null,
    appliedEligibility: v === 0 ? iso(ms + 3 * 86_400_000) : null, predictedSettlement: null, clamp: null,
    attempts: v === 0 ? [{ at: iso(ms + 3 * 86_400_000 - 3_600_000), request: '2022-11-04 00:00:00', httpStatus: 200, status: 'OK', subCode: '200', message: 'Updated vendor settlement eligibility date' }] : [],
    reason: null, settledAt: null, currency: 'INR', version: 1, updatedAt: order.recordedAt,
  }));
  return { order, releases };
}

/** Loads the rows with BatchWriteItem, items mapped exactly as the repository maps them (index keys included). */
async function load(client: DynamoDBClient, reads: DynamoReleaseReads): Promise<number> {
  const items: Record<string, unknown>[] = [];
  const months = new Set<string>();
  for (let i = 0; i < ORDERS; i += 1) {
    const { order, releases } = orderAt(i);
    const paid = orderItem(order);
    items.push(paid.item);
    months.add(paid.month);
    for (const r of releases) {
      const mapped = releaseItem(r);
      items.push(mapped.item);
      for (const month of mapped.months) months.add(month);
    }
  }
  for (const month of months) await reads.directory.noteMonth(month);
  for (const vendorId of VENDORS) await reads.directory.noteVendor(vendorId);
  await writeInBatches(client, items);
  return items.length;
}

/** Writes the items to the orders table with BatchWriteItem, WRITERS calls of BATCH items in flight, until every one is written. */
export async function writeInBatches(client: DynamoDBClient, items: Record<string, unknown>[]): Promise<void> {
  let next = 0;
  const writer = async (): Promise<void> => {
    for (let at = next; at < items.length; at = next) {
      next += BATCH;
      let requests: WriteRequest[] = items.slice(at, at + BATCH).map((item) => ({ PutRequest: { Item: marshall(storedTimes(item) as Record<string, unknown>, { removeUndefinedValues: true }) } }));
      while (requests.length > 0) {
        const answer = await client.send(new BatchWriteItemCommand({ RequestItems: { [DEFAULT_TABLE_NAMES.orders]: requests } }));
        requests = answer.UnprocessedItems?.[DEFAULT_TABLE_NAMES.orders] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
}

export interface OutcomesCsvResult {
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  /**
   * CPU of the whole process (API server, client and dynalite's thread) while streaming: on a shared machine a steadier
   * figure than wall time.
   */
  cpuSeconds: number;
  rowsPerCpuSecond: number;
  loadSeconds: number;
  /** This process's memory (MiB) just before the request, and the largest seen while the CSV streamed. */
  memoryMiB: {
    rssBefore: number; rssPeak: number; heapBefore: number; heapPeak: number;
    /** The largest heap right after a collection (null without --expose-gc); heapGrowth is measured from it when known. */
    liveHeapPeak: number | null;
    heapGrowth: number;
  };
  /**
   * Whether the heap stayed flat: it grew by less than half the CSV's size while streaming it (holding the CSV would take
   * at least twice its size, as JavaScript strings are UTF-16).
   */
  flat: boolean;
}

export async function benchOutcomesCsv(progress: (line: string) => void = () => undefined): Promise<OutcomesCsvResult> {
  const dynamo = new LocalDynamo();
  const endpoint = await dynamo.url();
  await dynamo.createTables(endpoint, REGION, createTableInputs(DEFAULT_TABLE_NAMES));
  const client = new DynamoDBClient(documentClientConfig({ endpoint, region: REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
  const doc = new DocumentClient(client);
  const reads = new DynamoReleaseReads(doc, DEFAULT_TABLE_NAMES.orders);
  const clock = { now: () => Instant.now() };
  // The CSV route needs the settings (for the timezone) and the read side; nothing else is reached.
  const deps = { settings: new DynamoSettingsRepository(doc, DEFAULT_TABLE_NAMES.config, clock), reads } as unknown as Dependencies;
  const handler = makeApiHandler(() => deps);
  const api = await createApiServer({ port: 0, handler: (event) => handler(event, lambdaContext('holdback-api')) as never });
  try {
    progress(`  loading ${ORDERS * VENDORS.length} releases of ${ORDERS} orders into dynalite...`);
    const loadStart = performance.now();
    await load(client, reads);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    global.gc?.();
    const before = process.memoryUsage();
    let rssPeak = before.rss;
    let heapPeak = before.heapUsed;
    let liveHeapPeak = before.heapUsed;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      rssPeak = Math.max(rssPeak, now.rss);
      heapPeak = Math.max(heapPeak, now.heapUsed);
    }, SAMPLE_MS);
    const liveSampler = global.gc ? setInterval(() => {
      global.gc!();
      liveHeapPeak = Math.max(liveHeapPeak, process.memoryUsage().heapUsed);
    }, LIVE_SAMPLE_MS) : null;
    progress('  streaming GET /outcomes?format=csv...');
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const { rows, bytes } = await new Promise<{ rows: number; bytes: number }>((resolve, reject) => {
      get(`${api.url}/outcomes?format=csv`, (response) => {
        if (response.statusCode !== 200) reject(new Error(`GET /outcomes?format=csv answered ${response.statusCode}`));
        let lines = 0;
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
        });
        response.on('end', () => resolve({ rows: lines - 1, bytes: size }));
        response.on('error', reject);
      }).on('error', reject);
    });
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    clearInterval(sampler);
    if (liveSampler) clearInterval(liveSampler);
    const mib = (value: number): number => Math.round((value / MiB) * 10) / 10;
    // Live heap when the collector can be asked to run; otherwise the raw peak, garbage included (an upper bound).
    const heapGrowth = (global.gc ? liveHeapPeak : heapPeak) - before.heapUsed;
    return {
      rows, bytes, seconds: Math.round(seconds * 100) / 100, rowsPerSecond: Math.round(rows / seconds),
      cpuSeconds: Math.round(cpuSeconds * 100) / 100, rowsPerCpuSecond: Math.round(rows / cpuSeconds), loadSeconds: Math.round(loadSeconds * 10) / 10,
      memoryMiB: {
        rssBefore: mib(before.rss), rssPeak: mib(rssPeak), heapBefore: mib(before.heapUsed), heapPeak: mib(heapPeak),
        liveHeapPeak: global.gc ? mib(liveHeapPeak) : null, heapGrowth: mib(heapGrowth),
      },
      flat: heapGrowth < bytes / 2,
    };
  } finally {
    await api.close();
    client.destroy();
    await dynamo.close();
  }
}

export function outcomesCsvLine(r: OutcomesCsvResult): string {
  return `outcomes CSV: ${r.rows} rows (${(r.bytes / MiB).toFixed(1)} MiB) streamed in ${r.seconds} s = ${r.rowsPerSecond} rows/s (${r.rowsPerCpuSecond} rows per CPU second, dynalite included); `
    + `heap ${r.memoryMiB.heapBefore} -> peak ${r.memoryMiB.heapPeak} MiB, live peak ${r.memoryMiB.liveHeapPeak ?? 'unknown (run with --expose-gc)'} MiB (+${r.memoryMiB.heapGrowth}), RSS ${r.memoryMiB.rssBefore} -> peak ${r.memoryMiB.rssPeak} MiB: ${r.flat ? 'flat' : 'NOT flat'} (load ${r.loadSeconds} s)`;
}
