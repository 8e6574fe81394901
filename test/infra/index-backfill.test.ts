/**
 * The upgrade's backfill on the local edge: orders and releases stored in the old shape (no read-index attributes, no
 * directory of months and vendors), as a stack from before the read indexes holds them; the script as the runbook
 * pastes it fills them; the new indexes then answer. A second run changes nothing.
 */
import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { DocumentClient, documentClientConfig } from '../../functions/adapters/dynamodb/document-client';
import { DynamoOrderRepository } from '../../functions/adapters/dynamodb/order-repository';
import { APPLIED_INDEX, AUDIT_TIME_INDEX, DEFAULT_AUDIT_TABLE_NAME, OPEN_INDEX, OPEN_SHARDS, PAID_INDEX, SETTLED_INDEX, createTableInputs, DEFAULT_TABLE_NAMES } from '../../functions/definitions/tables';
import { order, release } from '../adapters/release-fixtures';
import { runBackfill } from '../../bin/backfill-indexes';
import { Instant } from '../../functions/domain/instant';
import { DynamoAuditStore, sequenceKey, timeIndexKeys } from '../../functions/adapters/dynamodb/audit-store';
import { backfillAuditTimeIndex } from '../../functions/adapters/dynamodb/backfill/audit-index-backfill';
import { Ed25519AuditKey } from '../../functions/adapters/audit-key/ed25519-audit-key';
import { verifyAuditLog } from '../../functions/application/audit/audit-log-views';
import { writeAuditCheckpoint } from '../../functions/application/audit/maintain-audit-log';
import type { AuditEntry, Dependencies } from '../../functions/application/ports';
import { sealRecords } from '../../functions/domain/audit/audit-records';
import { RecordingLogger } from '../fakes/outside-world';
import { credentials, startEdge, type TestEdge } from './local-edge';
import { at } from '../times';

const TABLE = DEFAULT_TABLE_NAMES.orders;
let local: TestEdge;
let client: DynamoDBClient;
let doc: DocumentClient;
let orders: DynamoOrderRepository;
const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

beforeAll(async () => {
  local = await startEdge({}, undefined, { tables: createTableInputs() });
  client = new DynamoDBClient(documentClientConfig({ endpoint: local.edge.url, region: 'us-east-1', credentials }));
  doc = new DocumentClient(client);
  orders = new DynamoOrderRepository(doc, TABLE);
  // The script takes the usual credential chain, as an operator's shell gives it.
  process.env.AWS_ACCESS_KEY_ID = 'operator';
  process.env.AWS_SECRET_ACCESS_KEY = 'operator';
});
afterAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = saved.id;
  process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
  if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
  if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  client.destroy();
  await local.edge.close();
});

const indexed = async (index: string, pk: string, value: string): Promise<string[]> => {
  const page = await client.send(new QueryCommand({
    TableName: TABLE, IndexName: index, KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': pk }, ExpressionAttributeValues: { ':pk': { S: value } },
  }));
  return (page.Items ?? []).map((item) => `${item.pk.S}/${item.sk.S}`).sort();
};
/** A vendor's open-index entries over all its partitions (the shards, and the key of releases written before them). */
const openIndexed = async (vendorId: string): Promise<string[]> => {
  const partitions = [`OPEN#${vendorId}`, ...Array.from({ length: OPEN_SHARDS }, (_, shard) => `OPEN#${vendorId}#${shard}`)];
  return (await Promise.all(partitions.map((pk) => indexed(OPEN_INDEX.name, OPEN_INDEX.pk, pk)))).flat().sort();
};
const outcomes = async (by: 'transaction' | 'applied' | 'settled'): Promise<string[]> => {
  const rows: string[] = [];
  for await (const row of orders.reads.outcomes({ by }, null)) rows.push(`${row.release.orderId}/${row.release.vendorId}`);
  return rows;
};

