/**
 * Plain JavaScript items to DynamoDB's attribute values and back, in one pass each: what
 * `marshall(storedTimes(item), { removeUndefinedValues: true })` and `unmarshall(item)` of `@aws-sdk/util-dynamodb`
 * answer, for less CPU. The SDK's marshall tests each value against a list of type names (building a list of sixteen
 * binary type names for every string, and four strings for every number) and storedTimes first copies the whole item to
 * turn its Instants into text; in the CPU profile of an `order.paid` the two were about a twentieth of the Lambda
 * containers' time. Here the values Holdback stores (strings, finite numbers, booleans, null, Instants, plain objects and
 * arrays) are written directly; anything else (sets, binary, big integers, numbers past the safe range, class instances)
 * goes through the SDK's own functions, so that its answer, or its error, is the SDK's
 * (test/adapters/dynamodb-wire-values.test.ts compares both ways on every kind of value).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr, convertToNative, marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { Instant } from '../../domain/instant';

type Plain = Record<string, unknown>;

const MARSHALL = { removeUndefinedValues: true } as const;

/** A plain object as the SDK's marshall takes it for a map: its prototype Object's or none, no own `constructor`. */
function isPlainObject(value: object): value is Plain {
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !Object.prototype.hasOwnProperty.call(value, 'constructor');
}

/**
 * A value as an item holds it: every Instant, at any depth of plain objects and arrays, as its stored text (its own
 * offset, milliseconds only when it has any), so an item's bytes are the text the record's time was written as.
 */
export function storedTimes(value: unknown): unknown {
  if (value instanceof Instant) return value.toText();
  if (Array.isArray(value)) return value.map(storedTimes);
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) copy[name] = storedTimes(inner);
  return copy;
}

function mapOf(value: Plain): Record<string, AttributeValue> {
  const map: Record<string, AttributeValue> = {};
  for (const name of Object.keys(value)) {
    const inner = value[name];
    if (inner !== undefined && typeof inner !== 'function') map[name] = attributeOf(inner);
  }
  return map;
}

/** One value as an attribute value (the SDK's convertToAttr with removeUndefinedValues, Instants as text). */
function attributeOf(value: unknown): AttributeValue {
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'boolean':
      return { BOOL: value };
    case 'number':
      if (value <= Number.MAX_SAFE_INTEGER && value >= Number.MIN_SAFE_INTEGER) return { N: value.toString() };
      break;
    case 'object':
      if (value === null) return { NULL: true };
      if (value instanceof Instant) return { S: value.toText() };
      if (Array.isArray(value)) {
        const list: AttributeValue[] = [];
        for (const inner of value) if (inner !== undefined && typeof inner !== 'function') list.push(attributeOf(inner));
        return { L: list };
      }
      if (isPlainObject(value)) return { M: mapOf(value) };
      break;
    default:
      break;
  }
  // NaN and the infinities, numbers past the safe range, sets, maps, binary, big integers, class instances: the SDK's.
  return convertToAttr(storedTimes(value), MARSHALL);
}

/** An item, key or set of expression values for the wire: `marshall(storedTimes(value), { removeUndefinedValues: true })`. */
export function toAttributes(value: Plain): Record<string, AttributeValue> {
  return isPlainObject(value) ? mapOf(value) : marshall(storedTimes(value) as Plain, MARSHALL) as Record<string, AttributeValue>;
}

function nativeOf(value: AttributeValue): unknown {
  const wire = value as unknown as Record<string, unknown>;
  // The first member that is set, as the SDK's convertToNative takes it.
  for (const kind of Object.keys(wire)) {
    const inner = wire[kind];
    if (inner === undefined) continue;
    switch (kind) {
      case 'S':
        return inner;
      case 'N': {
        const number = Number(inner);
        // Past the safe range: the SDK's (a big integer, or its error).
        return number <= Number.MAX_SAFE_INTEGER && number >= Number.MIN_SAFE_INTEGER ? number : convertToNative({ N: inner as string });
      }
      case 'BOOL':
        return Boolean(inner);
      case 'NULL':
        return null;
      case 'L':
        return (inner as AttributeValue[]).map(nativeOf);
      case 'M':
        return fromAttributes(inner as Record<string, AttributeValue>);
      default:
        return convertToNative(value);
    }
  }
  return convertToNative(value);
}

/** An item from the wire as plain JavaScript: `unmarshall(value)`. */
export function fromAttributes(value: Record<string, AttributeValue>): Plain {
  if (Object.getPrototypeOf(value) !== Object.prototype) return unmarshall(value);
  const plain: Plain = {};
  for (const name of Object.keys(value)) plain[name] = nativeOf(value[name]);
  return plain;
}
