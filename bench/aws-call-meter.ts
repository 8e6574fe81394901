/**
 * Counts every AWS call an SDK client makes, in the units AWS bills (the bench's bill), plugged into the composition
 * root as its client hook (`clientHook` below; the local runtime's `clientHook` option names this file).
 * Each call's units go out on a BroadcastChannel, so calls of every thread of the process (the local Lambda
 * containers) reach one tally. DynamoDB reads are dynalite's ConsumedCapacity (4 KB units, eventual half); writes and
 * every global secondary index's writes are computed from the items themselves by DynamoDB's rules, because dynalite
 * does not report index units.
 */
import { BroadcastChannel } from 'node:worker_threads';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import canonicalize from 'canonicalize';
import type { ClientHook } from '../functions/composition-root';
import { AUDIT_TABLE, TABLES, type TableDefinition } from '../functions/definitions/tables';

const CHANNEL = 'holdback-aws-calls';

/** One call: the service and operation, and the billed quantities it used. */
export interface MeteredCall {
  service: string;
  operation: string;
  units: Record<string, number>;
}

type Item = Record<string, AttributeValue>;
type Stack = { add(middleware: unknown, options: { step: 'initialize'; name: string; override?: boolean }): void };

const KB = 1024;
/** EventBridge PutEvents entries and SQS payloads are billed per started 64 KB chunk. */
const CHUNK = 64 * KB;
/** DynamoDB adds this to an index entry's size. */
const INDEX_ENTRY_OVERHEAD = 100;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A number's stored size: about one byte per two significant digits, plus one. */
function numberSize(text: string): number {
  const digits = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

/** The size of one attribute value by DynamoDB's item size rules. */
function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (value.NS) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS) return value.BS.reduce((sum, b) => sum + b.length, 0);
  if (value.L) return 3 + value.L.reduce((sum, v) => sum + 1 + valueSize(v), 0);
  if (value.M) return 3 + Object.entries(value.M).reduce((sum, [k, v]) => sum + 1 + utf8(k) + valueSize(v), 0);
  return 0;
}

export function itemSize(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
}

/** A value as its RFC 8785 text (map keys sorted), so an item read back compares equal to the one written. */
function canonical(value: AttributeValue | undefined): string {
  if (value === undefined) return '';
  // Binary as base64 text: a byte array has no JSON form of its own.
  return canonicalize(value.B === undefined ? value : { B: Buffer.from(value.B).toString('base64') }) ?? '';
}

interface IndexShape { name: string; keys: string[]; projected: (item: Item) => Item }

function indexShapes(table: TableDefinition): IndexShape[] {
  const tableKeys = table.keySchema.map((k) => k.AttributeName!);
  return table.globalSecondaryIndexes.map((index) => {
    const keys = index.KeySchema!.map((k) => k.AttributeName!);
    const kept = new Set([...tableKeys, ...keys, ...(index.Projection?.NonKeyAttributes ?? [])]);
    const all = index.Projection?.ProjectionType === 'ALL';
    return {
      name: index.IndexName!, keys,
      projected: (item) => (all ? item : Object.fromEntries(Object.entries(item).filter(([name]) => kept.has(name)))),
    };
  });
}

const units = (bytes: number, per: number): number => Math.max(1, Math.ceil(bytes / per));

/**
 * Write units an index pays for one item going from `before` to `after` (either absent): an entry is written when the
 * item has the index's key attributes and they or a projected attribute changed; a changed key is a delete and a put.
 */
function indexWriteUnits(index: IndexShape, before: Item | undefined, after: Item | undefined): number {
  const has = (item: Item | undefined): item is Item => item !== undefined && index.keys.every((k) => item[k] !== undefined);
  const entrySize = (item: Item) => itemSize(index.projected(item)) + INDEX_ENTRY_OVERHEAD;
  const inBefore = has(before);
  const inAfter = has(after);
  if (!inBefore && !inAfter) return 0;
  if (!inBefore) return units(entrySize(after as Item), KB);
  if (!inAfter) return units(entrySize(before), KB);
  const keyChanged = index.keys.some((k) => canonical(before[k]) !== canonical((after as Item)[k]));
  if (keyChanged) return units(entrySize(before), KB) + units(entrySize(after as Item), KB);
  const old = index.projected(before);
  const next = index.projected(after as Item);
  const names = new Set([...Object.keys(old), ...Object.keys(next)]);
  const changed = [...names].some((name) => canonical(old[name]) !== canonical(next[name]));
  return changed ? units(Math.max(entrySize(before), entrySize(after as Item)), KB) : 0;
}

/**
 * The item's kind for the bill's breakdown: its sort key's prefix (`VENDOR`, `EVENT`, `META`...), or, where the sort
 * key is a number (the audit log's sequence), its partition key's (`order`, `vendor`, `config`).
 */
function kindOf(item: Item | undefined): string {
  const sk = item?.sk?.S ?? '';
  if (!/^\d+$/.test(sk)) return sk.split('#')[0] || 'item';
  const stream = (item?.pk?.S ?? '').split('#')[0] || 'item';
  const kind = item?.kind?.S ?? item?.entry?.M?.kind?.S;
  return kind ? `${stream}/${kind}` : stream;
}

