/**
 * The DynamoDB client's item conversion (toAttributes, fromAttributes in functions/adapters/dynamodb/document-client.ts)
 * against the SDK's own functions: toAttributes(item) is `marshall(storedTimes(item),
 * { removeUndefinedValues: true })` and fromAttributes(item) is `unmarshall(item)`, value for value, error for error, on
 * every kind of value (what Holdback stores, and what goes to the SDK's functions), on items the repositories write, and
 * on thousands of generated ones.
 */
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { Instant } from '../../functions/domain/instant';
import { fromAttributes, storedTimes, toAttributes } from '../../functions/adapters/dynamodb/document-client';

const sdkMarshall = (value: Record<string, unknown>) => marshall(storedTimes(value) as Record<string, unknown>, { removeUndefinedValues: true });

/** What a call answers or throws, so that both can be compared. */
function outcome<T>(call: () => T): { value: T } | { error: string } {
  try {
    return { value: call() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const at = Instant.parse('2026-11-26T10:00:00.250+05:30', 'at');

/** One of each kind of value, alone and nested. */
const KINDS: Record<string, unknown> = {
  text: 'ORDER#1', empty: '', unicode: 'क्रम ✓', integer: 42, zero: 0, negativeZero: -0, negative: -17, decimal: 200.5, tiny: 1e-7,
  big: 1e21, maxSafe: Number.MAX_SAFE_INTEGER, minSafe: Number.MIN_SAFE_INTEGER, yes: true, no: false, nothing: null, instant: at,
  list: ['a', 1, null, at, [true, { deep: at }]], map: { at, inner: { n: 3, gone: undefined } }, withUndefined: undefined,
  listWithHoles: ['a', undefined, 'b'], fn: () => 1, nullProto: Object.assign(Object.create(null) as object, { a: 1, at }),
  stringSet: new Set(['x', 'y']), numberSet: new Set([1, 2]), binary: Uint8Array.from([1, 2, 3]), buffer: Buffer.from('hi'), bigint: 12345678901234567890n,
  boxed: Object('boxed'), mapObject: new Map<string, unknown>([['k', 'v'], ['t', at]]), emptyList: [], emptyMap: {},
};

/** Values the SDK refuses: the same error either way. */
const REFUSED: Record<string, unknown> = {
  nan: Number.NaN, infinity: Number.POSITIVE_INFINITY, minusInfinity: Number.NEGATIVE_INFINITY, unsafe: Number.MAX_SAFE_INTEGER + 2,
  unsafeNegative: Number.MIN_SAFE_INTEGER - 2, classInstance: new (class Thing { a = 1; })(), emptySet: new Set(), symbol: Symbol('s'),
  ownConstructor: { constructor: 'x', a: 1 },
};

test.each(Object.entries(KINDS))('%s is written as the SDK writes it, and read back as the SDK reads it', (_name, value) => {
  const item = { pk: 'ORDER#1', value, nested: { value, list: [value] } };
  const expected = outcome(() => sdkMarshall(item));
  expect(outcome(() => toAttributes(item))).toEqual(expected);
  if ('value' in expected) expect(outcome(() => fromAttributes(expected.value))).toEqual(outcome(() => unmarshall(expected.value)));
});

test.each(Object.entries(REFUSED))('%s is refused with the SDK\'s own error (or written as it writes it)', (_name, value) => {
  for (const item of [{ pk: 'x', value }, { pk: 'x', nested: { list: [value] } }]) {
    const expected = outcome(() => sdkMarshall(item));
    expect(outcome(() => toAttributes(item))).toEqual(expected);
  }
  expect(outcome(() => sdkMarshall({ pk: 'x', nan: Number.NaN }))).toEqual({ error: 'Special numeric value NaN is not allowed' });
});

test('what the wire answers is read as the SDK reads it: numbers past the safe range, sets, binary, an unset member first', () => {
  const answers: Record<string, AttributeValue>[] = [
    { n: { N: '12345678901234567890' }, m: { N: '-0.5' }, e: { N: '1E+3' } },
    { ss: { SS: ['a', 'b'] }, ns: { NS: ['1', '2.5'] }, b: { B: Uint8Array.from([7]) }, bs: { BS: [Uint8Array.from([1])] } },
    { first: { S: undefined, N: '3' } as unknown as AttributeValue, nul: { NULL: true }, bool: { BOOL: false } },
    { list: { L: [{ M: { a: { S: 'x' }, b: { L: [] } } }, { NULL: true }] } },
  ];
  for (const answer of answers) expect(outcome(() => fromAttributes(answer))).toEqual(outcome(() => unmarshall(answer)));
  expect(outcome(() => fromAttributes({ none: {} as AttributeValue }))).toEqual(outcome(() => unmarshall({ none: {} as AttributeValue })));
  expect(fromAttributes(answers[0]).n).toBe(12345678901234567890n);
});

test('a release item as the repositories write it: the same attribute values, and back the same item', () => {
  const release = {
    pk: 'ORDER#o-1', sk: 'RELEASE#v-1', orderId: 'o-1', vendorId: 'v-1', state: 'APPLYING', amount: '200.00', currency: 'INR', version: 3,
    sendAt: at, dueAt: at.plusMs(86_400_000), policyVersion: 2, holdReason: undefined,
    history: [{ at, state: 'PLANNED', reason: 'planned at payment', cause: { kind: 'payment', actor: 'marketplace' } }, { at, state: 'APPLYING', reason: 'claimed' }],
    sending: { attempt: 1, at, request: { eligible: true, amount: '200.00' } }, exposure: null, flags: [true, false],
  };
  const expected = sdkMarshall(release);
  expect(toAttributes(release)).toEqual(expected);
  expect(fromAttributes(expected)).toEqual(unmarshall(expected));
});

test('thousands of generated items: written and read as the SDK does', () => {
  // A small deterministic generator (no randomness between runs).
  let seed = 17;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const leaf = (): unknown => {
    const pick = Math.floor(next() * 9);
    return [() => `s${Math.floor(next() * 1000)}`, () => Math.floor(next() * 1e6) - 5e5, () => next() * 1000, () => next() > 0.5, () => null, () => undefined,
      () => Instant.parse('2026-11-26T10:00:00+05:30', 'at').plusMs(Math.floor(next() * 1e9)), () => '', () => -0][pick]();
  };
  const value = (depth: number): unknown => {
    const pick = next();
    if (depth > 3 || pick < 0.6) return leaf();
    if (pick < 0.8) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const map: Record<string, unknown> = {};
    for (let i = 0; i < Math.floor(next() * 5); i += 1) map[`k${Math.floor(next() * 20)}`] = value(depth + 1);
    return map;
  };
  for (let i = 0; i < 3000; i += 1) {
    const item: Record<string, unknown> = { pk: `ORDER#${i}` };
    for (let j = 0; j < 6; j += 1) item[`a${j}`] = value(0);
    const expected = sdkMarshall(item);
    expect(toAttributes(item)).toEqual(expected);
    expect(fromAttributes(expected)).toEqual(unmarshall(expected));
  }
});
