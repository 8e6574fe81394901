/**
 * dynalite's type check with its descriptors made once (local/edge/dynalite-types.js) answers every request exactly as
 * dynalite's own: the same checked request, the same changes to the request it was given, the same error (status,
 * body, message) for every value of a wrong type anywhere in it; and the local DynamoDB uses it.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { LocalDynamo } from '../../../local/edge/dynamodb';

type CheckTypes = (data: unknown, types: unknown) => unknown;
const original = require('dynalite/validations').checkTypes as CheckTypes;
const kept = require('../../../local/edge/dynalite-types.js') as { checkTypes: CheckTypes; install: () => void };
const ACTIONS = ['putItem', 'getItem', 'updateItem', 'deleteItem', 'query', 'scan', 'batchGetItem', 'batchWriteItem', 'createTable', 'updateTable'];
const typesOf = (action: string): unknown => (require(`dynalite/validations/${action}`) as { types: unknown }).types;

/** What a check gives: its answer and the request as it left it, or its error. */
function outcome(check: CheckTypes, request: unknown, types: unknown): unknown {
  const data = structuredClone(request);
  try {
    return { answer: check(data, types), left: data };
  } catch (error) {
    const e = error as { message: string; statusCode?: number; body?: unknown };
    return { error: e.message, statusCode: e.statusCode, body: e.body, left: data };
  }
}

const item = {
  pk: { S: 'ORDER#o-1' }, sk: { S: 'VENDOR#v1' }, amount: { N: '1250.50' }, paid: { BOOL: true }, gone: { NULL: true },
  tags: { SS: ['a', 'b'] }, counts: { NS: ['1', '2'] }, blobs: { BS: ['QUJD'] }, blob: { B: 'QUJD' },
  nested: { M: { at: { S: '2022-12-02T16:05:00+05:30' }, list: { L: [{ S: 'x' }, { N: '1' }, { M: { deep: { BOOL: false } } }] } } },
};
const requests: Array<[string, Record<string, unknown>]> = [
  ['putItem', { TableName: 'orders', Item: item, ConditionExpression: 'attribute_not_exists(pk)', ReturnConsumedCapacity: 'TOTAL', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': { N: '1' } }, Expected: { a: { Exists: false, Value: { S: 'x' }, ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'y' }] } }, Unknown: 1 }],
  ['getItem', { TableName: 'orders', Key: { pk: { S: 'a' }, sk: { S: 'b' } }, ConsistentRead: true, ProjectionExpression: '#a', AttributesToGet: ['a', 'b'] }],
  ['updateItem', { TableName: 'orders', Key: { pk: { S: 'a' } }, UpdateExpression: 'SET #a = :a', AttributeUpdates: { a: { Action: 'PUT', Value: { N: '1' } } }, ReturnValues: 'ALL_NEW' }],
  ['query', { TableName: 'orders', IndexName: 'by-state', KeyConditions: { pk: { ComparisonOperator: 'EQ', AttributeValueList: [{ S: 'a' }] } }, Limit: 10.7, ExclusiveStartKey: { pk: { S: 'a' } }, ScanIndexForward: 'false', Select: 'ALL_ATTRIBUTES' }],
  ['batchGetItem', { RequestItems: { orders: { Keys: [{ pk: { S: 'a' } }, { pk: { N: '2' } }], ConsistentRead: 'yes' } } }],
  ['batchWriteItem', { RequestItems: { orders: [{ PutRequest: { Item: item } }, { DeleteRequest: { Key: { pk: { S: 'a' } } } }] } }],
  ['createTable', { TableName: 't', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], GlobalSecondaryIndexes: [{ IndexName: 'i', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['a'] }, ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } }] }],
];

/** Every path to a value in `value`, objects and arrays included. */
function paths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const here = at.length > 0 ? [at] : [];
  if (value === null || typeof value !== 'object') return here;
  const children = Array.isArray(value) ? value.map((child, i) => paths(child, [...at, i])) : Object.entries(value).map(([key, child]) => paths(child, [...at, key]));
  return [...here, ...children.flat()];
}

function replaced(request: unknown, path: Array<string | number>, value: unknown): unknown {
  const copy = structuredClone(request) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path[path.length - 1]] = value;
  return copy;
}

const WRONG: unknown[] = [true, false, 0, 7, 1.5, 'text', 'TRUE', 'no', 'QUJD', 'QUJ', '', [], ['x'], [1], {}, { S: 'x' }, null];

test('every action\'s schema: the same answer for a valid request, the same error for each value of a wrong type', () => {
  let compared = 0;
  let errors = 0;
  for (const [action, request] of requests) {
    const types = typesOf(action);
    expect(outcome(kept.checkTypes, request, types)).toEqual(outcome(original, request, types));
    for (const path of paths(request)) {
      for (const wrong of WRONG) {
        const bad = replaced(request, path, wrong);
        const fromKept = outcome(kept.checkTypes, bad, types) as { error?: string };
        expect(fromKept).toEqual(outcome(original, bad, types));
        compared += 1;
        if (fromKept.error) errors += 1;
      }
    }
  }
  // The comparison met many errors and many answers.
  expect(errors).toBeGreaterThan(500);
  expect(compared - errors).toBeGreaterThan(200);
});

test('the other schemas dynalite checks answer alike for a request of another action', () => {
  for (const action of ACTIONS) {
    for (const [, request] of requests) expect(outcome(kept.checkTypes, request, typesOf(action))).toEqual(outcome(original, request, typesOf(action)));
  }
});

test('the local DynamoDB answers a wrongly typed request with dynalite\'s serialization error', async () => {
  const dynamo = new LocalDynamo();
  try {
    const answer = await fetch(await dynamo.url(), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem', 'x-amz-date': '20261126T180000Z',
        authorization: 'AWS4-HMAC-SHA256 Credential=local/20261126/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00',
      },
      body: JSON.stringify({ TableName: 'orders', Key: { pk: { S: 5 } } }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ __type: 'com.amazon.coral.service#SerializationException', Message: 'NUMBER_VALUE cannot be converted to String' });
  } finally {
    await dynamo.close();
  }
});

test('installed, dynalite\'s handler calls the kept check', () => {
  const validations = require('dynalite/validations') as { checkTypes: CheckTypes };
  const before = validations.checkTypes;
  try {
    kept.install();
    expect(validations.checkTypes).toBe(kept.checkTypes);
  } finally {
    validations.checkTypes = before;
  }
});
