/**
 * The repositories' DynamoDB client: plain JavaScript items in and out, over the low-level client.
 *
 * Why not `DynamoDBDocumentClient`: it cannot run with the SDK's `cacheMiddleware` (it refuses to), so every call
 * rebuilds and resolves its middleware stack. Marshalling here and caching the stack costs about a sixth less CPU per
 * call, which is most of what a release costs Holdback. Build the client with `documentClientConfig`.
 */
import {
  BatchGetItemCommand, DeleteItemCommand, GetItemCommand, PutItemCommand, QueryCommand, ScanCommand, type ScanCommandInput, UpdateItemCommand,
  type AttributeValue, type DeleteItemCommandInput, type DynamoDBClient, type DynamoDBClientConfig,
  type GetItemCommandInput, type PutItemCommandInput, type QueryCommandInput, type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { convertToAttr, convertToNative, marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { Instant } from '../../domain/instant';

/** An item, key or set of expression values as plain JavaScript. */
export type Plain = Record<string, unknown>;

export type PutInput = Omit<PutItemCommandInput, 'Item' | 'ExpressionAttributeValues'> & {
  Item: Plain;
  ExpressionAttributeValues?: Plain;
};
export type GetInput = Omit<GetItemCommandInput, 'Key'> & { Key: Plain };
export type DeleteInput = Omit<DeleteItemCommandInput, 'Key' | 'ExpressionAttributeValues'> & {
  Key: Plain;
  ExpressionAttributeValues?: Plain;
};
export type UpdateInput = Omit<UpdateItemCommandInput, 'Key' | 'ExpressionAttributeValues'> & {
  Key: Plain;
  ExpressionAttributeValues?: Plain;
};
/** Only these attributes of each item are read (a narrow read costs less to send, parse and keep). */
export interface Projection {
  ProjectionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
}

export type QueryInput = Omit<QueryCommandInput, 'ExpressionAttributeValues' | 'ExclusiveStartKey'> & {
  ExpressionAttributeValues?: Plain;
  ExclusiveStartKey?: Plain;
};

/**
 * What the low-level client needs for this class: the middleware stack resolved once per operation and reused (the
 * class never passes per-call options, which would bypass the cache).
 */
export function documentClientConfig(config: DynamoDBClientConfig): DynamoDBClientConfig {
  return { ...config, cacheMiddleware: true };
}

// Instants in an item, a key or an expression value are written as their stored text (storedTimes); `undefined`
// attributes are left out, as a JavaScript object leaves them out of JSON; both in one pass (toAttributes below).
const toWire = (value: Plain): Record<string, AttributeValue> => toAttributes(value);
const wireOrNothing = (value: Plain | undefined): Record<string, AttributeValue> | undefined => (value ? toWire(value) : undefined);
const fromWire = (value: Record<string, AttributeValue>): Plain => fromAttributes(value);

export class DocumentClient {
  constructor(private readonly client: DynamoDBClient) {}

  /** Writes the item; with `ReturnValues: 'ALL_OLD'`, answers the item it replaced (undefined when there was none). */
  async put(input: PutInput): Promise<{ old?: Plain }> {
    const answer = await this.client.send(new PutItemCommand({
      ...input, Item: toWire(input.Item), ExpressionAttributeValues: wireOrNothing(input.ExpressionAttributeValues),
    }));
    return answer.Attributes ? { old: fromWire(answer.Attributes) } : {};
  }

  async get(input: GetInput): Promise<Plain | undefined> {
    const answer = await this.client.send(new GetItemCommand({ ...input, Key: toWire(input.Key) }));
    return answer.Item ? fromWire(answer.Item) : undefined;
  }

  async delete(input: DeleteInput): Promise<void> {
    await this.client.send(new DeleteItemCommand({
      ...input, Key: toWire(input.Key), ExpressionAttributeValues: wireOrNothing(input.ExpressionAttributeValues),
    }));
  }

  /** Updates the item in place (an atomic counter, for one); answers the attributes `ReturnValues` asks for. */
  async update(input: UpdateInput): Promise<Plain | undefined> {
    const answer = await this.client.send(new UpdateItemCommand({
      ...input, Key: toWire(input.Key), ExpressionAttributeValues: wireOrNothing(input.ExpressionAttributeValues),
    }));
    return answer.Attributes ? fromWire(answer.Attributes) : undefined;
  }

  /** One page of a scan (the audit log's verification and export read every record; nothing else scans). */
  async scan(input: Omit<ScanCommandInput, 'ExclusiveStartKey' | 'ExpressionAttributeValues'> & { ExclusiveStartKey?: Plain; ExpressionAttributeValues?: Plain }): Promise<{ items: Plain[]; lastEvaluatedKey?: Plain }> {
    return pageOf(await this.client.send(new ScanCommand({
      ...input,
      ExpressionAttributeValues: wireOrNothing(input.ExpressionAttributeValues),
      ExclusiveStartKey: wireOrNothing(input.ExclusiveStartKey),
    })));
  }

  /** One page of a query. */
  async query(input: QueryInput): Promise<{ items: Plain[]; lastEvaluatedKey?: Plain }> {
    return pageOf(await this.client.send(new QueryCommand({
      ...input,
      ExpressionAttributeValues: wireOrNothing(input.ExpressionAttributeValues),
      ExclusiveStartKey: wireOrNothing(input.ExclusiveStartKey),
    })));
  }

  /** One page of a query that counts (`Select: COUNT`): how many items matched, nothing else sent back. */
  async count(input: Omit<QueryInput, 'Select' | 'ProjectionExpression'>): Promise<{ count: number; lastEvaluatedKey?: Plain }> {
    const answer = await this.client.send(new QueryCommand({
      ...input,
      Select: 'COUNT',
      ExpressionAttributeValues: wireOrNothing(input.ExpressionAttributeValues),
      ExclusiveStartKey: wireOrNothing(input.ExclusiveStartKey),
    }));
    return { count: answer.Count ?? 0, ...(answer.LastEvaluatedKey ? { lastEvaluatedKey: fromWire(answer.LastEvaluatedKey) } : {}) };
  }

  /** One BatchGetItem round of one table (at most 100 keys): the items found, and the keys left unprocessed. */
  async batchGet(tableName: string, keys: Plain[], consistentRead: boolean, projection?: Projection): Promise<{ items: Plain[]; unprocessed: Plain[] }> {
    const answer = await this.client.send(new BatchGetItemCommand({
      RequestItems: { [tableName]: { Keys: keys.map(toWire), ConsistentRead: consistentRead, ...projection } },
    }));
    return {
      items: (answer.Responses?.[tableName] ?? []).map(fromWire),
      unprocessed: (answer.UnprocessedKeys?.[tableName]?.Keys ?? []).map(fromWire),
    };
  }
}

/** A page of a query or scan as plain items, with the key to continue from when there is more. */
function pageOf(answer: { Items?: Record<string, AttributeValue>[]; LastEvaluatedKey?: Record<string, AttributeValue> }): { items: Plain[]; lastEvaluatedKey?: Plain } {
  return {
    items: (answer.Items ?? []).map(fromWire),
    ...(answer.LastEvaluatedKey ? { lastEvaluatedKey: fromWire(answer.LastEvaluatedKey) } : {}),
  };
}

/**
 * Items on the wire: plain JavaScript items to DynamoDB's attribute values and back, in one pass each: what
 * `marshall(storedTimes(item), { removeUndefinedValues: true })` and `unmarshall(item)` of `@aws-sdk/util-dynamodb`
 * answer, for less CPU. The SDK's marshall tests each value against a list of type names (building a list of sixteen
 * binary type names for every string, and four strings for every number) and storedTimes first copies the whole item to
 * turn its Instants into text; in the CPU profile of the `order.paid` ingest the two were 1 to 5% of each Lambda
 * container's busy samples. Here the values Holdback stores (strings, finite numbers, booleans, null, Instants, plain
 * objects and arrays) are written directly; anything else (sets, binary, big integers, numbers past the safe range,
 * class instances) goes through the SDK's own functions, so that its answer, or its error, is the SDK's
 * (test/adapters/dynamodb-wire-values.test.ts compares both ways on every kind of value).
 */

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
