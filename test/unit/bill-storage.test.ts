/**
 * The bill's storage per order kept (issue 18 item 5): items sized by DynamoDB's rules as stored in a real dynalite,
 * and what the table's TTL has removed by the stack's clock left out (dynalite does not run TTL; DynamoDB does).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { itemSize, measureTable } from '../../bench/whole-bill';
import { createTableInputs, TTL_ATTRIBUTE } from '../../functions/definitions/tables';
import { startLocalDynamo, type LocalDynamo } from '../adapters/local-dynamodb';

let local: LocalDynamo;
beforeAll(async () => { local = await startLocalDynamo(); });
afterAll(async () => { await local.close(); });

test('an item whose TTL has passed by the clock is not kept; one expiring later, or never, is', async () => {
  const nowS = 1_700_000_000;
  const kept = { pk: { S: 'ORDER#o1' }, sk: { S: 'META' }, amount: { S: '1250.50' } };
  const later = { pk: { S: 'ORDER#o1' }, sk: { S: 'EVENT#1' }, [TTL_ATTRIBUTE]: { N: String(nowS + 86_400 * 365 * 8) } };
  const gone = { pk: { S: 'EXPOSURE#vendor_a' }, sk: { S: 'E#INR#2023-11-14T22:13:20Z#o1' }, [TTL_ATTRIBUTE]: { N: String(nowS - 60) } };
  for (const item of [kept, later, gone]) await local.client.send(new PutItemCommand({ TableName: local.tables.orders, Item: item }));
  const endpoint = await local.client.config.endpoint!();
  const measured = await measureTable(`http://${endpoint.hostname}:${endpoint.port}`, local.tables.orders, nowS, createTableInputs(local.tables));
  expect(measured.items).toBe(2);
  expect(measured.expired).toEqual({ items: 1, bytes: itemSize(gone) + 100 });
  expect(Object.keys(measured.kinds).sort()).toEqual(['EVENT', 'META']);
  expect(measured.bytes - measured.indexBytes).toBe(itemSize(kept) + itemSize(later) + 200);
});
