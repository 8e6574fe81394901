/** Orders, their events and per-vendor releases in the orders table, with the due and by-vendor indexes. */
import { createHash } from 'node:crypto';
import type { DocumentClient, PutInput } from './document-client';
import type { OrderRecord, StoredEvent, VendorRelease } from '../../domain/types';
import { VersionConflictError, type OrderRepository, type StoredOrder } from '../../application/ports';
import { DUE_INDEX, DUE_SHARDS, VENDOR_INDEX } from './tables';
import { isConditionalCheckFailed, queryItems, utcSortKey, withoutKeys } from './item-keys';

const orderPk = (orderId: string): string => `ORDER#${orderId}`;
const META_SK = 'META';
/**
 * Set on the `META` item of an order whose events came before its payment (the item holds nothing else until the
 * payment replaces it with the order record).
 */
const AWAITING_PAYMENT = 'awaitingPayment';
const EVENT_PREFIX = 'EVENT#';
const RELEASE_PREFIX = 'VENDOR#';
const INDEX_ATTRIBUTES = [DUE_INDEX.pk, DUE_INDEX.sk, VENDOR_INDEX.pk, VENDOR_INDEX.sk] as const;
/** Sorts after every character an id may hold ([A-Za-z0-9_-]), so `to#~` includes every order at time `to`. */
const AFTER_ANY_ID = '~';

/** The due-index shard of one release: stable for an order and vendor, spread evenly over the shards. */
export function dueShard(orderId: string, vendorId: string): string {
  const digest = createHash('sha256').update(`${orderId}\u0000${vendorId}`).digest();
  return `DUE#${digest.readUInt32BE(0) % DUE_SHARDS}`;
}

function releaseItem(release: VendorRelease): Record<string, unknown> {
  return {
    pk: orderPk(release.orderId),
    sk: RELEASE_PREFIX + release.vendorId,
    ...release,
    // Sparse: a release with nothing pending has no due-index attributes, so it is not in the index at all.
    ...(release.sendAt !== null
      ? { [DUE_INDEX.pk]: dueShard(release.orderId, release.vendorId), [DUE_INDEX.sk]: utcSortKey(release.sendAt, 'sendAt') }
      : {}),
    [VENDOR_INDEX.pk]: RELEASE_PREFIX + release.vendorId,
    [VENDOR_INDEX.sk]: `${utcSortKey(release.transactionTime, 'transactionTime')}#${release.orderId}`,
  };
}

const toRelease = (item: Record<string, unknown>): VendorRelease => withoutKeys<VendorRelease>(item, INDEX_ATTRIBUTES);

/** The order record of a `META` item; none while the order only awaits its payment. */
function toOrder(item: Record<string, unknown> | undefined): OrderRecord | null {
  return item && !item[AWAITING_PAYMENT] ? withoutKeys<OrderRecord>(item) : null;
}

/** Events in the order they were received; each receipt time is parsed once, not once per comparison. */
function inReceiptOrder(items: Record<string, unknown>[]): StoredEvent[] {
  const keyed = items.map((item) => {
    const event = withoutKeys<StoredEvent>(item);
    return { event, order: `${utcSortKey(event.receivedAt, 'receivedAt')}\u0000${event.key}` };
  });
  return keyed.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0)).map(({ event }) => event);
}

