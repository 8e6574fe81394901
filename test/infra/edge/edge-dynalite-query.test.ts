/**
 * The edge's dynalite reads an index query's entries a batch at a time (local/edge/dynalite-query.js): every query
 * answers exactly what dynalite's own queryTable answers (items, counts, page ends by Limit and by 1 MB, the key to go
 * on from, filters, projections, consumed capacity), and a partition read page by page gives each entry exactly once.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import {
  BatchWriteItemCommand, CreateTableCommand, DynamoDBClient, QueryCommand, type AttributeValue, type QueryCommandInput,
} from '@aws-sdk/client-dynamodb';

type Dynalite = (options: Record<string, unknown>) => Server;

/** A dynalite of its own module graph: dynalite's own queries, or the edge's batched ones. */
function dynaliteOf(batched: boolean): { server: Server; queryTableName: string } {
  let made: { server: Server; queryTableName: string } | undefined;
  jest.isolateModules(() => {
    if (batched) require('../../../local/edge/dynalite-query.js')();
    const dynalite = require('dynalite') as Dynalite;
    made = { server: dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }), queryTableName: (require('dynalite/db') as { queryTable: { name: string } }).queryTable.name };
  });
  return made!;
}

const TABLE = 'queries';
const servers: Server[] = [];
let own: DynamoDBClient;
let batched: DynamoDBClient;
let batchedName = '';
let ownName = '';

async function clientOf(server: Server): Promise<DynamoDBClient> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
}

/** 1,300 entries in partition A (about 1.3 MB: its whole read ends a page at 1 MB), 300 in B; a few without index keys. */
function items(): Record<string, AttributeValue>[] {
  const all: Record<string, AttributeValue>[] = [];
  for (let i = 0; i < 1_600; i += 1) {
    const id = `o${String(i).padStart(5, '0')}`;
    const item: Record<string, AttributeValue> = {
      pk: { S: `ORDER#${id}` }, sk: { S: 'VENDOR#v' }, amount: { S: `${i}.50` }, state: { S: i % 3 === 0 ? 'HELD' : 'SCHEDULED' },
      version: { N: String(i % 7) }, rule: { M: { kind: { S: 'after_payment' }, delay: { S: 'P3D' } } }, pad: { S: 'x'.repeat(800) },
      hidden: { S: 'not projected into the index' },
    };
    if (i % 50 !== 7) {
      item.gpk = { S: i < 1_300 ? 'A' : 'B' };
      item.gsk = { S: `2022-12-${String(1 + (i % 28)).padStart(2, '0')}#${id}` };
    }
    all.push(item);
  }
  return all;
}

