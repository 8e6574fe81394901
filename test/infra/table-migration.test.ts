/**
 * A data folder made by an older version, whose config table lacks the approvals' state index (dynalite ignores an
 * UpdateTable that adds one): the start rebuilds the table with it and keeps every item exactly; a start after a kill
 * in the middle of the rebuild finishes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, PutItemCommand,
  QueryCommand, ScanCommand, type AttributeValue, type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { startLocal, type LocalRuntime } from '../../local/runtime';
import { dataFolderPaths } from '../../local/data-folder';
import { LocalDynamo } from '../../local/edge/dynamodb';
import { dropOutdated, stageTable, stagingName } from '../../local/edge/table-migration';
import {
  APPLIED_INDEX, APPROVAL_INDEX, DEFAULT_TABLE_NAMES, DUE_INDEX, LEGACY_PLAN_INDEX, OPEN_INDEX, PLAN_INDEX, OPEN_SHARDS, PAID_INDEX, SETTLED_INDEX, WIDE_PLAN_INDEX, createTableInputs,
} from '../../functions/definitions/tables';

jest.setTimeout(120_000);

const CONFIG = DEFAULT_TABLE_NAMES.config;
const folders: string[] = [];
const runtimes: LocalRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const newConfig = (): CreateTableCommandInput => createTableInputs().find((table) => table.TableName === CONFIG)!;
/** The config table as the version before approvals defined it: no state index. */
const oldConfig = (): CreateTableCommandInput => ({
  ...newConfig(),
  AttributeDefinitions: newConfig().AttributeDefinitions!.filter((a) => a.AttributeName === 'pk' || a.AttributeName === 'sk'),
  GlobalSecondaryIndexes: undefined,
});

async function start(dir: string, lines: string[] = []): Promise<LocalRuntime> {
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, containers: 1, dataDir: dir, log: (line) => lines.push(line) });
  runtimes.push(runtime);
  return runtime;
}
async function stop(runtime: LocalRuntime): Promise<void> {
  runtimes.splice(runtimes.indexOf(runtime), 1);
  await runtime.close();
}

