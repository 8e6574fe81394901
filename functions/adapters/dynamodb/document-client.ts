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
import { fromAttributes, storedTimes, toAttributes } from './wire-values';

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

export { storedTimes };

// Instants in an item, a key or an expression value are written as their stored text (storedTimes); `undefined`
// attributes are left out, as a JavaScript object leaves them out of JSON; both in one pass (wire-values.ts).
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
