/** What the DynamoDB repositories share: key text, UTC sort keys, paginated queries and conditional-write failures. */
import { backoffDelayMs, type Backoff } from '../../../kit/backoff';
import { Instant } from '../../domain/instant';
import type { Attempt } from '../../domain/types';
import type { DocumentClient, Projection, QueryInput } from './document-client';
import { KEY } from '../../definitions/tables';

/**
 * An instant as fixed-width UTC text ("2022-12-02T10:30:00.000Z"), so that text order is time order in a sort key.
 * Items keep their offset form; only index keys are normalised.
 */
export function utcSortKey(instant: Instant | string, field: string): string {
  // Instant.parse refuses a time without an offset (a ValidationError naming the field) instead of guessing a zone.
  return new Date((instant instanceof Instant ? instant : Instant.parse(instant, field)).ms).toISOString();
}

/** A stored time attribute as an Instant; null and absent stay as they are. */
export function readTime(value: unknown, field: string): Instant | null | undefined {
  if (value === null || value === undefined || value instanceof Instant) return value;
  return Instant.parse(value, field);
}

/** `record` with its named time attributes read as Instants (a copy; null and absent ones stay as they are). */
export function withTimes<T>(record: Record<string, unknown> | null | undefined, fields: readonly string[]): T {
  if (record === null || record === undefined) return record as T;
  const copy: Record<string, unknown> = { ...record };
  for (const name of fields) if (copy[name] !== undefined) copy[name] = readTime(copy[name], name);
  return copy as T;
}

/** Version sort key: zero-padded so that text order is numeric order. */
export function versionSortKey(version: number): string {
  if (!Number.isInteger(version) || version < 0) {
    throw new Error(`version: ${version} is not a non-negative integer; send 0, 1, 2...`);
  }
  return `V#${String(version).padStart(10, '0')}`;
}

/** Removes the key and index attributes a repository added, giving back the domain record. */
export function withoutKeys<T>(item: Record<string, unknown>, extra: readonly string[] = [], times: readonly string[] = []): T {
  // Copied without them rather than copied whole and then deleted from: an object that loses properties becomes a
  // dictionary, slower to read for everything after (a preview reads 100,000 releases this way).
  const left = leftOutOf(extra);
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(item)) if (!left.has(name)) copy[name] = item[name];
  for (const name of times) if (copy[name] !== undefined) copy[name] = readTime(copy[name], name);
  return copy as T;
}

/** The names withoutKeys leaves out, kept per list (the lists are constants of their callers). */
const leftOut = new WeakMap<readonly string[], ReadonlySet<string>>();
function leftOutOf(extra: readonly string[]): ReadonlySet<string> {
  let names = leftOut.get(extra);
  if (!names) {
    names = new Set([KEY.pk, KEY.sk, ...extra]);
    leftOut.set(extra, names);
  }
  return names;
}

export function isConditionalCheckFailed(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'ConditionalCheckFailedException';
}

/** Every item of a query (following LastEvaluatedKey), or the first `limit`. */
export async function queryItems(
  doc: DocumentClient, input: QueryInput, limit = Number.POSITIVE_INFINITY,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const remaining = limit - items.length;
    const page = await doc.query({
      ...input,
      ExclusiveStartKey: start,
      ...(Number.isFinite(remaining) ? { Limit: remaining } : {}),
    });
    items.push(...page.items);
    start = page.lastEvaluatedKey;
  } while (start && items.length < limit);
  return items;
}

/** BatchGetItem's limit of keys per call. */
const MAX_BATCH_GET_KEYS = 100;
/** Unprocessed keys (throttling) are asked again, after a short, growing pause, at most this often. */
const MAX_BATCH_GET_ROUNDS = 8;
/** Before asking again for throttled keys: 40 ms doubling (round 2 waits up to 40 ms, round 8 up to 2.56 s), full jitter. */
const UNPROCESSED_BACKOFF: Backoff = { firstMs: 40, capMs: 2560, jitter: 1 };