test('items in the old shape are given the read indexes\' attributes by the script; the indexes then answer; a second run changes nothing', async () => {
  // Written by this version, then stripped to what an older version stored: no index attributes, no directory.
  const a = order('order_old1', '2022-12-01T10:00:00+05:30', ['ven_a', 'ven_b']);
  const b = order('order_old2', '2022-12-02T11:00:00+05:30', ['ven_a']);
  for (const o of [a, b]) await orders.createOrder(o);
  await orders.putRelease(release(a, 'ven_a'), null);
  await orders.putRelease(release(a, 'ven_b', {
    state: 'SETTLED', sendAt: null, releaseKey: null, appliedEligibility: at('2022-12-05T16:00:00+05:30'), settledAt: at('2022-12-06T11:00:00+05:30'),
  }), null);
  await orders.putRelease(release(b, 'ven_a', { state: 'APPLIED', sendAt: null, releaseKey: null, appliedEligibility: at('2022-12-05T16:00:00+05:30') }), null);
  const stripped = [OPEN_INDEX.pk, OPEN_INDEX.sk, PAID_INDEX.pk, PAID_INDEX.sk, APPLIED_INDEX.pk, APPLIED_INDEX.sk, SETTLED_INDEX.pk, SETTLED_INDEX.sk];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.scan({ TableName: TABLE, ...(start ? { ExclusiveStartKey: start } : {}) });
    for (const item of page.items) {
      if (item.pk === 'MONTHS' || item.pk === 'VENDORS') await doc.delete({ TableName: TABLE, Key: { pk: item.pk, sk: item.sk } });
      else await doc.update({ TableName: TABLE, Key: { pk: item.pk, sk: item.sk }, UpdateExpression: `REMOVE ${stripped.join(', ')}` });
    }
    start = page.lastEvaluatedKey;
  } while (start);
  expect(await outcomes('transaction')).toEqual([]);
  expect(await openIndexed('ven_a')).toEqual([]);

  const lines: string[] = [];
  const result = await runBackfill(['--region', 'ap-south-1', '--table', TABLE, '--endpoint', local.edge.url, '--segments', '2'], (line) => lines.push(line));
  expect(result).toMatchObject({ updated: 5, current: 0, changedMeanwhile: 0, unreadable: [] });
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ done: true, dryRun: false, updated: 5 });

  // The new indexes answer: open by vendor (not the settled one), paid, applied and settled by month.
  expect(await openIndexed('ven_a')).toEqual(['ORDER#order_old1/VENDOR#ven_a', 'ORDER#order_old2/VENDOR#ven_a']);
  expect(await openIndexed('ven_b')).toEqual([]);
  expect(await indexed(PAID_INDEX.name, PAID_INDEX.pk, 'PAID#2022-12')).toEqual(['ORDER#order_old1/META', 'ORDER#order_old2/META']);
  expect(await indexed(APPLIED_INDEX.name, APPLIED_INDEX.pk, 'APPLIED#2022-12')).toEqual(['ORDER#order_old1/VENDOR#ven_b', 'ORDER#order_old2/VENDOR#ven_a']);
  expect(await indexed(SETTLED_INDEX.name, SETTLED_INDEX.pk, 'SETTLED#2022-12')).toEqual(['ORDER#order_old1/VENDOR#ven_b']);
  // And the reads that use them (through the directory of months the backfill noted).
  expect(await outcomes('transaction')).toEqual(['order_old1/ven_a', 'order_old1/ven_b', 'order_old2/ven_a']);
  expect(await outcomes('applied')).toEqual(['order_old1/ven_b', 'order_old2/ven_a']);
  expect(await outcomes('settled')).toEqual(['order_old1/ven_b']);
  expect(await orders.reads.openTotals('ven_a')).toEqual([{ currency: 'INR', count: 2, amount: '201.00' }]);

  const again = await runBackfill(['--region', 'ap-south-1', '--table', TABLE, '--endpoint', local.edge.url], () => undefined);
  expect(again).toMatchObject({ updated: 0, current: 5, changedMeanwhile: 0 });
});

