/** Orders, their events and per-vendor releases in the orders table, with the keys of the due and the read-side indexes. */
import { createHash } from 'node:crypto';
import type { DocumentClient, PutInput } from './document-client';
import type { Instant } from '../../domain/instant';
import type { OrderEvent, OrderRecord, StoredEvent, VendorRelease } from '../../domain/types';
import { VersionConflictError, type OrderRepository, type StoredOrder } from '../../application/ports';
import { DUE_INDEX, DUE_SHARDS, TTL_ATTRIBUTE } from '../../definitions/tables';
import { expiryStamp, type RetentionDays } from './retention';
import {
  GatheredPartitions, ORDER_TIMES, batchGetItems, gatheredGets, isConditionalCheckFailed, queryItems, utcSortKey, withTimes, withoutKeys, type GatheredGets,
} from './item-keys';
import {
  DynamoReleaseReads, INDEX_ATTRIBUTES, META_SK, RELEASE_PREFIX, ReadDirectory, orderIndexKeys, orderPk, releaseIndexKeys,
  storedRelease, toRelease,
} from './release-reads';

/**
 * Set on the `META` item of an order whose events came before its payment (the item holds nothing else until the
 * payment replaces it with the order record).
 */
const AWAITING_PAYMENT = 'awaitingPayment';
const EVENT_PREFIX = 'EVENT#';

/** The due-index shard of one release: stable for an order and vendor, spread evenly over the shards. */
export function dueShard(orderId: string, vendorId: string): string {
  const digest = createHash('sha256').update(`${orderId}\u0000${vendorId}`).digest();
  return `DUE#${digest.readUInt32BE(0) % DUE_SHARDS}`;
}

/**
 * The due index's sort key of a release: none when nothing is pending (sparse: it is not in the index at all), else its
 * `sendAt`, except that a claim (APPLYING, whose `sendAt` is its deadline) keeps the key of the release it claimed,
 * `storedDueKey`, when that is known and earlier. The key is then set once when a send time is known and removed once
 * when the release is sent, instead of moving at the claim too (a delete and a put of the entry: 2 write units). The
 * sweep reads every release whose key has passed and checks `sendAt` itself; a key left early lists a claimed release
 * only while its send is in flight, and a retry (SCHEDULED at a later time) moves the key to that time again.
 */
export function dueSortKey(release: VendorRelease, storedDueKey?: string): string | null {
  if (release.sendAt === null) return null;
  const key = utcSortKey(release.sendAt, 'sendAt');
  return release.state === 'APPLYING' && storedDueKey !== undefined && storedDueKey <= key ? storedDueKey : key;
}

/**
 * A release as its table item (storedRelease's attributes), with every index key it qualifies for (sparse: the rest
 * are absent), and its expiry (`ordersDays` after the order's transaction time, as its order record's) when orders
 * expire. `storedDueKey`: the due key of the item this one replaces, when known (see dueSortKey).
 */
export function releaseItem(release: VendorRelease, ordersDays?: number, storedDueKey?: string): { item: Record<string, unknown>; months: string[] } {
  const { keys, months } = releaseIndexKeys(release);
  const due = dueSortKey(release, storedDueKey);
  return {
    item: {
      pk: orderPk(release.orderId),
      sk: RELEASE_PREFIX + release.vendorId,
      ...storedRelease(release),
      ...(due !== null ? { [DUE_INDEX.pk]: dueShard(release.orderId, release.vendorId), [DUE_INDEX.sk]: due } : {}),
      ...keys,
      ...expiryStamp(release.transactionTime, ordersDays, 'transactionTime'),
    },
    months,
  };
}

/** Most releases whose due key this process remembers; the oldest are forgotten first. */
const REMEMBERED_DUE_KEYS = 1000;

/**
 * The due key of each release item this process last read or wrote, with the item's version. A conditional write
 * expecting version N replaces exactly the item of version N, so the key remembered with N is the key it replaces;
 * with any other version (or none remembered) the key is unknown and dueSortKey takes `sendAt`. A claim reads its
 * release just before writing it, so the claim finds the key here.
 */
class DueKeyMemory {
  private readonly keys = new Map<string, { version: number; dueKey: string | undefined }>();