/**
 * Every item of `keys` that exists (any number of keys), asking unprocessed keys again. The calls of 100 keys run
 * together: a page of outcomes (250 orders of three vendors) is ten calls, waited for once.
 */
export async function batchGetItems(
  doc: DocumentClient, tableName: string, keys: Record<string, unknown>[], consistentRead: boolean, projection?: Projection,
): Promise<Record<string, unknown>[]> {
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < keys.length; i += MAX_BATCH_GET_KEYS) chunks.push(keys.slice(i, i + MAX_BATCH_GET_KEYS));
  const found = await Promise.all(chunks.map(async (chunk) => {
    const items: Record<string, unknown>[] = [];
    let pending = chunk;
    for (let round = 1; pending.length > 0; round += 1) {
      if (round > MAX_BATCH_GET_ROUNDS) {
        throw new Error(`table ${tableName}: ${pending.length} keys still unprocessed after ${MAX_BATCH_GET_ROUNDS} rounds (throttled); try again`);
      }
      if (round > 1) await new Promise((resolve) => setTimeout(resolve, backoffDelayMs(round - 1, UNPROCESSED_BACKOFF)));
      const answer = await doc.batchGet(tableName, pending, consistentRead, projection);
      items.push(...answer.items);
      pending = answer.unprocessed;
    }
    return items;
  }));
  return found.flat();
}

/** A table key as the repositories write it. */
export interface ItemKey {
  pk: string;
  sk: string;
}

const keyText = (pk: unknown, sk: unknown): string => `${String(pk)}\u0000${String(sk)}`;

type GetAsked = { keys: ItemKey[]; consistent: boolean; resolve: (found: Map<string, Record<string, unknown>>) => void; reject: (error: unknown) => void };

/**
 * Reads of single items of one table asked for in the same turn of the event loop, read together: one BatchGetItem (one
 * GetItem for a key alone), consistent when any of the turn's reads asks for consistency. An eventually consistent
 * read answered by a consistent one sees at least as much, at a full read unit instead of half, and saves a call (a
 * BatchGetItem is one consistency per table). A Lambda container runs the records of an SQS batch at once (locally,
 * every invocation it hosts), and each reads its release and the config stamp (config-stamp.ts; the settings, policies
 * and holds only after a change): ten records cost one call of each kind instead of ten. Each read is sent after every
 * caller asked for it, never before, so a caller that wrote and then reads sees its write (write, then read holds; the
 * same units); nothing is kept beyond the turn here (the config stamp's ConfigItems keeps config items across turns).
 * One per client and table (see `gatheredGets`), so that every repository of the table shares the turn's calls.
 */
export class GatheredGets {
  private waiting: GetAsked[] = [];

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  /** The items of `keys` that exist, by `itemKeyText(pk, sk)`. */
  getMany(keys: readonly ItemKey[], consistent: boolean): Promise<Map<string, Record<string, unknown>>> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => void this.flush());
      this.waiting.push({ keys: [...keys], consistent, resolve, reject });
    });
  }

  /** One item, or undefined when there is none. */
  async get(key: ItemKey, consistent: boolean): Promise<Record<string, unknown> | undefined> {
    return (await this.getMany([key], consistent)).get(keyText(key.pk, key.sk));
  }

  private async flush(): Promise<void> {
    const asked = this.waiting;
    this.waiting = [];
    // One consistency for the turn: consistent when any caller asked for it (see above).
    const consistent = asked.some((a) => a.consistent);
    const keys = [...new Map(asked.flatMap((a) => a.keys).map((k) => [keyText(k.pk, k.sk), { pk: k.pk, sk: k.sk }])).values()];
    try {
      const items = keys.length === 1
        ? [await this.doc.get({ TableName: this.tableName, Key: keys[0], ConsistentRead: consistent })].filter((item) => item !== undefined)
        : await batchGetItems(this.doc, this.tableName, keys, consistent);
      const found = new Map(items.map((item) => [keyText(item!.pk, item!.sk), item!]));
      for (const a of asked) a.resolve(found);
    } catch (error) {
      for (const a of asked) a.reject(error);
    }
  }
}