/** DynamoDB's billed units of one write: the table's (the larger of the old and new item) and each index's. */
function writeUnits(table: string, definition: TableDefinition | undefined, before: Item | undefined, after: Item | undefined, applied: boolean): Record<string, number> {
  const size = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  const tableUnits = units(size, KB);
  const kind = `${table}:${kindOf(after ?? before)}`;
  const counted: Record<string, number> = { writeUnits: tableUnits, [`write:${kind}`]: tableUnits, [`writes:${kind}`]: 1, [`bytes:${kind}`]: size };
  if (!applied || !definition) return counted;
  let indexTotal = 0;
  for (const index of indexShapes(definition)) {
    const n = indexWriteUnits(index, before, after);
    if (n > 0) counted[`indexWrite:${table}/${index.name}`] = n;
    indexTotal += n;
  }
  counted.indexWriteUnits = indexTotal;
  return counted;
}

function readUnits(output: { ConsumedCapacity?: { CapacityUnits?: number; TableName?: string } | { CapacityUnits?: number; TableName?: string }[] } | undefined, fallbackTable: string): Record<string, number> {
  const consumed = output?.ConsumedCapacity;
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  const counted: Record<string, number> = { readUnits: 0 };
  for (const c of list) {
    counted.readUnits += c.CapacityUnits ?? 0;
    const key = `read:${c.TableName ?? fallbackTable}`;
    counted[key] = (counted[key] ?? 0) + (c.CapacityUnits ?? 0);
  }
  return counted;
}

type Input = Record<string, any>;
type Next = (args: { input: Input }) => Promise<{ output: Input }>;
type Context = { commandName?: string };

/** Reads answer their consumed capacity; a PutItem or DeleteItem answers the item it replaced (for the index rules). */
async function meterDynamo(input: Input, operation: string, run: (input: Input) => Promise<{ output: Input }>, tables: Record<string, TableDefinition>): Promise<{ result: { output: Input }; units: Record<string, number> }> {
  const table = String(input.TableName ?? '');
  if (operation === 'PutItem' || operation === 'DeleteItem' || operation === 'UpdateItem') {
    const askedOld = input.ReturnValues === 'ALL_OLD';
    const metered = operation === 'UpdateItem' ? input : { ...input, ReturnValues: 'ALL_OLD' };
    try {
      const result = await run(metered);
      const before = result.output.Attributes as Item | undefined;
      const after = operation === 'PutItem' ? input.Item as Item : operation === 'DeleteItem' ? undefined : before;
      if (!askedOld && operation !== 'UpdateItem') result.output = { ...result.output, Attributes: undefined };
      // UpdateItem is used only on tables without indexes (the rejected events' counter); its table units suffice.
      return { result, units: writeUnits(table, tables[table], before, after, true) };
    } catch (error) {
      // A refused conditional write still pays for the item it would have written.
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') {
        throw Object.assign(error as object, { meteredUnits: writeUnits(table, tables[table], undefined, input.Item as Item | undefined, false) });
      }
      throw error;
    }
  }
  const result = await run({ ...input, ReturnConsumedCapacity: 'TOTAL' });
  const units = readUnits(result.output as never, table);
  // Reads of the early-release exposure (contract 6.4), apart, so that the bill can say what exposure adds.
  const pk = String(input.Key?.pk?.S ?? input.ExpressionAttributeValues?.[':pk']?.S ?? '');
  if (pk.startsWith('EXPOSURE#')) units['read:exposure'] = units.readUnits;
  Object.assign(units, readKinds(operation, input, units.readUnits));
  result.output = { ...result.output, ConsumedCapacity: undefined };
  return { result, units };
}

/** A key's kind for the reads' breakdown: its partition key's prefix and its sort key's (`POLICY/HOLD`, `order/#`). */
function keyKind(key: Item | undefined, pk?: string): string {
  const p = (pk ?? key?.pk?.S ?? '').split('#')[0] || 'item';
  const sk = key?.sk?.S;
  return sk === undefined ? p : `${p}/${/^\d+$/.test(sk) ? '#' : sk.split('#')[0]}`;
}

/**
 * Which items the reads asked for, counted by kind: `readKeys:<table>:<kind>` the keys a GetItem or BatchGetItem
 * asked for (a batch's units are per table only: each key costs a unit a started 4 KB when consistent, half when
 * not, missing ones included), `readQuery:<table>:<kind>` a query's units by its partition's kind (by the index's
 * name for an index's: `readQuery:<table>/<index>`).
 */