test('a dry run counts without writing; wrong arguments are refused naming them and what to send', async () => {
  const dry = await runBackfill(['--region', 'ap-south-1', '--table', TABLE, '--endpoint', local.edge.url, '--dry-run'], () => undefined);
  expect(dry.updated).toBe(0);
  await expect(runBackfill(['--table', TABLE])).rejects.toThrow('--region is missing');
  await expect(runBackfill(['--region', 'ap-south-1'])).rejects.toThrow(/--table is missing: the orders table \(the stack's OrdersTableName output\)/);
  await expect(runBackfill(['--region', 'ap-south-1', '--table', TABLE, '--segments', '0'])).rejects.toThrow('--segments is "0"; send a whole number from 1 to 64');
});

test('an audit log written before the time index: the script gives each stream\'s head its index keys, the checkpoint writer then signs every stream; conditional and re-runnable', async () => {
  const auditClock = { now: () => Instant.parse('2022-12-02T16:00:00+05:30', 'now') };
  const store = new DynamoAuditStore(doc, DEFAULT_AUDIT_TABLE_NAME, auditClock, new RecordingLogger());
  const deps = { clock: auditClock, logger: new RecordingLogger(), audit: store, auditArchive: store, auditKey: Ed25519AuditKey.inMemory() } as unknown as Dependencies;
  const entry = (orderId: string, n: number): AuditEntry => ({ kind: 'planned', at: at('2022-12-02T16:00:00+05:30'), orderId, vendorId: 'ven_a', detail: { n } });
  await store.append([entry('order_signed', 1)]);
  expect(await writeAuditCheckpoint(deps)).toMatchObject({ written: [1] });
  // Appended by a version without the time index: the same records, no index keys.
  await store.append([entry('order_a', 1), entry('order_a', 2), entry('order_a', 3)]);
  await store.append([entry('order_b', 1)]);
  await store.append([entry('order_b', 2)]);
  const audit = await doc.scan({ TableName: DEFAULT_AUDIT_TABLE_NAME });
  for (const item of audit.items.filter((i) => String(i.pk).startsWith('order#order_') && i.pk !== 'order#order_signed')) {
    await doc.update({ TableName: DEFAULT_AUDIT_TABLE_NAME, Key: { pk: item.pk, sk: item.sk }, UpdateExpression: `REMOVE ${AUDIT_TIME_INDEX.pk}, ${AUDIT_TIME_INDEX.sk}` });
  }
  // The writer asks the index which streams moved: it sees none of them.
  expect(await writeAuditCheckpoint(deps)).toMatchObject({ written: [] });

  const dry = await runBackfill(['--region', 'ap-south-1', '--audit-table', DEFAULT_AUDIT_TABLE_NAME, '--endpoint', local.edge.url, '--dry-run'], () => undefined);
  expect(dry.audit).toMatchObject({ updated: 2, current: 1, other: 2 });
  expect(await writeAuditCheckpoint(deps)).toMatchObject({ written: [] });
  const lines: string[] = [];
  const result = await runBackfill(['--region', 'ap-south-1', '--audit-table', DEFAULT_AUDIT_TABLE_NAME, '--endpoint', local.edge.url], (line) => lines.push(line));
  // The heads (order_a 3, order_b 2) indexed; order_signed's head already was; the checkpoint and the writer's pointer are not records.
  expect(result.audit).toEqual({ scanned: 8, updated: 2, current: 1, changedMeanwhile: 0, other: 2, unreadable: [] });
  expect(result).toMatchObject({ scanned: 0, updated: 0 });
  expect(JSON.parse(lines.at(-1)!)).toMatchObject({ done: true, audit: { updated: 2 } });
  const signed = await writeAuditCheckpoint(deps);
  expect(signed).toMatchObject({ written: [2], heads: 2, refused: [] });
  expect((await store.latestCheckpoints(1))[0].heads.map((h) => [h.stream, h.sequence])).toEqual([['order#order_a', 3], ['order#order_b', 2]]);
  // The records are untouched: the log verifies, the keys are the record's own.
  expect(await verifyAuditLog(deps)).toMatchObject({ ok: true, records: 6, checkpoints: 2, unsignedRecords: 0 });
  const again = await runBackfill(['--region', 'ap-south-1', '--audit-table', DEFAULT_AUDIT_TABLE_NAME, '--endpoint', local.edge.url], () => undefined);
  expect(again.audit).toMatchObject({ updated: 0, current: 3, changedMeanwhile: 0 });
});

test('the audit backfill is conditional: a head appended to or indexed meanwhile is left to its writer', async () => {
  const table = DEFAULT_AUDIT_TABLE_NAME;
  const [record] = sealRecords('order#order_race', null, [{ kind: 'planned', at: at('2022-12-02T16:00:00+05:30'), orderId: 'order_race', detail: {} }], '2022-12-02T10:30:00.000Z');
  await doc.put({ TableName: table, Item: { pk: record.stream, sk: sequenceKey(1), ...record } });
  // Between the scan and the update, a writer indexed the head (as an append does): the update's condition fails.
  const racing = new DocumentClient(client);
  const update = racing.update.bind(racing);
  racing.update = async (input) => {
    if (input.Key.pk === record.stream) await doc.update({ TableName: table, Key: input.Key, UpdateExpression: 'SET timePk = :p, timeSk = :s', ExpressionAttributeValues: { ':p': timeIndexKeys(record).timePk, ':s': timeIndexKeys(record).timeSk } });
    return update(input);
  };
  const result = await backfillAuditTimeIndex(racing, table);
  expect(result).toMatchObject({ changedMeanwhile: 1, unreadable: [] });
});