beforeAll(async () => {
  const plain = dynaliteOf(false);
  const edge = dynaliteOf(true);
  ownName = plain.queryTableName;
  batchedName = edge.queryTableName;
  own = await clientOf(plain.server);
  batched = await clientOf(edge.server);
  for (const client of [own, batched]) {
    await client.send(new CreateTableCommand({
      TableName: TABLE,
      AttributeDefinitions: ['pk', 'sk', 'gpk', 'gsk'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
      GlobalSecondaryIndexes: [{
        IndexName: 'byG', KeySchema: [{ AttributeName: 'gpk', KeyType: 'HASH' }, { AttributeName: 'gsk', KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['amount', 'state', 'version', 'rule', 'pad'] },
      }],
      BillingMode: 'PAY_PER_REQUEST',
    }));
    const all = items();
    for (let i = 0; i < all.length; i += 25) {
      await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: all.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
  }
}, 120_000);

afterAll(async () => {
  own?.destroy();
  batched?.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** Every page of a query from both, compared page by page; the batched one's pages. */
async function bothPages(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const pages: Record<string, unknown>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const [a, b] = await Promise.all([own, batched].map((client) => client.send(new QueryCommand({ ...input, ExclusiveStartKey: start }))));
    const { $metadata: _a, ...ownPage } = a;
    const { $metadata: _b, ...batchedPage } = b;
    expect(batchedPage).toEqual(ownPage);
    pages.push(batchedPage);
    start = b.LastEvaluatedKey;
  } while (start);
  return pages;
}

const partition = (pk: string): QueryCommandInput => ({
  TableName: TABLE, IndexName: 'byG', KeyConditionExpression: 'gpk = :p', ExpressionAttributeValues: { ':p': { S: pk } },
});

const orderIds = (pages: Record<string, unknown>[]): string[] =>
  pages.flatMap((page) => (page.Items as Record<string, AttributeValue>[] | undefined ?? []).map((item) => item.pk.S!));

describe('index queries a batch at a time (dynalite-query.js)', () => {
  it('is the query path of the edge\'s dynalite, and not of dynalite itself', () => {
    expect(batchedName).toBe('batchedQueryTable');
    expect(ownName).not.toBe('batchedQueryTable');
  });

  it('reads a partition whole in pages of 1 MB, each entry exactly once, as dynalite does', async () => {
    const pages = await bothPages(partition('A'));
    // 1,300 entries of about 900 bytes: the first page ends at 1 MB, inside a batch of the store's iterator.
    expect(pages.length).toBeGreaterThan(1);
    expect((pages[0].Items as unknown[]).length % 256).not.toBe(0);
    const ids = orderIds(pages);
    const expected = items().filter((item) => item.gpk?.S === 'A').map((item) => item.pk.S!);
    expect(ids.length).toBe(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected));
  });

  it.each([7, 100, 255, 256, 257, 300, 1_000])('pages of Limit %i end where dynalite ends them, each entry once', async (limit) => {
    const pages = await bothPages({ ...partition('B'), Limit: limit });
    const ids = orderIds(pages);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(items().filter((item) => item.gpk?.S === 'B').length);
  });

  it('answers backwards, over a range, filtered, projected, counted and with its capacity as dynalite does', async () => {
    await bothPages({ ...partition('A'), ScanIndexForward: false, Limit: 333 });
    await bothPages({ ...partition('A'), KeyConditionExpression: 'gpk = :p AND gsk BETWEEN :a AND :b', ExpressionAttributeValues: { ':p': { S: 'A' }, ':a': { S: '2022-12-05' }, ':b': { S: '2022-12-09~' } } });
    await bothPages({ ...partition('A'), KeyConditionExpression: 'gpk = :p AND begins_with(gsk, :d)', ExpressionAttributeValues: { ':p': { S: 'A' }, ':d': { S: '2022-12-1' } } });
    await bothPages({ ...partition('A'), KeyConditionExpression: 'gpk = :p AND gsk > :a', ExpressionAttributeValues: { ':p': { S: 'A' }, ':a': { S: '2022-12-20' } } });
    await bothPages({ ...partition('A'), FilterExpression: '#s = :held', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':p': { S: 'A' }, ':held': { S: 'HELD' } }, Limit: 200 });
    await bothPages({ ...partition('A'), ProjectionExpression: 'pk, gsk, #r.kind, version', ExpressionAttributeNames: { '#r': 'rule' } });
    await bothPages({ ...partition('A'), Select: 'COUNT' });
    await bothPages({ ...partition('B'), ReturnConsumedCapacity: 'INDEXES', Limit: 120 });
    await bothPages({ ...partition('B'), ReturnConsumedCapacity: 'TOTAL' });
    await bothPages({ ...partition('nobody') });
    // The table itself (not an index) stays dynalite's own path, with the same answer.
    await bothPages({ TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'ORDER#o00007' } } });
  });

  it('refuses what dynalite refuses, in its words', async () => {
    const bad = { ...partition('A'), ExclusiveStartKey: { gpk: { S: 'A' }, gsk: { S: 'x' } } };
    const [a, b] = await Promise.all([own, batched].map((client) => client.send(new QueryCommand(bad)).then(() => 'answered', (error: Error) => error.message)));
    expect(b).toBe(a);
    expect(b).toMatch(/starting key/);
  });
});
