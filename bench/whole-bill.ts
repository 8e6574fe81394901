/**
 * The lines of the bill an order causes beyond its requests (issue 18 item 5): what it keeps (table storage, its
 * continuous backups, the audit log's write-once S3 copy), what the functions log (CloudWatch Logs), X-Ray traces, and
 * Lambda's billed duration from the handlers' own work. Sizes are measured from the items really stored after the
 * bench's run (DynamoDB's item-size rules), log bytes from the lines the handlers really logged.
 */
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { createTableInputs, DEFAULT_AUDIT_TABLE_NAME, DEFAULT_TABLE_NAMES, TTL_ATTRIBUTE } from '../functions/definitions/tables';
import type { Logger } from '../functions/application/ports';
import { EXTRA_PRICES } from './aws-prices';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRIC, METRICS_NAMESPACE } from '../functions/definitions/metric-names';

const GB = 1024 ** 3;

/** DynamoDB's size of one attribute value (developer guide, "Item sizes and formats"). */
export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) {
    const digits = value.N.replace(/^-/, '').replace(/\./, '').replace(/^0+/, '').replace(/e.*$/i, '');
    return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
  }
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((n, s) => n + Buffer.byteLength(s), 0);
  if (value.NS) return value.NS.reduce((n, s) => n + valueSize({ N: s }), 0);
  if (value.L) return 3 + value.L.reduce((n, v) => n + 1 + valueSize(v), 0);
  if (value.M) return 3 + Object.entries(value.M).reduce((n, [k, v]) => n + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  return 0;
}

export function itemSize(item: Record<string, AttributeValue>, only?: ReadonlySet<string>): number {
  return Object.entries(item).filter(([k]) => !only || only.has(k)).reduce((n, [k, v]) => n + Buffer.byteLength(k) + valueSize(v), 0);
}

/** DynamoDB bills 100 bytes of overhead per item, in the table and in each index that holds it. */
const ITEM_OVERHEAD = 100;

export interface StoredTable {
  table: string;
  items: number;
  /** Table bytes (items and overhead) plus every index entry (projected attributes and overhead). */
  bytes: number;
  indexBytes: number;
  /** Items by kind (their sort key's first segment), with their average size. */
  kinds: Record<string, { items: number; avgBytes: number }>;
  /**
   * Items whose TTL (`expiresAt`) had passed at `nowS`, left out of the rest: DynamoDB's TTL deletes them, free, within
   * days (the exposure ledger's entries and tombstones, a day after their risk window closes), so no order keeps them.
   */
  expired: { items: number; bytes: number };
}

/**
 * Scans a table as it is stored and sizes it as DynamoDB bills its storage, leaving out what its TTL has removed by
 * `nowS` (epoch seconds of the stack's clock; dynalite does not run TTL).
 */
