/**
 * The local Lambda containers' DynamoDB calls over a MessagePort to dynalite's thread (local/lambda/dynamo-channel.ts,
 * local/edge/dynalite-channel.js): every call answers exactly as over loopback HTTP (items, consumed capacity,
 * conditional failures, validation errors, the wire answer's status, headers and body), in memory and in a data folder
 * (an acknowledged write is there after a restart); and the runtime's containers send their DynamoDB calls that way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BroadcastChannel, MessageChannel } from 'node:worker_threads';
import {
  BatchGetItemCommand, DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand,
  UpdateItemCommand, type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { LocalDynamo } from '../../../local/edge/dynamodb';
import { DynamoChannelHandler, dynamoOverChannel } from '../../../local/lambda/dynamo-channel';
import { startHarness } from '../../e2e/harness';
import { PROBE_CHANNEL, type HandlerSeen } from './request-handler-probe';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const region = 'us-east-1';

const tableNamed = (TableName: string): CreateTableCommandInput => ({
  TableName,
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
  AttributeDefinitions: [
    { AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }, { AttributeName: 'state', AttributeType: 'S' },
  ],
  GlobalSecondaryIndexes: [{ IndexName: 'by-state', KeySchema: [{ AttributeName: 'state', KeyType: 'HASH' }, { AttributeName: 'pk', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } }],
  BillingMode: 'PAY_PER_REQUEST',
});

/** One client over HTTP, one over a channel of the same dynalite. */
function clients(dynamo: LocalDynamo, url: string): { http: DynamoDBClient; channel: DynamoDBClient } {
  const http = new DynamoDBClient({ endpoint: url, region, credentials });
  const channel = new DynamoDBClient({ endpoint: url, region, credentials });
  dynamoOverChannel(dynamo.channel())(channel, 'DynamoDB', {} as never);
  return { http, channel };
}

/** What a call answered, or how it failed, without what differs on every call (request ids, timings). */
async function outcome(call: Promise<unknown>): Promise<unknown> {
  try {
    const { $metadata, ...answer } = await call as { $metadata: { httpStatusCode?: number } };
    return { status: $metadata.httpStatusCode, answer };
  } catch (error) {
    const e = error as { name: string; message: string; $fault?: string; $metadata?: { httpStatusCode?: number } };
    return { status: e.$metadata?.httpStatusCode, error: e.name, message: e.message, fault: e.$fault };
  }
}

/** The same calls against `table`, answered with the table's name written as TABLE. */
async function walk(db: DynamoDBClient, table: string): Promise<unknown[]> {
  const TableName = table;
  const key = (sk: string) => ({ pk: { S: 'ORDER#o-1' }, sk: { S: sk } });
  const calls: Array<() => Promise<unknown>> = [
    () => db.send(new PutItemCommand({ TableName, Item: { ...key('VENDOR#v1'), state: { S: 'PLANNED' }, amount: { S: '1250.50' }, version: { N: '1' }, note: { S: 'Café ₹' } }, ReturnConsumedCapacity: 'TOTAL' })),
    () => db.send(new PutItemCommand({ TableName, Item: { ...key('VENDOR#v2'), state: { S: 'PLANNED' }, big: { S: 'x'.repeat(5000) } }, ConditionExpression: 'attribute_not_exists(pk)', ReturnConsumedCapacity: 'INDEXES' })),
    // A conditional write that does not hold, with the item it found.
    () => db.send(new PutItemCommand({ TableName, Item: { ...key('VENDOR#v1'), state: { S: 'PLANNED' } }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })),
    () => db.send(new GetItemCommand({ TableName, Key: key('VENDOR#v1'), ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' })),
    () => db.send(new UpdateItemCommand({
      TableName, Key: key('VENDOR#v1'), UpdateExpression: 'SET #v = #v + :one, #s = :s', ConditionExpression: '#v = :expected',
      ExpressionAttributeNames: { '#v': 'version', '#s': 'state' }, ExpressionAttributeValues: { ':one': { N: '1' }, ':expected': { N: '1' }, ':s': { S: 'APPLIED' } }, ReturnValues: 'ALL_NEW',
    })),
    () => db.send(new QueryCommand({ TableName, IndexName: 'by-state', KeyConditionExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':s': { S: 'PLANNED' } }, ReturnConsumedCapacity: 'INDEXES' })),
    // dynalite answers a batch's items in the order its reads finish: sorted here.
    async () => {
      const answer = await db.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: [key('VENDOR#v1'), key('VENDOR#v2'), key('VENDOR#none')] } } }));
      answer.Responses?.[TableName]?.sort((a, b) => (a.sk.S ?? '').localeCompare(b.sk.S ?? ''));
      return answer;
    },
    // Validation errors: a key of the wrong type, an unused expression value, an item over 400 KB.
    () => db.send(new GetItemCommand({ TableName, Key: { pk: { N: '1' }, sk: { S: 'x' } } })),
    () => db.send(new PutItemCommand({ TableName, Item: key('VENDOR#v3'), ConditionExpression: 'attribute_not_exists(pk)', ExpressionAttributeValues: { ':unused': { S: 'x' } } })),
    () => db.send(new PutItemCommand({ TableName, Item: { ...key('VENDOR#v4'), big: { S: 'x'.repeat(410 * 1024) } } })),
    () => db.send(new GetItemCommand({ TableName: 'no-such-table', Key: key('VENDOR#v1') })),
    () => db.send(new DeleteItemCommand({ TableName, Key: key('VENDOR#v2'), ReturnValues: 'ALL_OLD', ReturnConsumedCapacity: 'TOTAL' })),
  ];
  const outcomes: unknown[] = [];
  for (const call of calls) outcomes.push(JSON.parse(JSON.stringify(await outcome(call())).split(table).join('TABLE')));
  return outcomes;
}

