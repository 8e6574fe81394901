/** The edge's DynamoDB, through the real AWS SDK: round trip, query, update and a refused conditional write. */
import {
  ConditionalCheckFailedException, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { SharedClock } from '../../../local/clock';
import { credentials, region, startEdge, START, type TestEdge } from '../local-edge';

const table: CreateTableCommandInput = {
  TableName: 'holdback-test',
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
  AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
  BillingMode: 'PAY_PER_REQUEST',
};

let local: TestEdge;
let db: DynamoDBClient;

beforeAll(async () => {
  // The same table twice: creating tables at start is idempotent.
  local = await startEdge({}, new SharedClock({ start: new Date(START), frozen: true }), { tables: [table, table] });
  db = new DynamoDBClient({ endpoint: local.edge.url, region, credentials });
});

afterAll(async () => {
  db.destroy();
  await local.edge.close();
});

test('an item put through the edge is read back, queried and updated', async () => {
  await db.send(new PutItemCommand({
    TableName: 'holdback-test',
    Item: { pk: { S: 'ORDER#order_1' }, sk: { S: 'VENDOR#v1' }, amount: { S: '1250.50' }, version: { N: '1' } },
  }));
  await db.send(new PutItemCommand({
    TableName: 'holdback-test',
    Item: { pk: { S: 'ORDER#order_1' }, sk: { S: 'VENDOR#v2' }, amount: { S: '99.00' }, version: { N: '1' } },
  }));
  const got = await db.send(new GetItemCommand({ TableName: 'holdback-test', Key: { pk: { S: 'ORDER#order_1' }, sk: { S: 'VENDOR#v1' } } }));
  expect(got.Item?.amount).toEqual({ S: '1250.50' });

  const queried = await db.send(new QueryCommand({
    TableName: 'holdback-test',
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :vendor)',
    ExpressionAttributeValues: { ':pk': { S: 'ORDER#order_1' }, ':vendor': { S: 'VENDOR#' } },
  }));
  expect(queried.Items?.map((item) => item.sk.S)).toEqual(['VENDOR#v1', 'VENDOR#v2']);

  const updated = await db.send(new UpdateItemCommand({
    TableName: 'holdback-test',
    Key: { pk: { S: 'ORDER#order_1' }, sk: { S: 'VENDOR#v1' } },
    UpdateExpression: 'SET version = version + :one',
    ConditionExpression: 'version = :expected',
    ExpressionAttributeValues: { ':one': { N: '1' }, ':expected': { N: '1' } },
    ReturnValues: 'ALL_NEW',
  }));
  expect(updated.Attributes?.version).toEqual({ N: '2' });
});

test('a conditional write that does not hold fails with ConditionalCheckFailedException and changes nothing', async () => {
  const key = { pk: { S: 'ORDER#order_2' }, sk: { S: 'VENDOR#v1' } };
  await db.send(new PutItemCommand({ TableName: 'holdback-test', Item: { ...key, state: { S: 'held' } }, ConditionExpression: 'attribute_not_exists(pk)' }));
  await expect(db.send(new PutItemCommand({
    TableName: 'holdback-test', Item: { ...key, state: { S: 'released' } }, ConditionExpression: 'attribute_not_exists(pk)',
  }))).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  const got = await db.send(new GetItemCommand({ TableName: 'holdback-test', Key: key }));
  expect(got.Item?.state).toEqual({ S: 'held' });
});

test('sort keys come back in the order of their UTF-8 bytes, as DynamoDB orders them (the in-memory store keeps its keys as strings)', async () => {
  // UTF-16 would put the emoji (a surrogate pair, 0xD83D...) before U+E000 and U+FFFD; UTF-8 puts it after them.
  const keys = ['z', 'é', '\ue000', '\ufffd', '😀', 'A', '~'];
  for (const sk of keys) {
    await db.send(new PutItemCommand({ TableName: 'holdback-test', Item: { pk: { S: 'ORDER#utf8' }, sk: { S: sk } } }));
  }
  const answer = await db.send(new QueryCommand({
    TableName: 'holdback-test', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'ORDER#utf8' } },
  }));
  const byUtf8 = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  expect(answer.Items?.map((item) => item.sk.S)).toEqual(byUtf8);
  expect(byUtf8.indexOf('😀')).toBeGreaterThan(byUtf8.indexOf('\ufffd'));
});