/** Oldest send first; ties in a stable order so the sweep is deterministic. */
function bySendAt(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const key = (item: Record<string, unknown>): string => `${item[DUE_INDEX.sk]}\u0000${item.orderId}\u0000${item.vendorId}`;
  const [ka, kb] = [key(a), key(b)];
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export class DynamoOrderRepository implements OrderRepository {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  recordEvent(event: StoredEvent): Promise<boolean> {
    return this.putOnce({ pk: orderPk(event.orderId), sk: EVENT_PREFIX + event.key, ...event });
  }

  /** The order's events, in the order they were received (the domain folds them by their own times). */
  async listEvents(orderId: string): Promise<StoredEvent[]> {
    return inReceiptOrder(await this.queryOrder(orderId, EVENT_PREFIX));
  }

  /** One query of the order's partition: its record, events and releases all live under `ORDER#id`. */
  async loadOrder(orderId: string): Promise<StoredOrder> {
    let meta: Record<string, unknown> | undefined;
    const events: Record<string, unknown>[] = [];
    const releases: VendorRelease[] = [];
    for (const item of await this.queryOrder(orderId)) {
      const sk = item.sk as string;
      if (sk === META_SK) meta = item;
      else if (sk.startsWith(EVENT_PREFIX)) events.push(item);
      else if (sk.startsWith(RELEASE_PREFIX)) releases.push(toRelease(item));
    }
    return { order: toOrder(meta), events: inReceiptOrder(events), releases };
  }

  async getOrder(orderId: string): Promise<OrderRecord | null> {
    return toOrder(await this.getItem(orderId, META_SK));
  }

  /** One write whose old item (returned by ALL_OLD) tells whether events were waiting for this payment. */
  async createOrder(order: OrderRecord): Promise<'new' | 'awaited' | 'exists'> {
    try {
      const answer = await this.doc.put({
        TableName: this.tableName,
        Item: { pk: orderPk(order.orderId), sk: META_SK, ...order },
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

  async markAwaitingPayment(orderId: string): Promise<boolean> {
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

  async getRelease(orderId: string, vendorId: string): Promise<VendorRelease | null> {
    const item = await this.getItem(orderId, RELEASE_PREFIX + vendorId);
    return item ? toRelease(item) : null;
  }

  async listReleases(orderId: string): Promise<VendorRelease[]> {
    return (await this.queryOrder(orderId, RELEASE_PREFIX)).map(toRelease);
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
    try {
      await this.doc.put({ TableName: this.tableName, Item: releaseItem(release), ...condition });
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
   * Releases whose `sendAt` is at or before `before`, oldest first. Each shard is read up to `limit` in time order,
   * so the merge of the shards' heads is exactly the overall oldest `limit`.
   */
  async listDue(before: string, limit: number): Promise<VendorRelease[]> {
    if (limit <= 0) return [];
    const until = utcSortKey(before, 'before');
    const shards = await Promise.all(Array.from({ length: DUE_SHARDS }, (_, shard) => queryItems(this.doc, {
      TableName: this.tableName,
      IndexName: DUE_INDEX.name,
      KeyConditionExpression: '#pk = :pk AND #sk <= :until',
      ExpressionAttributeNames: { '#pk': DUE_INDEX.pk, '#sk': DUE_INDEX.sk },
      ExpressionAttributeValues: { ':pk': `DUE#${shard}`, ':until': until },
      ScanIndexForward: true,
    }, limit)));
    return shards.flat().sort(bySendAt).slice(0, limit).map(toRelease);
  }

  /**
   * Releases of one vendor ordered by transaction time, oldest first. `from` and `to` (ISO 8601 instants, both
   * inclusive) bound the transaction time.
   */
  async listByVendor(vendorId: string, opts: { from?: string; to?: string; limit?: number } = {}): Promise<VendorRelease[]> {
    const names: Record<string, string> = { '#pk': VENDOR_INDEX.pk };
    const values: Record<string, unknown> = { ':pk': RELEASE_PREFIX + vendorId };
    let range = '';
    const from = opts.from !== undefined ? utcSortKey(opts.from, 'from') : undefined;
    const to = opts.to !== undefined ? `${utcSortKey(opts.to, 'to')}#${AFTER_ANY_ID}` : undefined;
    if (from !== undefined && to !== undefined) {
      if (from > to) return [];
      range = ' AND #sk BETWEEN :from AND :to';
      Object.assign(values, { ':from': from, ':to': to });
    } else if (from !== undefined) {
      range = ' AND #sk >= :from';
      values[':from'] = from;
    } else if (to !== undefined) {
      range = ' AND #sk <= :to';
      values[':to'] = to;
    }
    if (range) names['#sk'] = VENDOR_INDEX.sk;
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      IndexName: VENDOR_INDEX.name,
      KeyConditionExpression: `#pk = :pk${range}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: true,
    }, opts.limit);
    return items.map(toRelease);
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