async function withDynamo(path: string | undefined, use: (dynamo: LocalDynamo, url: string) => Promise<void>): Promise<void> {
  const dynamo = new LocalDynamo(path);
  try {
    const url = await dynamo.url();
    // Each ACTIVE before the first write (in a data folder a new table is CREATING for a moment).
    await dynamo.createTables(url, region, [tableNamed('over-http'), tableNamed('over-channel')]);
    await use(dynamo, url);
  } finally {
    await dynamo.close();
  }
}

test('every call answers over the channel exactly as over HTTP: items, capacity, conditional failures, validation errors', async () => {
  await withDynamo(undefined, async (dynamo, url) => {
    const { http, channel } = clients(dynamo, url);
    const overHttp = await walk(http, 'over-http');
    const overChannel = await walk(channel, 'over-channel');
    expect(overChannel).toEqual(overHttp);
    // The walk met what it was written to meet: a refused condition, validation errors, an answer with capacity.
    expect(overHttp).toContainEqual(expect.objectContaining({ error: 'ConditionalCheckFailedException' }));
    expect(overHttp).toContainEqual(expect.objectContaining({ error: 'ValidationException', message: 'Item size has exceeded the maximum allowed size' }));
    expect(overHttp).toContainEqual(expect.objectContaining({ error: 'ResourceNotFoundException' }));
    expect((overHttp[0] as { answer: { ConsumedCapacity: unknown } }).answer.ConsumedCapacity).toEqual({ TableName: 'TABLE', CapacityUnits: 1 });
    http.destroy();
    channel.destroy();
  });
});

test('the wire answer is the same: status, body, checksum and headers, for good and bad requests', async () => {
  await withDynamo(undefined, async (dynamo, url) => {
    const handler = new DynamoChannelHandler(dynamo.channel());
    const signed = {
      'content-type': 'application/x-amz-json-1.0', 'x-amz-date': '20261126T180000Z',
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20261126/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00',
    };
    const requests = [
      { target: 'DynamoDB_20120810.ListTables', body: JSON.stringify({ Limit: 10 }) },
      { target: 'DynamoDB_20120810.DescribeTable', body: JSON.stringify({ TableName: 'over-http' }) },
      { target: 'DynamoDB_20120810.GetItem', body: '{"TableName": ' },
      { target: 'DynamoDB_20120810.GetItem', body: JSON.stringify({ TableName: 'over-http', Key: { pk: { S: 'a' } } }) },
      { target: 'DynamoDB_20120810.Nothing', body: '{}' },
      { target: 'DynamoDB_20120810.GetItem', body: '' },
    ];
    for (const { target, body } of requests) {
      const headers = { ...signed, 'x-amz-target': target };
      const viaHttp = await fetch(url, { method: 'POST', headers, body });
      const httpBody = await viaHttp.text();
      // Mixed-case names, as an SDK may send them: dynalite reads them lower case, as Node's parser gives them.
      const { response } = await handler.handle({ method: 'POST', path: '/', headers: { 'Content-Type': headers['content-type'], 'X-Amz-Target': target, 'x-amz-date': signed['x-amz-date'], authorization: signed.authorization }, body });
      const channelBody = Buffer.from(response.body).toString('utf8');
      const comparable = (text: string) => text.replace(/"CreationDateTime":[0-9.]+/, '');
      expect({ status: response.statusCode, body: comparable(channelBody) }).toEqual({ status: viaHttp.status, body: comparable(httpBody) });
      expect(Number(response.headers['x-amz-crc32'])).toBe(Number(viaHttp.headers.get('x-amz-crc32')));
      expect(response.headers['content-type']).toBe(viaHttp.headers.get('content-type'));
      expect(response.headers['content-length']).toBe(viaHttp.headers.get('content-length'));
      expect(response.headers['x-amzn-requestid']).toMatch(/^[A-Z0-9]{52}$/);
      expect(new Date(response.headers.date).getTime()).toBeGreaterThan(Date.now() - 60_000);
    }
  });
});