export async function measureTable(endpoint: string, table: string, nowS = Math.floor(Date.now() / 1000),
  inputs = createTableInputs(DEFAULT_TABLE_NAMES, DEFAULT_AUDIT_TABLE_NAME)): Promise<StoredTable> {
  const input = inputs.find((t) => t.TableName === table);
  if (!input) throw new Error(`no table ${table}`);
  const tableKeys = (input.KeySchema ?? []).map((k) => k.AttributeName!);
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  const out: StoredTable = { table, items: 0, bytes: 0, indexBytes: 0, kinds: {}, expired: { items: 0, bytes: 0 } };
  const kinds = new Map<string, { items: number; bytes: number }>();
  try {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) {
        const size = itemSize(item) + ITEM_OVERHEAD;
        const expiresAt = item[TTL_ATTRIBUTE]?.N;
        if (expiresAt !== undefined && Number(expiresAt) <= nowS) {
          out.expired.items += 1;
          out.expired.bytes += size;
          continue;
        }
        out.items += 1;
        out.bytes += size;
        const sk = item[tableKeys[1] ?? tableKeys[0]]?.S ?? '';
        const kind = sk.split('#')[0] || 'item';
        const k = kinds.get(kind) ?? { items: 0, bytes: 0 };
        k.items += 1;
        k.bytes += size;
        kinds.set(kind, k);
        for (const index of input.GlobalSecondaryIndexes ?? []) {
          const keys = (index.KeySchema ?? []).map((k2) => k2.AttributeName!);
          if (!keys.every((k2) => item[k2] !== undefined)) continue; // sparse: not in the index
          const projection = index.Projection?.ProjectionType ?? 'ALL';
          const projected = projection === 'ALL' ? itemSize(item)
            : itemSize(item, new Set([...tableKeys, ...keys, ...(projection === 'INCLUDE' ? index.Projection?.NonKeyAttributes ?? [] : [])]));
          out.indexBytes += projected + ITEM_OVERHEAD;
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    client.destroy();
  }
  out.bytes += out.indexBytes;
  out.kinds = Object.fromEntries([...kinds].map(([kind, k]) => [kind, { items: k.items, avgBytes: Math.round(k.bytes / k.items) }]));
  return out;
}

/**
 * Counts the bytes the handlers log, as the Powertools logger writes each line on AWS (its JSON with the standard
 * keys at their real lengths), at the deployed level (INFO: info, warn and error all go out).
 */
export class LogMeter implements Logger {
  bytes = 0;
  lines = 0;
  counting = false;
  private static readonly standard = {
    cold_start: false,
    function_arn: 'arn:aws:lambda:ap-south-1:123456789012:function:Holdback-ReleaseFunctionABCDEF12-AbCdEfGhIjKl',
    function_memory_size: '512',
    function_name: 'Holdback-ReleaseFunctionABCDEF12-AbCdEfGhIjKl',
    function_request_id: '0f3c1b7e-4f6a-4b2e-9d1c-6a7b8c9d0e1f',
    sampling_rate: 0,
    service: 'holdback',
    timestamp: '2026-11-26T08:00:00.000+00:00',
    xray_trace_id: '1-6745f1a0-0123456789abcdef01234567',
  };

  private count(level: string, message: string, fields?: Record<string, unknown>): void {
    if (!this.counting) return;
    this.lines += 1;
    this.bytes += Buffer.byteLength(`${JSON.stringify({ level, message, ...LogMeter.standard, ...fields })}\n`);
  }

  info(message: string, fields?: Record<string, unknown>): void { this.count('INFO', message, fields); }
  warn(message: string, fields?: Record<string, unknown>): void { this.count('WARN', message, fields); }
  error(message: string, fields?: Record<string, unknown>): void { this.count('ERROR', message, fields); }
}

/**
 * Lambda's own lines per invocation in the text log format, which lib/holdback-function.ts no longer ingests (JSON
 * format, system log level WARN): kept to show what they would cost: START, END and REPORT with its X-Ray line, as Lambda
 * writes them (request id 36 characters, durations with two decimals).
 */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = Buffer.byteLength(
  'START RequestId: 0f3c1b7e-4f6a-4b2e-9d1c-6a7b8c9d0e1f Version: $LATEST\n'
  + 'END RequestId: 0f3c1b7e-4f6a-4b2e-9d1c-6a7b8c9d0e1f\n'
  + 'REPORT RequestId: 0f3c1b7e-4f6a-4b2e-9d1c-6a7b8c9d0e1f\tDuration: 23.45 ms\tBilled Duration: 24 ms\tMemory Size: 512 MB\tMax Memory Used: 112 MB\t\n'
  + 'XRAY TraceId: 1-6745f1a0-0123456789abcdef01234567\tSegmentId: 0123456789abcdef\tSampled: true\t\n',
);

/**
 * Traces X-Ray records a month for `invocationsPerMonth` (active tracing, Lambda's fixed sampling: the first request
 * each second, then 5% of the rest).
 */
export function sampledTraces(invocationsPerMonth: number, secondsPerMonth = 30 * 86_400): number {
  const reservoir = Math.min(invocationsPerMonth, secondsPerMonth);
  return reservoir + 0.05 * (invocationsPerMonth - reservoir);
}

/**
 * A Lambda invocation's billed time on AWS from its own work: each AWS call it makes waits the service's in-region
 * latency (EXTRA_PRICES.latencyMs, typical p50s), each gateway send the gateway's, plus the handler's own computing,
 * bounded above by its local wall time (which also holds the local edge's I/O, so it over-counts).
 */
export function modelledGbSeconds(calls: Record<string, number>, gatewaySends: number, localWallMs: number, memoryMb: number): { ms: number; gbSeconds: number } {
  const latency = EXTRA_PRICES.latencyMs as Record<string, number>;
  let ms = localWallMs + gatewaySends * latency.gateway;
  for (const [service, n] of Object.entries(calls)) ms += n * (latency[service] ?? latency.default);
  return { ms, gbSeconds: (ms / 1000) * (memoryMb / 1024) };
}

/**
 * The embedded-metric-format line a release invocation writes (ReleaseApplied and SendLatenessSeconds, as
 * observeRelease records them), serialized by Powertools Metrics itself: metrics are log lines, billed as logs.
 */
export function releaseMetricsLineBytes(): number {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'holdback' });
  metrics.addMetric(METRIC.applied.name, MetricUnit.Count, 1);
  metrics.addMetric(METRIC.sendLateness.name, MetricUnit.Seconds, 0.4);
  return Buffer.byteLength(`${JSON.stringify(metrics.serializeMetrics())}\n`);
}

export const bytesToGb = (bytes: number) => bytes / GB;