  /** Remembers the due key of a release item as read or written. */
  note(item: Record<string, unknown>): void {
    const id = `${item.pk}\u0000${item.sk}`;
    this.keys.delete(id);
    this.keys.set(id, { version: item.version as number, dueKey: item[DUE_INDEX.sk] as string | undefined });
    if (this.keys.size > REMEMBERED_DUE_KEYS) this.keys.delete(this.keys.keys().next().value as string);
  }

  /** The due key of the item of `version`, if that is the one remembered. */
  of(pk: string, sk: string, version: number): string | undefined {
    const known = this.keys.get(`${pk}\u0000${sk}`);
    return known?.version === version ? known.dueKey : undefined;
  }
}

/** An order record as its `META` item, in the paid index by transaction time, expiring `ordersDays` after it. */
export function orderItem(order: OrderRecord, ordersDays?: number): { item: Record<string, unknown>; month: string } {
  const { keys, month } = orderIndexKeys(order);
  const expiry = expiryStamp(order.transactionTime, ordersDays, 'transactionTime');
  return { item: { pk: orderPk(order.orderId), sk: META_SK, ...order, ...keys, ...expiry }, month };
}

/** The order record of a `META` item; none while the order only awaits its payment. */
function toOrder(item: Record<string, unknown> | undefined): OrderRecord | null {
  return item && !item[AWAITING_PAYMENT] ? withoutKeys<OrderRecord>(item, INDEX_ATTRIBUTES, ORDER_TIMES) : null;
}

/** The times an order event carries, by its type (the event's own time). */
const EVENT_TIMES = ['transactionTime', 'deliveredAt', 'openedAt', 'closedAt', 'cancelledAt'] as const;

/** A stored event of its item: its receipt time and the event's own time read as Instants. */
function storedEventOf(item: Record<string, unknown>): StoredEvent {
  const stored = withoutKeys<StoredEvent>(item, [TTL_ATTRIBUTE], ['receivedAt']);
  return { ...stored, event: withTimes<OrderEvent>(stored.event as unknown as Record<string, unknown>, EVENT_TIMES) };
}

/** Events in the order they were received; each receipt time is parsed once, not once per comparison. */
function inReceiptOrder(items: Record<string, unknown>[]): StoredEvent[] {
  const keyed = items.map((item) => {
    const event = storedEventOf(item);
    return { event, order: `${utcSortKey(event.receivedAt, 'receivedAt')}\u0000${event.key}` };
  });
  return keyed.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0)).map(({ event }) => event);
}

