/**
 * Adds the indexes a newer version defines to the tables of a data folder made by an older one. dynalite accepts an
 * UpdateTable that adds a global secondary index but ignores it, so a table that lacks an index is rebuilt:
 * (1) every item is copied into a staging table `<name>__migrating` made with the new definition, then a marker item
 *     is put in it; (2) the original is deleted and created again with the new definition; (3) the items are copied
 *     back (dynalite fills the new index from their attributes); (4) the staging table is deleted.
 * Each step is idempotent (a put of the same item twice is harmless) and the original is touched only once the marker
 * says the staging copy is whole, so a kill at any moment loses nothing: the next start sees the staging table and
 * resumes where the marker says.
 */
import {
  BatchWriteItemCommand, CreateTableCommand, DeleteTableCommand, DescribeTableCommand, GetItemCommand,
  PutItemCommand, ResourceNotFoundException, ScanCommand,
  type AttributeValue, type CreateTableCommandInput, type DynamoDBClient, type TableDescription, type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { pause } from './in-flight';

/** The staging table's name for a table being migrated. */
export const stagingName = (table: string): string => `${table}__migrating`;
/**
 * The marker item in the staging table, put once every item is copied into it. Its key can be no item of Holdback's
 * (every partition key of theirs starts with a letter); it is never copied back.
 */
export const MIGRATION_MARKER = { pk: '\u0001holdback~migration', sk: 'copied' } as const;
/** BatchWriteItem's own limit. */
const BATCH = 25;

type Item = Record<string, AttributeValue>;

async function describe(client: DynamoDBClient, name: string): Promise<TableDescription | null> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: name }))).Table ?? null;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return null;
    throw error;
  }
}

/** The indexes `wanted` defines that `table` lacks (by name). */
export function missingIndexes(table: TableDescription, wanted: CreateTableCommandInput): string[] {
  const present = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  return (wanted.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName ?? '').filter((name) => !present.has(name));
}

const keyNames = (input: CreateTableCommandInput): string[] => (input.KeySchema ?? []).map((key) => key.AttributeName ?? '');

const markerItem = (keys: string[]): Item => ({
  [keys[0]]: { S: MIGRATION_MARKER.pk }, ...(keys[1] ? { [keys[1]]: { S: MIGRATION_MARKER.sk } } : {}),
});

const isMarker = (item: Item, keys: string[]): boolean =>
  item[keys[0]]?.S === MIGRATION_MARKER.pk && (keys.length < 2 || item[keys[1]]?.S === MIGRATION_MARKER.sk);

/**
 * What the staging copy gives an item beyond its attributes as they are: the key attributes of an index the new
 * definition adds over attributes an older version did not write (the unsent releases' planning index, see
 * plan-keys.ts), as the upgrade's backfill does on AWS. Identity for every other item.
 */
export type ItemFill = (item: Item) => Item;

/** Every item of `from` put into `to` (the marker left out), attribute values as they are (or filled); returns how many. */
async function copyItems(client: DynamoDBClient, from: string, to: string, keys: string[], fill: ItemFill = (item) => item): Promise<number> {
  let count = 0;
  let start: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: from, ConsistentRead: true, ExclusiveStartKey: start }));
    const items = (page.Items ?? []).filter((item) => !isMarker(item, keys)).map(fill);
    for (let i = 0; i < items.length; i += BATCH) {
      let requests: WriteRequest[] = items.slice(i, i + BATCH).map((Item) => ({ PutRequest: { Item } }));
      while (requests.length > 0) {
        const answer = await client.send(new BatchWriteItemCommand({ RequestItems: { [to]: requests } }));
        requests = answer.UnprocessedItems?.[to] ?? [];
      }
    }
    count += items.length;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/** How many items `table` holds. */
async function countItems(client: DynamoDBClient, table: string): Promise<number> {
  let count = 0;
  let start: Item | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, Select: 'COUNT', ConsistentRead: true, ExclusiveStartKey: start }));
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

