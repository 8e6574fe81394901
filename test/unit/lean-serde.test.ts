/**
 * keepSerdeContext (functions/composition/lean-client.ts) and the composition root's whole leanClient against the SDK's
 * default DynamoDB client, through a recording door in front of the local DynamoDB (dynalite): every operation the
 * repositories use goes out as the same request (method, path, body and every header but the date, the signature and
 * the random invocation id), answers the same output, and a refused condition fails with the same error (name, message,
 * the old item, its metadata and the raw response). And the serde middlewares copy the client's configuration no more.
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BatchGetItemCommand, DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { LocalDynamo } from '../../local/edge/dynamodb';
import { keepSerdeContext, leanClient } from '../../functions/composition/lean-client';

const REGION = 'ap-south-1';
const TABLE = 'lean-serde';
const CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' };

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body: string }

let dynamo: LocalDynamo;
let door: Server;
let doorUrl = '';
const seen: Seen[] = [];

beforeAll(async () => {
  dynamo = new LocalDynamo();
  const upstream = new URL(await dynamo.url());
  await dynamo.createTables(upstream.toString(), REGION, [{
    TableName: TABLE, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
  }]);
  // Records each request whole, then hands it on to dynalite and dynalite's answer back.
  door = createServer((req, res) => {
    void received(req).then((one) => {
      seen.push(one);
      const headers = { ...one.headers, host: upstream.host };
      request({ host: upstream.hostname, port: upstream.port, method: one.method, path: one.url, headers }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      }).end(one.body);
    });
  });
  await new Promise<void>((resolve) => door.listen(0, '127.0.0.1', resolve));
  doorUrl = `http://127.0.0.1:${(door.address() as AddressInfo).port}`;
});

/** A request as it arrived, its body read whole. */
async function received(req: IncomingMessage): Promise<Seen> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
}

afterAll(async () => {
  door.closeAllConnections();
  await new Promise<void>((resolve) => door.close(() => resolve()));
  await dynamo.close();
});

const client = () => new DynamoDBClient({ region: REGION, endpoint: doorUrl, credentials: CREDENTIALS, maxAttempts: 1, cacheMiddleware: true });

/** What a call answered: its output without the per-request ids, or its error's visible parts. */
async function outcome(promise: Promise<object>): Promise<unknown> {
  try {
    const { $metadata, ...output } = await promise as { $metadata: { httpStatusCode?: number; attempts?: number } };
    return { output, status: $metadata.httpStatusCode, attempts: $metadata.attempts };
  } catch (error) {
    const e = error as Error & { Item?: unknown; $fault?: string; $metadata?: { httpStatusCode?: number }; $response?: { statusCode?: number } };
    return { error: e.name, message: e.message, item: e.Item, fault: e.$fault, status: e.$metadata?.httpStatusCode, raw: e.$response?.statusCode };
  }
}

/** The operations the repositories send, each once; the table is as empty after as before. */
async function operations(c: DynamoDBClient): Promise<unknown[]> {
  const key = { pk: { S: 'ORDER#1' }, sk: { S: 'RELEASE#v-1' } };
  const item = { ...key, state: { S: 'PLANNED' }, amount: { S: '200.00' }, version: { N: '1' }, history: { L: [{ M: { at: { S: '2026-11-26T10:00:00+05:30' } } }] }, tags: { SS: ['a', 'b'] } };
  return [
    await outcome(c.send(new PutItemCommand({ TableName: TABLE, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }))),
    // Refused (dynalite sends no old item back).
    await outcome(c.send(new PutItemCommand({ TableName: TABLE, Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }))),
    await outcome(c.send(new GetItemCommand({ TableName: TABLE, Key: key, ConsistentRead: true }))),
    await outcome(c.send(new UpdateItemCommand({
      TableName: TABLE, Key: key, UpdateExpression: 'SET #v = #v + :one', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':one': { N: '1' } }, ReturnValues: 'ALL_NEW',
    }))),
    await outcome(c.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'ORDER#1' } }, ConsistentRead: true }))),
    await outcome(c.send(new BatchGetItemCommand({ RequestItems: { [TABLE]: { Keys: [key, { pk: { S: 'ORDER#2' }, sk: { S: 'RELEASE#v-1' } }], ConsistentRead: true } } }))),
    // A request the table refuses outright (a validation error of the service).
    await outcome(c.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'ORDER#1' } } }))),
    await outcome(c.send(new DeleteItemCommand({ TableName: TABLE, Key: key, ReturnValues: 'ALL_OLD' }))),
  ];
}

