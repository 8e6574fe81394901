/** The bench's AWS call meter on a real dynalite: DynamoDB's billed units for the table and every index, by its rules. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AwsCallTally, meterAwsCalls } from '../../bench/aws-call-meter';
import { DocumentClient, documentClientConfig } from '../../functions/adapters/dynamodb/document-client';
import { DUE_INDEX, OPEN_INDEX, PLAN_INDEX, TABLES } from '../../functions/definitions/tables';
import { startLocalDynamo, type LocalDynamo } from './local-dynamodb';

let local: LocalDynamo;
let doc: DocumentClient;
let tally: AwsCallTally;
let client: DynamoDBClient;

beforeAll(async () => {
  local = await startLocalDynamo();
  const endpoint = await local.client.config.endpoint!();
  client = new DynamoDBClient(documentClientConfig({
    endpoint: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }));
  meterAwsCalls(client, 'DynamoDB', { [local.tables.orders]: TABLES.orders });
  doc = new DocumentClient(client);
  tally = new AwsCallTally();
});

afterAll(async () => {
  tally.close();
  client.destroy();
  await local.close();
});

/** The units of the calls made by `work`, once their messages reached the tally (delivered between turns). */
async function unitsOf(work: () => Promise<unknown>, calls = 1): Promise<Record<string, number>> {
  tally.calls.clear();
  await work();
  for (let turn = 0; turn < 1000 && [...tally.calls.values()].reduce((n, c) => n + c.calls, 0) < calls; turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  return tally.breakdown('DynamoDB');
}

const release = (extra: Record<string, unknown>) => ({
  pk: 'ORDER#o1', sk: 'VENDOR#v1', orderId: 'o1', vendorId: 'v1', amount: '100.00', currency: 'INR', state: 'SCHEDULED',
  [OPEN_INDEX.pk]: 'OPEN#v1', [OPEN_INDEX.sk]: '2022-12-10T00:00:00Z#o1', [PLAN_INDEX.pk]: 'OPEN#v1', [PLAN_INDEX.sk]: '2022-12-10T00:00:00Z#o1', ...extra,
});
const due = (sendAt: string) => ({ [DUE_INDEX.pk]: 'DUE#1', [DUE_INDEX.sk]: sendAt });

describe('the AWS call meter', () => {
  it('counts a new item once on the table and once on each index whose key it has', async () => {
    const units = await unitsOf(() => doc.put({ TableName: local.tables.orders, Item: release(due('2022-12-10T00:00:00Z')) }));
    expect(units.writeUnits).toBe(1);
    expect(units[`indexWrite:${local.tables.orders}/${DUE_INDEX.name}`]).toBe(1);
    expect(units[`indexWrite:${local.tables.orders}/${OPEN_INDEX.name}`]).toBe(1);
    expect(units[`indexWrite:${local.tables.orders}/${PLAN_INDEX.name}`]).toBe(1);
    expect(units.indexWriteUnits).toBe(3);
  });

  it('rewrites an index entry only when its key or a projected attribute changed', async () => {
    // `state` changes: the due index projects keys only, the open index keys, amount and currency: neither is written;
    // the planning index projects the state: its entry is.
    const units = await unitsOf(() => doc.put({ TableName: local.tables.orders, Item: release({ ...due('2022-12-10T00:00:00Z'), state: 'APPLYING' }) }));
    expect(units[`indexWrite:${local.tables.orders}/${DUE_INDEX.name}`]).toBeUndefined();
    expect(units[`indexWrite:${local.tables.orders}/${OPEN_INDEX.name}`]).toBeUndefined();
    expect(units[`indexWrite:${local.tables.orders}/${PLAN_INDEX.name}`]).toBe(1);
    // `amount` is projected by the open index: its entry is rewritten.
    const amount = await unitsOf(() => doc.put({ TableName: local.tables.orders, Item: release({ ...due('2022-12-10T00:00:00Z'), state: 'APPLYING', amount: '101.00' }) }));
    expect(amount[`indexWrite:${local.tables.orders}/${OPEN_INDEX.name}`]).toBe(1);
    expect(amount[`indexWrite:${local.tables.orders}/${DUE_INDEX.name}`]).toBeUndefined();
  });

  it('counts a changed index key as a delete and a put, and a removed key as a delete', async () => {
    const moved = await unitsOf(() => doc.put({ TableName: local.tables.orders, Item: release({ ...due('2022-12-11T00:00:00Z'), state: 'APPLYING' }) }));
    expect(moved[`indexWrite:${local.tables.orders}/${DUE_INDEX.name}`]).toBe(2);
    const removed = await unitsOf(() => doc.put({ TableName: local.tables.orders, Item: release({ state: 'APPLIED' }) }));
    expect(removed[`indexWrite:${local.tables.orders}/${DUE_INDEX.name}`]).toBe(1);
    // The state is projected by the planning index: its entry is written again (the open index's is not).
    expect(removed[`indexWrite:${local.tables.orders}/${PLAN_INDEX.name}`]).toBe(1);
    expect(removed.indexWriteUnits).toBe(2);
  });

  it('bills the larger of the old and new item by the started KB, and index entries with their 100-byte overhead', async () => {
    const big = await unitsOf(() => doc.put({ TableName: local.tables.orders, Item: release({ ...due('2022-12-12T00:00:00Z'), note: 'x'.repeat(2500) }) }));
    // About 2.7 KB: 3 units on the table; the new due index entry holds keys only (1); the open index's is unchanged.
    expect(big.writeUnits).toBe(3);
    expect(big[`indexWrite:${local.tables.orders}/${DUE_INDEX.name}`]).toBe(1);
    expect(big[`indexWrite:${local.tables.orders}/${OPEN_INDEX.name}`]).toBeUndefined();
    const shrunk = await unitsOf(() => doc.put({ TableName: local.tables.orders, Item: release({ state: 'APPLIED' }) }));
    expect(shrunk.writeUnits).toBe(3);
  });

  it('still bills a refused conditional write, with no index entry, and leaves the caller its answer', async () => {
    const units = await unitsOf(async () => {
      await expect(doc.put({
        TableName: local.tables.orders, Item: release(due('2022-12-13T00:00:00Z')),
        ConditionExpression: 'attribute_not_exists(pk)',
      })).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    });
    expect(units.writeUnits).toBe(1);
    expect(units.indexWriteUnits ?? 0).toBe(0);
    // The meter asks for the old item itself; a caller that did not ask gets none.
    await unitsOf(async () => expect(await doc.put({ TableName: local.tables.orders, Item: release({ state: 'APPLIED' }) })).toEqual({}));
  });

  it('counts reads in 4 KB units, half for an eventually consistent read', async () => {
    const eventual = await unitsOf(() => doc.get({ TableName: local.tables.orders, Key: { pk: 'ORDER#o1', sk: 'VENDOR#v1' } }));
    expect(eventual.readUnits).toBe(0.5);
    const strong = await unitsOf(() => doc.get({ TableName: local.tables.orders, Key: { pk: 'ORDER#o1', sk: 'VENDOR#v1' }, ConsistentRead: true }));
    expect(strong.readUnits).toBe(1);
  });

  it('counts the keys each read asked for by kind, absent ones included, and each query\'s units by its partition\'s kind', async () => {
    const t = local.tables.orders;
    const batch = await unitsOf(() => doc.batchGet(t, [{ pk: 'ORDER#o1', sk: 'VENDOR#v1' }, { pk: 'ORDER#o1', sk: 'VENDOR#v9' }, { pk: 'ORDER#o1', sk: 'META' }], true));
    expect(batch[`readKeys:${t}:ORDER/VENDOR`]).toBe(2);
    expect(batch[`readKeys:${t}:ORDER/META`]).toBe(1);
    expect(batch.readUnits).toBe(3);
    const eventual = await unitsOf(() => doc.get({ TableName: t, Key: { pk: 'ORDER#o1', sk: 'VENDOR#v1' } }));
    expect(eventual[`readKeys:${t}:ORDER/VENDOR (eventual)`]).toBe(1);
    const query = await unitsOf(() => doc.query({ TableName: t, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'ORDER#o1' }, ConsistentRead: true }));
    expect(query[`readQuery:${t}:ORDER`]).toBe(query.readUnits);
  });
});