test('in a data folder, a write the channel acknowledged is there after a restart', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-channel-'));
  try {
    const tables = join(folder, 'tables');
    await withDynamo(tables, async (dynamo, url) => {
      const { http, channel } = clients(dynamo, url);
      await channel.send(new PutItemCommand({ TableName: 'over-channel', Item: { pk: { S: 'ORDER#kept' }, sk: { S: 'VENDOR#v1' }, state: { S: 'PLANNED' } } }));
      http.destroy();
      channel.destroy();
    });
    const dynamo = new LocalDynamo(tables);
    try {
      const db = new DynamoDBClient({ endpoint: await dynamo.url(), region, credentials });
      const got = await db.send(new GetItemCommand({ TableName: 'over-channel', Key: { pk: { S: 'ORDER#kept' }, sk: { S: 'VENDOR#v1' } }, ConsistentRead: true }));
      expect(got.Item?.state).toEqual({ S: 'PLANNED' });
      const indexed = await db.send(new QueryCommand({ TableName: 'over-channel', IndexName: 'by-state', KeyConditionExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':s': { S: 'PLANNED' } } }));
      expect(indexed.Items).toHaveLength(1);
      db.destroy();
    } finally {
      await dynamo.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('a call aborted by its caller fails as aborted; a call in flight when dynalite\'s end closes fails as a reset connection', async () => {
  const { port1, port2 } = new MessageChannel();
  const requests: Array<{ id: number }> = [];
  port2.on('message', (message: { id: number }) => requests.push(message));
  const handler = new DynamoChannelHandler(port1);
  const request = { method: 'POST', path: '/', headers: { 'X-Amz-Target': 'DynamoDB_20120810.ListTables' }, body: '{}' };
  const controller = new AbortController();
  const aborted = handler.handle(request, { abortSignal: controller.signal });
  controller.abort();
  await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
  // A late answer to it is dropped; another call still gets its own.
  const next = handler.handle(request);
  while (requests.length < 2) await new Promise((r) => setTimeout(r, 5));
  expect(requests[1]).toMatchObject({ headers: { 'x-amz-target': 'DynamoDB_20120810.ListTables' }, url: '/', body: '{}' });
  port2.postMessage({ id: requests[0].id, status: 200, headers: {}, body: '{"late":true}' });
  port2.postMessage({ id: requests[1].id, status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: '{"TableNames":[]}' });
  const { response } = await next;
  expect(Buffer.from(response.body).toString()).toBe('{"TableNames":[]}');
  const inFlight = handler.handle(request);
  while (requests.length < 3) await new Promise((r) => setTimeout(r, 5));
  port2.close();
  await expect(inFlight).rejects.toMatchObject({ code: 'ECONNRESET' });
  await expect(handler.handle(request)).rejects.toMatchObject({ code: 'ECONNRESET' });
});

test('the runtime\'s Lambda containers send DynamoDB calls over the channel; the API\'s thread over HTTP', async () => {
  const seen: HandlerSeen[] = [];
  const listener = new BroadcastChannel(PROBE_CHANNEL);
  listener.onmessage = (event) => seen.push((event as { data: HandlerSeen }).data);
  const harness = await startHarness({ clientHook: join(__dirname, 'request-handler-probe.ts') });
  try {
    await harness.createVendors([{ id: 'vendor_channel', scheduleOption: 1 }]);
    await harness.setPolicy('vendor_channel', { kind: 'after_payment', delay: 'P1D' });
    const paid = await harness.createPaidOrder('order-channel-1', [{ vendorId: 'vendor_channel', amount: 200 }]);
    await harness.send('order.paid', { orderId: 'order-channel-1', transactionTime: paid, vendors: [{ vendorId: 'vendor_channel', amount: 200 }] });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !seen.some((s) => !s.mainThread && s.service === 'DynamoDB' && s.calls > 0)) await new Promise((r) => setTimeout(r, 50));
  } finally {
    await harness.close();
    listener.close();
  }
  const containers = seen.filter((s) => !s.mainThread && s.service === 'DynamoDB' && s.calls > 0);
  expect(containers.length).toBeGreaterThan(0);
  expect(new Set(containers.map((s) => s.handler))).toEqual(new Set(['DynamoChannelHandler']));
  const api = seen.filter((s) => s.mainThread && s.service === 'DynamoDB' && s.calls > 0);
  expect(api.length).toBeGreaterThan(0);
  expect(api.every((s) => s.handler !== 'DynamoChannelHandler')).toBe(true);
});