/** The text `GatheredGets.getMany` finds an item under. */
export const itemKeyText = (key: ItemKey): string => keyText(key.pk, key.sk);

const gatherers = new WeakMap<DocumentClient, Map<string, GatheredGets>>();

/** The one GatheredGets of this client and table (the repositories built on one client share it). */
export function gatheredGets(doc: DocumentClient, tableName: string): GatheredGets {
  let tables = gatherers.get(doc);
  if (!tables) gatherers.set(doc, (tables = new Map()));
  let gathered = tables.get(tableName);
  if (!gathered) tables.set(tableName, (gathered = new GatheredGets(doc, tableName)));
  return gathered;
}

/**
 * Consistent queries of whole partitions asked for in the same turn of the event loop, one query per partition: the
 * release function reads an order after claiming each of its vendors' releases, and the vendors of one order usually
 * come in one SQS batch, claimed at once. As GatheredGets: sent after every caller asked, nothing kept beyond the turn;
 * each caller past the first gets its own copy of the items.
 */
export class GatheredPartitions {
  private waiting = new Map<string, { resolve: (items: Record<string, unknown>[]) => void; reject: (error: unknown) => void }[]>();

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  items(pk: string): Promise<Record<string, unknown>[]> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) setImmediate(() => void this.flush());
      const callers = this.waiting.get(pk) ?? [];
      callers.push({ resolve, reject });
      this.waiting.set(pk, callers);
    });
  }

  private async flush(): Promise<void> {
    const asked = this.waiting;
    this.waiting = new Map();
    await Promise.all([...asked].map(async ([pk, callers]) => {
      try {
        const items = await queryItems(this.doc, {
          TableName: this.tableName, KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': KEY.pk }, ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true,
        });
        callers.forEach((caller, i) => caller.resolve(i === 0 ? items : structuredClone(items)));
      } catch (error) {
        for (const caller of callers) caller.reject(error);
      }
    }));
  }
}

/** The times of an order record (its `META` item). */
export const ORDER_TIMES = ['transactionTime', 'maxEligibility', 'recordedAt'] as const;

/** The times of a release item's top level (its nested records' times are named in readReleaseTimes). */
const RELEASE_TIMES = [
  'transactionTime', 'maxEligibility', 'targetEligibility', 'sendAt', 'appliedEligibility', 'predictedSettlement', 'settledAt',
  'plannedSendAt', 'orderNotFoundSince', 'updatedAt',
] as const;

/** A stored attempt with its times read. */
function attemptOf(attempt: Record<string, unknown>): Attempt {
  const read = withTimes<Attempt>(attempt, ['at']);
  if (read.confirmedFromRecon) read.confirmedFromRecon = withTimes(read.confirmedFromRecon as unknown as Record<string, unknown>, ['at', 'eligibility']);
  return read;
}

/** A release read from its item (a fresh copy, changed in place): its times, nested ones included, as Instants. */
export function readReleaseTimes(release: Record<string, unknown>): Record<string, unknown> {
  for (const name of RELEASE_TIMES) if (release[name] !== undefined) release[name] = readTime(release[name], name);
  if (Array.isArray(release.attempts)) release.attempts = release.attempts.map((a) => attemptOf(a as Record<string, unknown>));
  if (release.clamp) release.clamp = withTimes(release.clamp as Record<string, unknown>, ['requested', 'clampedTo']);
  if (release.manual) release.manual = withTimes(release.manual as Record<string, unknown>, ['at', 'requestedAt']);
  if (release.sending) release.sending = withTimes(release.sending as Record<string, unknown>, ['claimedAt']);
  if (release.exposure) release.exposure = withTimes(release.exposure as Record<string, unknown>, ['closesAt']);
  if (release.settlementMismatch) release.settlementMismatch = withTimes(release.settlementMismatch as Record<string, unknown>, ['predicted', 'settledAt']);
  if (release.settledFrom) release.settledFrom = withTimes(release.settledFrom as Record<string, unknown>, ['appliedEligibility', 'predictedSettlement']);
  return release;
}
