/**
 * The edge's dynalite keeps each expression's parse tree (local/edge/dynalite-expressions.js): every request still
 * gets exactly what dynalite's own parse gives, its values, its unused-name checks and its errors.
 */
/* eslint-disable @typescript-eslint/no-require-imports */

type ExpressionRequest = Record<string, unknown>;
type Validate = (data: ExpressionRequest) => string | undefined;

/** dynalite's validateExpressions, fresh (its own parsers) or with the kept trees. */
function validator(kept: boolean): Validate {
  let validate: Validate | undefined;
  jest.isolateModules(() => {
    if (kept) require('../../../local/edge/dynalite-expressions.js')();
    validate = require('dynalite/validations').validateExpressions as Validate;
    // The parsers dynalite's validation calls are the keeping ones (or its own).
    const parsers = ['conditionParser', 'updateParser', 'projectionParser'].map((name) => (require(`dynalite/db/${name}`) as { parse: { name: string } }).parse.name);
    expect(parsers.every((name) => (name === 'keptParse') === kept)).toBe(true);
  });
  return validate!;
}

const fresh = validator(false);
const kept = validator(true);

/** What validation leaves on the request: its message and the parsed trees it keeps for the action. */
function outcome(validate: Validate, request: ExpressionRequest) {
  const data = structuredClone(request);
  const message = validate(data);
  return { message, condition: data._condition, keyCondition: data._keyCondition, updates: data._updates, projection: data._projection, filter: data._filter };
}

const version = (n: number): ExpressionRequest => ({
  ConditionExpression: '#version = :expected',
  ExpressionAttributeNames: { '#version': 'version' },
  ExpressionAttributeValues: { ':expected': { N: String(n) } },
});

// Holdback's own shapes, and the errors a request can make; each is asked twice, the second time from the kept tree.
const requests: Array<[string, ExpressionRequest]> = [
  ['a first write', { ConditionExpression: 'attribute_not_exists(pk)' }],
  ['the expected version 1', version(1)],
  ['the expected version 7', version(7)],
  ['a claim', {
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#awaiting) AND (attribute_not_exists(#source) OR #source <> :gateway)',
    ExpressionAttributeNames: { '#awaiting': 'awaiting', '#source': 'source' },
    ExpressionAttributeValues: { ':gateway': { S: 'gateway' } },
  }],
  ['a key condition with a prefix', {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': { S: 'ORDER#o-1' }, ':prefix': { S: 'VENDOR#' } },
  }],
  ['another order under the same key condition', {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': { S: 'ORDER#o-2' }, ':prefix': { S: 'EVENT#' } },
  }],
  ['a counter', {
    UpdateExpression: 'SET #count = if_not_exists(#count, :zero) + :one, #at = :at',
    ExpressionAttributeNames: { '#count': 'count', '#at': 'at' },
    ExpressionAttributeValues: { ':zero': { N: '0' }, ':one': { N: '1' }, ':at': { S: '2022-12-02T16:05:00+05:30' } },
  }],
  ['a projection', { ProjectionExpression: '#pk, #sk, vendors[1].amount, #m.#n', ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#m': 'meta', '#n': 'note' } }],
  ['a value left unused', { ...version(2), ExpressionAttributeValues: { ':expected': { N: '2' }, ':other': { S: 'x' } } }],
  ['a name left undefined', { ConditionExpression: '#version = :expected', ExpressionAttributeValues: { ':expected': { N: '1' } } }],
  ['a syntax error', { ConditionExpression: '#version = = :expected', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':expected': { N: '1' } } }],
  ['begins_with on a string', { ConditionExpression: 'begins_with(#a, :v)', ExpressionAttributeNames: { '#a': 'a' }, ExpressionAttributeValues: { ':v': { S: 'x' } } }],
  ['begins_with on a number (a type error)', { ConditionExpression: 'begins_with(#a, :v)', ExpressionAttributeNames: { '#a': 'a' }, ExpressionAttributeValues: { ':v': { N: '1' } } }],
  ['BETWEEN in order', { KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b', ExpressionAttributeValues: { ':pk': { S: 'p' }, ':a': { S: 'a' }, ':b': { S: 'b' } } }],
  ['BETWEEN reversed', { KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b', ExpressionAttributeValues: { ':pk': { S: 'p' }, ':a': { S: 'b' }, ':b': { S: 'a' } } }],
  ['a condition and an update sharing names', {
    ConditionExpression: '#v = :expected', UpdateExpression: 'SET #v = :next',
    ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':expected': { N: '1' }, ':next': { N: '2' } },
  }],
];

test.each(requests)('%s: the same trees and message as a parse of its own, the first time and from the kept tree', (_name, request) => {
  const expected = outcome(fresh, request);
  expect(outcome(kept, request)).toEqual(expected);
  expect(outcome(kept, request)).toEqual(expected);
});

test('a kept tree carries this request\'s values, and each request gets a tree of its own', () => {
  const first = version(3);
  kept(first);
  const second = version(4);
  kept(second);
  const condition = second._condition as { expression: { args: unknown[] } };
  // The value object of this request itself, as dynalite's own parse hands it on.
  expect(condition.expression.args[1]).toBe((second.ExpressionAttributeValues as Record<string, unknown>)[':expected']);
  expect(condition).not.toBe(first._condition);
  expect((first._condition as { expression: { args: Array<{ N?: string }> } }).expression.args[1]).toEqual({ N: '3' });
  // A tree changed by its request's action leaves the next request's alone.
  condition.expression.args.length = 0;
  const third = version(5);
  kept(third);
  expect((third._condition as { expression: { args: unknown[] } }).expression.args).toHaveLength(2);
});

test('the maps a tree carries keep their own prototype (dynalite reads them as dictionaries)', () => {
  const request = version(1);
  kept(request);
  const { nestedPaths, pathHeads } = request._condition as { nestedPaths: object; pathHeads: object };
  expect(Object.getPrototypeOf(nestedPaths)).toBeNull();
  expect(Object.getPrototypeOf(pathHeads)).toBeNull();
});
