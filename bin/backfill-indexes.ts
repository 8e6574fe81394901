/**
 * `npx tsx bin/backfill-indexes.ts --region ap-south-1 --table <OrdersTableName output>`: the upgrade's backfill (see
 * functions/adapters/dynamodb/index-backfill.ts and README, runbook "Upgrade"). Gives items written by an older version
 * the read indexes' key attributes; idempotent, safe beside live traffic, and resumable by running it again.
 * `--segments N` runs N parallel scan segments; `--dry-run` counts without writing; `--endpoint URL` for the local edge.
 * `--audit-table <AuditTableName output>` also gives each audit stream's newest record its time index keys
 * (functions/adapters/dynamodb/audit-index-backfill.ts), so that the checkpoint writer sees every stream; alone, without
 * `--table`, it backfills only the audit table.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseArgs } from 'node:util';
import { DocumentClient, documentClientConfig } from '../functions/adapters/dynamodb/document-client';
import { backfillIndexKeys, type BackfillResult } from '../functions/adapters/dynamodb/backfill/index-backfill';
import { backfillAuditTimeIndex, type AuditBackfillResult } from '../functions/adapters/dynamodb/backfill/audit-index-backfill';

export async function runBackfill(argv: string[], print: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<BackfillResult & { audit?: AuditBackfillResult }> {
  const { values } = parseArgs({
    args: argv,
    options: {
      region: { type: 'string' }, table: { type: 'string' }, segments: { type: 'string' }, 'dry-run': { type: 'boolean' }, endpoint: { type: 'string' },
      'audit-table': { type: 'string' },
    },
  });
  if (!values.region) throw new Error('--region is missing: the stack\'s region, e.g. --region ap-south-1');
  if (!values.table && !values['audit-table']) {
    throw new Error('--table is missing: the orders table (the stack\'s OrdersTableName output), e.g. --table Holdback-OrdersTable-ABC123; or --audit-table <AuditTableName output> for the audit log\'s time index');
  }
  const segments = values.segments === undefined ? 1 : Number(values.segments);
  if (!Number.isInteger(segments) || segments < 1 || segments > 64) throw new Error(`--segments is ${JSON.stringify(values.segments)}; send a whole number from 1 to 64`);
  const client = new DynamoDBClient(documentClientConfig({ region: values.region, ...(values.endpoint ? { endpoint: values.endpoint } : {}) }));
  const doc = new DocumentClient(client);
  try {
    const total: BackfillResult & { audit?: AuditBackfillResult } = { scanned: 0, updated: 0, current: 0, changedMeanwhile: 0, other: 0, unreadable: [] };
    if (values.table) await ordersBackfill(doc, values.table, segments, values['dry-run'] === true, print, total);
    if (values['audit-table']) {
      total.audit = await backfillAuditTimeIndex(doc, values['audit-table'], {
        dryRun: values['dry-run'] === true,
        onPage: (p) => print(JSON.stringify({ auditTable: values['audit-table'], ...p, unreadable: p.unreadable.length })),
      });
    }
    print(JSON.stringify({ done: true, dryRun: values['dry-run'] === true, ...total }));
    return total;
  } finally {
    client.destroy();
  }
}

/** The orders table's backfill in `segments` parallel scan segments, added into `total`. */
async function ordersBackfill(doc: DocumentClient, table: string, segments: number, dryRun: boolean, print: (line: string) => void, total: BackfillResult): Promise<void> {
  const parts = await Promise.all(Array.from({ length: segments }, (_, segment) => backfillIndexKeys(doc, table, {
    segment, totalSegments: segments, dryRun,
    onPage: (p) => print(JSON.stringify({ segment, ...p, unreadable: p.unreadable.length })),
  })));
  for (const p of parts) {
    for (const k of ['scanned', 'updated', 'current', 'changedMeanwhile', 'other'] as const) total[k] += p[k];
    total.unreadable.push(...p.unreadable);
  }
}

if (require.main === module) {
  runBackfill(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