async function create(client: DynamoDBClient, input: CreateTableCommandInput): Promise<void> {
  if (!(await describe(client, input.TableName ?? ''))) await client.send(new CreateTableCommand(input));
  for (;;) {
    if ((await describe(client, input.TableName ?? ''))?.TableStatus === 'ACTIVE') return;
    await pause(5);
  }
}

async function drop(client: DynamoDBClient, name: string): Promise<void> {
  try {
    await client.send(new DeleteTableCommand({ TableName: name }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  while (await describe(client, name)) await pause(5);
}

async function marked(client: DynamoDBClient, wanted: CreateTableCommandInput): Promise<boolean> {
  const answer = await client.send(new GetItemCommand({
    TableName: stagingName(wanted.TableName ?? ''), Key: markerItem(keyNames(wanted)), ConsistentRead: true,
  }));
  return answer.Item !== undefined;
}

/** Step 1: the staging table, made with the new definition, holds every item of the original and then the marker. */
export async function stageTable(client: DynamoDBClient, wanted: CreateTableCommandInput, fill?: ItemFill): Promise<number> {
  const name = wanted.TableName ?? '';
  const keys = keyNames(wanted);
  await create(client, { ...wanted, TableName: stagingName(name) });
  const count = await copyItems(client, name, stagingName(name), keys, fill);
  await client.send(new PutItemCommand({ TableName: stagingName(name), Item: markerItem(keys) }));
  return count;
}

/** Step 2 alone: the original deleted unless it already has every index (a kill test stops here). */
export async function dropOutdated(client: DynamoDBClient, wanted: CreateTableCommandInput): Promise<void> {
  const original = await describe(client, wanted.TableName ?? '');
  if (original && missingIndexes(original, wanted).length > 0) await drop(client, wanted.TableName ?? '');
}

/** Steps 2 to 4, once the marker is in the staging table: the original made again, the items back, the staging gone. */
export async function restoreTable(client: DynamoDBClient, wanted: CreateTableCommandInput): Promise<number> {
  const name = wanted.TableName ?? '';
  await dropOutdated(client, wanted);
  await create(client, wanted);
  const count = await copyItems(client, stagingName(name), name, keyNames(wanted));
  await drop(client, stagingName(name));
  return count;
}

/**
 * Migrates each table of `tables` that exists and lacks one of its indexes, and finishes any migration a kill cut
 * short. A table that does not exist (and has no staging copy) is left to CreateTable. One line is logged per table.
 */
export async function migrateTables(client: DynamoDBClient, tables: CreateTableCommandInput[], log: (line: string) => void, fill?: ItemFill): Promise<void> {
  for (const wanted of tables) {
    const name = wanted.TableName ?? '';
    const staging = await describe(client, stagingName(name));
    const original = await describe(client, name);
    const missing = original ? missingIndexes(original, wanted) : [];
    if (!staging && (!original || missing.length === 0)) continue;
    const adding = missing.length > 0
      ? `adding ${missing.length === 1 ? 'index' : 'indexes'} ${missing.join(', ')}`
      : 'finishing its rebuild with the new indexes';
    if (!staging || !(await marked(client, wanted))) {
      // Nothing of the original was touched yet (it is deleted only once the marker is in): it is copied (again) in full.
      if (!original) {
        throw new Error(`the table ${name} is missing while its copy ${stagingName(name)} is incomplete (no marker): restore the data folder from a backup`);
      }
      log(`migrating table ${name}: ${adding} (${await countItems(client, name)} items)${staging ? ', resumed after a stop' : ''}`);
      await stageTable(client, wanted, fill);
    } else {
      log(`migrating table ${name}: ${adding} (${(await countItems(client, stagingName(name))) - 1} items), resumed after a stop: copying them back`);
    }
    await restoreTable(client, wanted);
  }
}