function readKinds(operation: string, input: Input, units: number): Record<string, number> {
  const counted: Record<string, number> = {};
  const add = (name: string, n: number) => { counted[name] = (counted[name] ?? 0) + n; };
  if (operation === 'GetItem') add(`readKeys:${input.TableName}:${keyKind(input.Key as Item)}${input.ConsistentRead ? '' : ' (eventual)'}`, 1);
  if (operation === 'BatchGetItem') {
    for (const [table, asked] of Object.entries((input.RequestItems ?? {}) as Record<string, Input>)) {
      for (const key of (asked.Keys ?? []) as Item[]) add(`readKeys:${table}:${keyKind(key)}${asked.ConsistentRead ? '' : ' (eventual)'}`, 1);
    }
  }
  // An index's partition keys are days or states, not kinds: its queries are counted by the index's name.
  if (operation === 'Query') add(input.IndexName ? `readQuery:${input.TableName}/${input.IndexName}` : `readQuery:${input.TableName}:${keyKind(undefined, String(input.ExpressionAttributeValues?.[':pk']?.S ?? '?'))}`, units);
  return counted;
}

function payloadChunks(bytes: number): number {
  return units(bytes, CHUNK);
}

/** Other services: requests, and the chunks a request is billed as. */
function otherUnits(service: string, operation: string, input: Input): Record<string, number> {
  if (service === 'EventBridge' && operation === 'PutEvents') {
    const entries = (input.Entries ?? []) as Input[];
    const chunks = entries.reduce((sum, e) => sum + payloadChunks(utf8(String(e.Detail ?? '')) + utf8(String(e.DetailType ?? '')) + utf8(String(e.Source ?? '')) + utf8(JSON.stringify(e.Resources ?? []))), 0);
    return { requests: 1, entries: entries.length, eventChunks: chunks };
  }
  if (service === 'SQS' && (operation === 'SendMessage' || operation === 'SendMessageBatch')) {
    const bodies = operation === 'SendMessage' ? [input] : (input.Entries ?? []) as Input[];
    const bytes = bodies.reduce((sum, e) => sum + utf8(String(e.MessageBody ?? '')), 0);
    return { requests: 1, messages: bodies.length, requestChunks: payloadChunks(bytes) };
  }
  return { requests: 1 };
}

let channel: BroadcastChannel | null = null;
function post(call: MeteredCall): void {
  channel ??= new BroadcastChannel(CHANNEL);
  (channel as unknown as { unref?: () => void }).unref?.();
  channel.postMessage(call);
}

/**
 * Adds the meter to a client's middleware stack (before its first call, so the cached stack has it). `service` is
 * the bill's name for it; `tables` the definitions by physical table name (DynamoDB's index rules need them).
 */
export function meterAwsCalls(client: { middlewareStack: unknown }, service: string, tables: Record<string, TableDefinition> = {}): void {
  const middleware = (next: Next, context: Context) => async (args: { input: Input }) => {
    const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
    const run = (input: Input) => next({ ...args, input });
    if (service === 'DynamoDB') {
      try {
        const { result, units: counted } = await meterDynamo(args.input, operation, run, tables);
        post({ service, operation, units: counted });
        return result;
      } catch (error) {
        const counted = (error as { meteredUnits?: Record<string, number> }).meteredUnits;
        if (counted) post({ service, operation: `${operation} (condition failed)`, units: counted });
        throw error;
      }
    }
    const result = await next(args);
    post({ service, operation, units: otherUnits(service, operation, args.input) });
    return result;
  };
  (client.middlewareStack as Stack).add(middleware, { step: 'initialize', name: 'holdbackAwsCallMeter', override: true });
}

/** The composition root's client hook: meters each client, with the configured tables' definitions. */
export const clientHook: ClientHook = (client, service, config) => {
  meterAwsCalls(client, service, {
    [config.tables.orders]: TABLES.orders, [config.tables.config]: TABLES.config, [config.tables.rejected]: TABLES.rejected,
    [config.audit.table]: AUDIT_TABLE,
  });
};

/** The tally of every thread's calls, by "service operation": calls and summed units. */
export class AwsCallTally {
  private readonly listener = new BroadcastChannel(CHANNEL);
  readonly calls = new Map<string, { service: string; operation: string; calls: number; units: Record<string, number> }>();

  constructor() {
    this.listener.onmessage = (message: unknown) => this.add((message as { data: MeteredCall }).data);
  }

  add(call: MeteredCall): void {
    const key = `${call.service} ${call.operation}`;
    const entry = this.calls.get(key) ?? { service: call.service, operation: call.operation, calls: 0, units: {} };
    entry.calls += 1;
    for (const [name, n] of Object.entries(call.units)) entry.units[name] = (entry.units[name] ?? 0) + n;
    this.calls.set(key, entry);
  }

  /** The summed units of every call of `service` (all operations), or of the operations given. */
  total(service: string, unit: string, operations?: string[]): number {
    let sum = 0;
    for (const entry of this.calls.values()) {
      if (entry.service !== service || (operations && !operations.includes(entry.operation))) continue;
      sum += entry.units[unit] ?? 0;
    }
    return sum;
  }

  /** Every unit name's sum over the calls of `service` (the breakdown by table, index and kind of item). */
  breakdown(service: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const entry of this.calls.values()) {
      if (entry.service !== service) continue;
      for (const [name, n] of Object.entries(entry.units)) out[name] = (out[name] ?? 0) + n;
    }
    return out;
  }

  close(): void {
    this.listener.close();
  }
}