/** A request as compared: all but what differs between any two sends (the date, the signature, the random id). */
const comparable = ({ method, url, headers, body }: Seen) => {
  const { authorization, 'x-amz-date': date, 'amz-sdk-invocation-id': id, ...rest } = headers;
  return { method, url, body, headers: rest, signed: /SignedHeaders=([^,]+)/.exec(String(authorization))?.[1], dated: typeof date === 'string', id: typeof id === 'string' };
};

test.each([
  ['keepSerdeContext', (c: DynamoDBClient) => { keepSerdeContext(c); return c; }],
  ['the whole leanClient', (c: DynamoDBClient) => leanClient(c)],
] as const)('%s: the same requests on the wire and the same answers as the SDK\'s default client', async (_name, make) => {
  seen.length = 0;
  const sdk = client();
  const expected = await operations(sdk);
  const sdkRequests = seen.splice(0).map(comparable);
  const lean = make(client());
  const answered = await operations(lean);
  const leanRequests = seen.splice(0).map(comparable);
  expect(leanRequests).toEqual(sdkRequests);
  expect(answered).toEqual(expected);
  expect(sdkRequests).toHaveLength(8);
  // The answers are real ones: a write, a refusal, an update's new item, an invalid key named by the service.
  expect(expected[1]).toMatchObject({ error: 'ConditionalCheckFailedException', fault: 'client', status: 400, raw: 400 });
  expect(expected[3]).toMatchObject({ output: { Attributes: { version: { N: '2' } } } });
  expect(expected[6]).toMatchObject({ error: 'ValidationException', status: 400 });
  sdk.destroy();
  lean.destroy();
});

test('the serde middlewares no longer copy the client\'s configuration (the endpoint middleware still does)', async () => {
  const copies = (c: DynamoDBClient): { reset(): void; count(): number } => {
    let reads = 0;
    // Read only by a copy of the whole configuration (a spread reads every enumerable property).
    Object.defineProperty(c.config, 'copyProbe', { enumerable: true, get: () => { reads += 1; return 'probe'; } });
    return { reset: () => { reads = 0; }, count: () => reads };
  };
  const sdk = client();
  const lean = client();
  keepSerdeContext(lean);
  const composed = leanClient(client());
  const clients = [sdk, lean, composed];
  const probes = clients.map(copies);
  const get = (id: string) => new GetItemCommand({ TableName: TABLE, Key: { pk: { S: id }, sk: { S: 'x' } } });
  // The first call's set-up (the handler resolved once) is not counted: from then on, the copies of every call.
  for (const c of clients) await c.send(get('warm'));
  probes.forEach((p) => p.reset());
  for (const c of clients) {
    for (const id of ['a', 'b']) await c.send(get(id));
  }
  // The SDK's client: the serializer's, the deserializer's, the endpoint middleware's and the signer made for the call;
  // without the serde copies two; the composition root's client (its signer kept too) the endpoint middleware's alone.
  expect(probes.map((p) => p.count())).toEqual([2 * 4, 2 * 2, 2 * 1]);
  clients.forEach((c) => c.destroy());
});

test('a client without a schema protocol is left as it is', () => {
  const c = { middlewareStack: { add: jest.fn(), addRelativeTo: jest.fn() }, config: { region: REGION } };
  keepSerdeContext(c);
  expect(c.middlewareStack.add).not.toHaveBeenCalled();
});