/** Oldest due key first; ties in a stable order (by order, then vendor) so the sweep is deterministic. */
function byDueKey(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const key = (item: Record<string, unknown>): string => `${item[DUE_INDEX.sk]}\u0000${item.pk}\u0000${item.sk}`;
  const [ka, kb] = [key(a), key(b)];
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export class DynamoOrderRepository implements OrderRepository {
  /** The read side over the same table; the writes below keep its indexes and directory. */
  readonly reads: DynamoReleaseReads;
  private readonly directory: ReadDirectory;
  private readonly dueKeys = new DueKeyMemory();
  /** The release reads of one turn, read together (GatheredGets): an SQS batch's ten commands cost one call, not ten. */
  private readonly gathered: GatheredGets;
  /** The order reads of one turn, one query per order (GatheredPartitions). */
  private readonly partitions: GatheredPartitions;

  /** `retention`: days after which orders (with their releases) and events expire; none given, nothing expires. */
  constructor(private readonly doc: DocumentClient, private readonly tableName: string, private readonly retention: RetentionDays = {}) {
    this.reads = new DynamoReleaseReads(doc, tableName);
    this.directory = this.reads.directory;
    this.gathered = gatheredGets(doc, tableName);
    this.partitions = new GatheredPartitions(doc, tableName);
  }

  recordEvent(event: StoredEvent): Promise<boolean> {
    return this.putOnce({
      pk: orderPk(event.orderId), sk: EVENT_PREFIX + event.key, ...event, ...expiryStamp(event.receivedAt, this.retention.events, 'receivedAt'),
    });
  }

  /** The order's events, in the order they were received (the domain folds them by their own times). */
  async listEvents(orderId: string): Promise<StoredEvent[]> {
    return inReceiptOrder(await this.queryOrder(orderId, EVENT_PREFIX));
  }

  /** One query of the order's partition (shared by the turn's reads of the order): its record, events and releases all live under `ORDER#id`. */
  async loadOrder(orderId: string): Promise<StoredOrder> {
    let meta: Record<string, unknown> | undefined;
    const events: Record<string, unknown>[] = [];
    const releases: VendorRelease[] = [];
    for (const item of await this.partitions.items(orderPk(orderId))) {
      const sk = item.sk as string;
      if (sk === META_SK) meta = item;
      else if (sk.startsWith(EVENT_PREFIX)) events.push(item);
      else if (sk.startsWith(RELEASE_PREFIX)) releases.push(this.releaseOf(item));
    }
    return { order: toOrder(meta), events: inReceiptOrder(events), releases };
  }

  async getOrder(orderId: string): Promise<OrderRecord | null> {
    return toOrder(await this.getItem(orderId, META_SK));
  }

  /** One write whose old item (returned by ALL_OLD) tells whether events were waiting for this payment. */
  async createOrder(order: OrderRecord): Promise<'new' | 'awaited' | 'exists'> {
    const { item, month } = orderItem(order, this.retention.orders);
    // The month first: a reader looks in the months it lists, so an order must never be in an unlisted one.
    await this.directory.noteMonth(month);
    try {
      const answer = await this.doc.put({
        TableName: this.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(#awaiting)',
        ExpressionAttributeNames: { '#awaiting': AWAITING_PAYMENT },
        ReturnValues: 'ALL_OLD',
      });
      return answer.old ? 'awaited' : 'new';
    } catch (error) {
      if (isConditionalCheckFailed(error)) return 'exists';
      throw error;
    }
  }

  /**
   * Read first: most events come after the payment, for which the conditional write would only be refused, yet billed
   * a write unit. The read may be eventually consistent (half a read unit, a tenth of the write's price): an order once
   * paid stays paid, so a record read, however stale, is the truth; anything else (no item, or the mark, which only the
   * payment replaces) is written conditionally as before.
   */
  async markAwaitingPayment(orderId: string): Promise<boolean> {
    const meta = await this.doc.get({ TableName: this.tableName, Key: { pk: orderPk(orderId), sk: META_SK } });
    if (toOrder(meta)) return false;
    try {
      await this.doc.put({
        TableName: this.tableName,
        Item: { pk: orderPk(orderId), sk: META_SK, orderId, [AWAITING_PAYMENT]: true },
        ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(#awaiting)',
        ExpressionAttributeNames: { '#awaiting': AWAITING_PAYMENT },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async adoptGatewayPayment(order: OrderRecord): Promise<boolean> {
    // The same item createOrder writes (paid-index keys, expiry): the gateway's time may move the order to another month.
    const { item, month } = orderItem(order, this.retention.orders);
    await this.directory.noteMonth(month);
    try {
      await this.doc.put({
        TableName: this.tableName,
        Item: item,
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#awaiting) AND (attribute_not_exists(#source) OR #source <> :gateway)',
        ExpressionAttributeNames: { '#awaiting': AWAITING_PAYMENT, '#source': 'transactionTimeSource' },
        ExpressionAttributeValues: { ':gateway': 'gateway' },
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async getRelease(orderId: string, vendorId: string): Promise<VendorRelease | null> {
    const item = await this.gathered.get({ pk: orderPk(orderId), sk: RELEASE_PREFIX + vendorId }, true);
    return item ? this.releaseOf(item) : null;
  }

  async listReleases(orderId: string): Promise<VendorRelease[]> {
    return (await this.queryOrder(orderId, RELEASE_PREFIX)).map((item) => this.releaseOf(item));
  }

  async putRelease(release: VendorRelease, expectedVersion: number | null): Promise<void> {
    const condition: Pick<PutInput, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> =
      expectedVersion === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
          ConditionExpression: '#version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': expectedVersion },
        };
    const pk = orderPk(release.orderId);
    const sk = RELEASE_PREFIX + release.vendorId;
    const storedDueKey = expectedVersion === null ? undefined : this.dueKeys.of(pk, sk, expectedVersion);
    const { item, months } = releaseItem(release, this.retention.orders, storedDueKey);
    // Directory entries first (cached, so mostly no I/O): a reader must never miss a month or a vendor that has items.
    if (expectedVersion === null) await this.directory.noteVendor(release.vendorId);
    for (const month of months) await this.directory.noteMonth(month);
    try {
      await this.doc.put({ TableName: this.tableName, Item: item, ...condition });
      this.dueKeys.note(item);
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        const expected = expectedVersion === null ? 'no release yet' : `version ${expectedVersion}`;
        throw new VersionConflictError(
          `release ${release.orderId}/${release.vendorId}: expected ${expected}, but it changed meanwhile; reload and retry`,
        );
      }
      throw error;
    }
  }

  /**
   * Releases whose due key is at or before `before`, oldest key first: every release whose `sendAt` is, and claimed
   * ones whose send is in flight (see dueSortKey), so the caller checks `sendAt`. Each shard is read up to `limit` in
   * key order, so the merge of the shards' heads is exactly the overall oldest `limit`. The index holds keys only
   * (the release's other writes leave it alone); the releases are read from the table, eventually consistent: the sweep
   * only puts commands on the queue, and the release function reads the release again, consistently, before acting.
   * A release no longer pending when read is left out. The shards are read one after another: the sweep runs once a
   * minute and waits on nobody, and a cold container then opens one connection (one TLS handshake on AWS) instead of
   * one a shard; the sweep's cold start fell from 1.15 to 1.07 times the reference's (`bench/run.ts bundles`).
   */
  async listDue(before: Instant, limit: number): Promise<VendorRelease[]> {
    if (limit <= 0) return [];
    const until = utcSortKey(before, 'before');
    const shards: Record<string, unknown>[][] = [];
    for (let shard = 0; shard < DUE_SHARDS; shard += 1) {
      shards.push(await queryItems(this.doc, {
        TableName: this.tableName,
        IndexName: DUE_INDEX.name,
        KeyConditionExpression: '#pk = :pk AND #sk <= :until',
        ExpressionAttributeNames: { '#pk': DUE_INDEX.pk, '#sk': DUE_INDEX.sk },
        ExpressionAttributeValues: { ':pk': `DUE#${shard}`, ':until': until },
        ScanIndexForward: true,
      }, limit));
    }
    const entries = shards.flat().sort(byDueKey).slice(0, limit);
    const items = await batchGetItems(this.doc, this.tableName, entries.map((entry) => ({ pk: entry.pk, sk: entry.sk })), false);
    const found = new Map(items.map((item) => [`${item.pk}\u0000${item.sk}`, item]));
    return entries.flatMap((entry) => {
      const item = found.get(`${entry.pk}\u0000${entry.sk}`);
      const release = item ? toRelease(item) : null;
      return release && release.sendAt !== null ? [release] : [];
    });
  }

  /** The release of an item read consistently, its due key remembered for the release's next write. */
  private releaseOf(item: Record<string, unknown>): VendorRelease {
    this.dueKeys.note(item);
    return toRelease(item);
  }

  /** Writes an item that must not exist yet; false when it did (the stored one stays). */
  private async putOnce(item: Record<string, unknown>): Promise<boolean> {
    try {
      await this.doc.put({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' });
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  private getItem(orderId: string, sk: string): Promise<Record<string, unknown> | undefined> {
    return this.doc.get({ TableName: this.tableName, Key: { pk: orderPk(orderId), sk }, ConsistentRead: true });
  }

  /** The items of one order, all of them or those whose sort key starts with `prefix`. */
  private queryOrder(orderId: string, prefix?: string): Promise<Record<string, unknown>[]> {
    return queryItems(this.doc, {
      TableName: this.tableName,
      ...(prefix === undefined
        ? { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': orderPk(orderId) } }
        : { KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)', ExpressionAttributeValues: { ':pk': orderPk(orderId), ':prefix': prefix } }),
      ConsistentRead: true,
    });
  }
}