/** dynalite alone on the folder's tables (Holdback stopped), for what an older version or a kill left there. */
async function withTables<T>(dir: string, work: (client: DynamoDBClient) => Promise<T>): Promise<T> {
  const dynamo = new LocalDynamo(dataFolderPaths(dir).tables);
  const client = new DynamoDBClient({ endpoint: await dynamo.url(), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    return await work(client);
  } finally {
    client.destroy();
    await dynamo.close();
  }
}

async function scanAll(client: DynamoDBClient, table: string): Promise<Array<Record<string, AttributeValue>>> {
  const items: Array<Record<string, AttributeValue>> = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
/** Items in a fixed order with their attributes sorted, so two scans compare exactly. */
const canonical = (items: Array<Record<string, AttributeValue>>): string[] =>
  items.map((item) => JSON.stringify(Object.keys(item).sort().map((key) => [key, item[key]]))).sort();

async function waitFor(client: DynamoDBClient, name: string, present: boolean): Promise<void> {
  for (;;) {
    const status = await client.send(new DescribeTableCommand({ TableName: name })).then((t) => t.Table?.TableStatus, () => 'gone');
    if (present ? status === 'ACTIVE' : status === 'gone') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const json = (method: string, body: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * A folder as an older version leaves it: a policy, settings naming four eyes for settings changes, and a pending
 * approval written by this version; then the config table rebuilt with the old definition (no state index), its items
 * put back as they were. Returns the approval's id and the config items.
 */
async function oldFolder(extraItems = 0): Promise<{ dir: string; approvalId: string; items: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'holdback-migration-'));
  folders.push(dir);
  const runtime = await start(dir);
  const url = runtime.api.url;
  expect((await fetch(`${url}/vendors/ven_kept/policy`, json('PUT', { scheduleOption: 1, release: { kind: 'immediate' }, actor: 'test', reason: 'kept' }))).status).toBe(200);
  expect((await fetch(`${url}/settings`, json('PUT', { approvals: { settingsChange: {} }, actor: 'admin@test', reason: 'four eyes on settings' }))).status).toBe(200);
  const asked = await fetch(`${url}/settings`, json('PUT', { approvals: {}, actor: 'maker@test', reason: 'lift four eyes' }));
  expect(asked.status).toBe(202);
  const approvalId = /"(ap_\w+)"/.exec(await asked.text())![1];
  await stop(runtime);

  const items = await withTables(dir, async (client) => {
    const kept = await scanAll(client, CONFIG);
    expect(kept.some((item) => item[APPROVAL_INDEX.pk]?.S === 'pending')).toBe(true);
    await client.send(new DeleteTableCommand({ TableName: CONFIG }));
    await waitFor(client, CONFIG, false);
    await client.send(new CreateTableCommand(oldConfig()));
    await waitFor(client, CONFIG, true);
    for (let i = 0; i < extraItems; i += 1) {
      kept.push({ pk: { S: `POLICY#ven_bulk${i}` }, sk: { S: 'V#0000000001' }, n: { N: String(i) }, tags: { SS: ['a', `b${i}`] }, raw: { B: Uint8Array.from([i % 256, 0, 255]) } });
    }
    for (const Item of kept) await client.send(new PutItemCommand({ TableName: CONFIG, Item }));
    const described = await client.send(new DescribeTableCommand({ TableName: CONFIG }));
    expect(described.Table?.GlobalSecondaryIndexes ?? []).toEqual([]);
    return canonical(await scanAll(client, CONFIG));
  });
  return { dir, approvalId, items };
}

async function expectMigrated(dir: string, items: string[]): Promise<void> {
  await withTables(dir, async (client) => {
    expect(canonical(await scanAll(client, CONFIG))).toEqual(items);
    const described = await client.send(new DescribeTableCommand({ TableName: CONFIG }));
    expect(described.Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual([APPROVAL_INDEX.name]);
    expect((await client.send(new ListTablesCommand({}))).TableNames).not.toContain(stagingName(CONFIG));
  });
}

async function expectApprovals(runtime: LocalRuntime, approvalId: string): Promise<void> {
  const listed = await fetch(`${runtime.api.url}/approvals?state=pending`);
  const text = await listed.text();
  expect([listed.status, text]).toEqual([200, expect.stringContaining(approvalId)]);
  const policy = await fetch(`${runtime.api.url}/vendors/ven_kept/policy`);
  expect(policy.status).toBe(200);
}

test('a config table made without the approvals index is rebuilt with it at the start; every item is kept exactly', async () => {
  const { dir, approvalId, items } = await oldFolder(300);
  const lines: string[] = [];
  const runtime = await start(dir, lines);
  expect(lines.filter((line) => line.startsWith('migrating table'))).toEqual([
    `migrating table ${CONFIG}: adding index ${APPROVAL_INDEX.name} (${items.length} items)`,
  ]);
  await expectApprovals(runtime, approvalId);
  await stop(runtime);
  await expectMigrated(dir, items);

  // The next start has nothing to migrate.
  const again: string[] = [];
  await stop(await start(dir, again));
  expect(again.filter((line) => line.startsWith('migrating table'))).toEqual([]);
});

test('a kill after the copy and the delete of the original: the next start copies the items back', async () => {
  const { dir, approvalId, items } = await oldFolder();
  await withTables(dir, async (client) => {
    await stageTable(client, newConfig());
    await dropOutdated(client, newConfig());
    expect((await client.send(new ListTablesCommand({}))).TableNames).not.toContain(CONFIG);
  });
  const lines: string[] = [];
  const runtime = await start(dir, lines);
  expect(lines.filter((line) => line.startsWith('migrating table'))).toEqual([
    `migrating table ${CONFIG}: finishing its rebuild with the new indexes (${items.length} items), resumed after a stop: copying them back`,
  ]);
  await expectApprovals(runtime, approvalId);
  await stop(runtime);
  await expectMigrated(dir, items);
});

test('a kill during the copy (the staging table without its marker): the next start copies again from the untouched original', async () => {
  const { dir, approvalId, items } = await oldFolder();
  await withTables(dir, async (client) => {
    await client.send(new CreateTableCommand({ ...newConfig(), TableName: stagingName(CONFIG) }));
    await waitFor(client, stagingName(CONFIG), true);
    await client.send(new PutItemCommand({ TableName: stagingName(CONFIG), Item: (await scanAll(client, CONFIG))[0] }));
  });
  const lines: string[] = [];
  const runtime = await start(dir, lines);
  expect(lines.filter((line) => line.startsWith('migrating table'))).toEqual([
    `migrating table ${CONFIG}: adding index ${APPROVAL_INDEX.name} (${items.length} items), resumed after a stop`,
  ]);
  await expectApprovals(runtime, approvalId);
  await stop(runtime);
  await expectMigrated(dir, items);
});

test('an orders table made before the read indexes gets them all; items carrying their keys are found through them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'holdback-migration-'));
  folders.push(dir);
  await stop(await start(dir));
  const orders = createTableInputs().find((table) => table.TableName === DEFAULT_TABLE_NAMES.orders)!;
  const due = orders.GlobalSecondaryIndexes!.filter((index) => index.IndexName === DUE_INDEX.name);
  const items = await withTables(dir, async (client) => {
    await client.send(new DeleteTableCommand({ TableName: orders.TableName }));
    await waitFor(client, orders.TableName!, false);
    await client.send(new CreateTableCommand({
      ...orders,
      AttributeDefinitions: orders.AttributeDefinitions!.filter((a) => ['pk', 'sk', DUE_INDEX.pk, DUE_INDEX.sk].includes(a.AttributeName!)),
      GlobalSecondaryIndexes: due,
    }));
    await waitFor(client, orders.TableName!, true);
    for (let i = 0; i < 40; i += 1) {
      await client.send(new PutItemCommand({
        TableName: orders.TableName,
        Item: {
          pk: { S: `ORDER#order_${i}` }, sk: { S: 'VENDOR#ven_a' }, amount: { S: `${i}.50` }, currency: { S: 'INR' },
          [OPEN_INDEX.pk]: { S: `OPEN#ven_a#${i % OPEN_SHARDS}` }, [OPEN_INDEX.sk]: { S: `2022-12-${String(10 + (i % 10)).padStart(2, '0')}#order_${i}` },
        },
      }));
    }
    return canonical(await scanAll(client, orders.TableName!));
  });
  const lines: string[] = [];
  await stop(await start(dir, lines));
  expect(lines.filter((line) => line.startsWith('migrating table'))).toEqual([
    `migrating table ${orders.TableName}: adding indexes ${[OPEN_INDEX.name, PAID_INDEX.name, APPLIED_INDEX.name, SETTLED_INDEX.name, PLAN_INDEX.name].join(', ')} (40 items)`,
  ]);
  await withTables(dir, async (client) => {
    expect(canonical(await scanAll(client, orders.TableName!))).toEqual(items);
    const open = await client.send(new QueryCommand({
      TableName: orders.TableName, IndexName: OPEN_INDEX.name, KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': OPEN_INDEX.pk }, ExpressionAttributeValues: { ':pk': { S: 'OPEN#ven_a#3' } },
    }));
    expect((open.Items ?? []).map((item) => item.pk.S).sort()).toEqual(['ORDER#order_11', 'ORDER#order_19', 'ORDER#order_27', 'ORDER#order_3', 'ORDER#order_35']);
  });
});

test('an orders table made with the legacy planning index (the version before) gets the sparse one; unsent releases get its keys as they are copied, sent ones none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'holdback-migration-'));
  folders.push(dir);
  await stop(await start(dir));
  const orders = createTableInputs().find((table) => table.TableName === DEFAULT_TABLE_NAMES.orders)!;
  const release = (orderId: string, state: string): Record<string, AttributeValue> => ({
    pk: { S: `ORDER#${orderId}` }, sk: { S: 'VENDOR#ven_plan' }, amount: { S: '100.50' }, currency: { S: 'INR' }, state: { S: state },
    policyVersion: { N: '1' }, rule: { M: { kind: { S: 'after_payment' }, delay: { S: 'P3D' } } }, scheduleOption: { N: '1' },
    transactionTime: { S: '2022-12-01T10:00:00+05:30' }, maxEligibility: { S: '2022-12-16T10:00:00+05:30' },
    targetEligibility: { S: '2022-12-04T10:00:00+05:30' }, sendAt: { S: '2022-12-04T09:00:00+05:30' }, releaseKey: { S: `rel-${orderId}` },
    attempts: { L: [] }, version: { N: '1' }, updatedAt: { S: '2022-12-01T10:00:00+05:30' },
    [OPEN_INDEX.pk]: { S: 'OPEN#ven_plan#1' }, [OPEN_INDEX.sk]: { S: `2022-12-16T04:30:00.000Z#${orderId}` },
  });
  await withTables(dir, async (client) => {
    await client.send(new DeleteTableCommand({ TableName: orders.TableName }));
    await waitFor(client, orders.TableName!, false);
    // The version before: the same indexes, with openPlanByVendor (the open index's keys) where planByVendor is now.
    await client.send(new CreateTableCommand({
      ...orders,
      AttributeDefinitions: orders.AttributeDefinitions!.filter((a) => a.AttributeName !== PLAN_INDEX.pk && a.AttributeName !== PLAN_INDEX.sk),
      GlobalSecondaryIndexes: [...orders.GlobalSecondaryIndexes!.filter((index) => index.IndexName !== PLAN_INDEX.name), {
        IndexName: LEGACY_PLAN_INDEX.name,
        KeySchema: [{ AttributeName: LEGACY_PLAN_INDEX.pk, KeyType: 'HASH' }, { AttributeName: LEGACY_PLAN_INDEX.sk, KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...LEGACY_PLAN_INDEX.include] },
      }],
    }));
    await waitFor(client, orders.TableName!, true);
    await client.send(new PutItemCommand({ TableName: orders.TableName, Item: release('order_unsent', 'SCHEDULED') }));
    await client.send(new PutItemCommand({ TableName: orders.TableName, Item: release('order_sent', 'APPLYING') }));
  });
  const lines: string[] = [];
  await stop(await start(dir, lines));
  expect(lines.filter((line) => line.startsWith('migrating table'))).toEqual([`migrating table ${orders.TableName}: adding index ${PLAN_INDEX.name} (2 items)`]);
  await withTables(dir, async (client) => {
    const planned = await client.send(new QueryCommand({
      TableName: orders.TableName, IndexName: PLAN_INDEX.name, KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PLAN_INDEX.pk }, ExpressionAttributeValues: { ':pk': { S: 'OPEN#ven_plan#1' } },
    }));
    expect((planned.Items ?? []).map((item) => [item.pk.S, item[PLAN_INDEX.sk]?.S])).toEqual([['ORDER#order_unsent', '2022-12-16T04:30:00.000Z#order_unsent']]);
    // Every other attribute as it was.
    const items = canonical(await scanAll(client, orders.TableName!));
    const unsent = release('order_unsent', 'SCHEDULED');
    expect(items).toEqual(canonical([
      { ...unsent, [PLAN_INDEX.pk]: unsent[OPEN_INDEX.pk], [PLAN_INDEX.sk]: unsent[OPEN_INDEX.sk] }, release('order_sent', 'APPLYING'),
    ]));
  });
});

test('an orders table made with the wide planning index (the version before this one) gets the narrow one over the same keys; every item is kept exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'holdback-migration-'));
  folders.push(dir);
  await stop(await start(dir));
  const orders = createTableInputs().find((table) => table.TableName === DEFAULT_TABLE_NAMES.orders)!;
  const release = (orderId: string, state: string, planned: boolean): Record<string, AttributeValue> => ({
    pk: { S: `ORDER#${orderId}` }, sk: { S: 'VENDOR#ven_wide' }, amount: { S: '100.50' }, currency: { S: 'INR' }, state: { S: state },
    policyVersion: { N: '1' }, rule: { M: { kind: { S: 'after_payment' }, delay: { S: 'P3D' } } }, scheduleOption: { N: '1' },
    transactionTime: { S: '2022-12-01T10:00:00+05:30' }, maxEligibility: { S: '2022-12-16T10:00:00+05:30' },
    targetEligibility: { S: '2022-12-04T10:00:00+05:30' }, reason: { S: 'planned' }, reasonCode: { S: 'planned' }, releaseKey: { S: `rel-${orderId}` },
    attempts: { L: [] }, version: { N: '1' }, updatedAt: { S: '2022-12-01T10:00:00+05:30' },
    [OPEN_INDEX.pk]: { S: 'OPEN#ven_wide#1' }, [OPEN_INDEX.sk]: { S: `2022-12-16T04:30:00.000Z#${orderId}` },
    ...(planned ? { [WIDE_PLAN_INDEX.pk]: { S: 'OPEN#ven_wide#1' }, [WIDE_PLAN_INDEX.sk]: { S: `2022-12-16T04:30:00.000Z#${orderId}` } } : {}),
  });
  let items: string[] = [];
  await withTables(dir, async (client) => {
    await client.send(new DeleteTableCommand({ TableName: orders.TableName }));
    await waitFor(client, orders.TableName!, false);
    // The version before: planByVendor (every planning field) where unsentByVendor is now, over the same keys.
    await client.send(new CreateTableCommand({
      ...orders,
      GlobalSecondaryIndexes: [...orders.GlobalSecondaryIndexes!.filter((index) => index.IndexName !== PLAN_INDEX.name), {
        IndexName: WIDE_PLAN_INDEX.name,
        KeySchema: [{ AttributeName: WIDE_PLAN_INDEX.pk, KeyType: 'HASH' }, { AttributeName: WIDE_PLAN_INDEX.sk, KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...WIDE_PLAN_INDEX.include] },
      }],
    }));
    await waitFor(client, orders.TableName!, true);
    await client.send(new PutItemCommand({ TableName: orders.TableName, Item: release('order_unsent', 'SCHEDULED', true) }));
    await client.send(new PutItemCommand({ TableName: orders.TableName, Item: release('order_sent', 'APPLYING', false) }));
    items = canonical(await scanAll(client, orders.TableName!));
  });
  const lines: string[] = [];
  await stop(await start(dir, lines));
  expect(lines.filter((line) => line.startsWith('migrating table'))).toEqual([`migrating table ${orders.TableName}: adding index ${PLAN_INDEX.name} (2 items)`]);
  await withTables(dir, async (client) => {
    expect((await client.send(new DescribeTableCommand({ TableName: orders.TableName }))).Table!.GlobalSecondaryIndexes!.map((i) => i.IndexName))
      .not.toContain(WIDE_PLAN_INDEX.name);
    const planned = await client.send(new QueryCommand({
      TableName: orders.TableName, IndexName: PLAN_INDEX.name, KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': PLAN_INDEX.pk }, ExpressionAttributeValues: { ':pk': { S: 'OPEN#ven_wide#1' } },
    }));
    // The unsent release alone, with the narrow projection: what a preview reads, not its release key or its words.
    expect((planned.Items ?? []).map((item) => [item.pk.S, item[PLAN_INDEX.sk]?.S, item.releaseKey, item.reason, item.state?.S]))
      .toEqual([['ORDER#order_unsent', '2022-12-16T04:30:00.000Z#order_unsent', undefined, undefined, 'SCHEDULED']]);
    expect(canonical(await scanAll(client, orders.TableName!))).toEqual(items);
  });
});
