/**
 * Early-release exposure in the orders table (contract 6.4): `EXPOSURE#vid`/`E#<currency>#<UTC closesAt>#<orderId>`,
 * one item per early release sorted by the instant its risk window closes, and `EXPOSURE#vid`/`V#<currency>`, the
 * vendor and currency's version that the cap check moves conditionally. A closed entry expires by TTL a day later.
 * A removed entry is overwritten with a tombstone (`removed`), never deleted: no role deletes from the orders table
 * (the stack grants no DeleteItem there), and TTL takes the tombstone away as it would the entry.
 */
import type { DocumentClient } from './document-client';
import type { ExposureEntry } from '../../domain/exposure';
import type { ExposureAtClose, ExposureLedger } from '../../application/ports';
import { TTL_ATTRIBUTE } from '../../definitions/tables';
import { isConditionalCheckFailed, queryItems, utcSortKey, withoutKeys } from './item-keys';
import type { Instant } from '../../domain/instant';

const exposurePk = (vendorId: string): string => `EXPOSURE#${vendorId}`;
const entrySk = (e: Pick<ExposureEntry, 'currency' | 'closesAt' | 'orderId'>): string => `E#${e.currency}#${utcSortKey(e.closesAt, 'closesAt')}#${e.orderId}`;
/** A closed entry is kept a day for readers that began before it closed, then DynamoDB removes it. */
const KEPT_AFTER_CLOSE_S = 86_400;
/** The attribute of a removed entry's tombstone. */
const REMOVED = 'removed';
const expiresAtOf = (entry: Pick<ExposureEntry, 'closesAt'>): number => Math.ceil(entry.closesAt.ms / 1000) + KEPT_AFTER_CLOSE_S;

export class DynamoExposureLedger implements ExposureLedger {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async open(vendorId: string, now: Instant, currency?: string): Promise<ExposureEntry[]> {
    const prefix = currency ? `E#${currency}#` : 'E#';
    // Sort keys after now: `E#INR#<now>` < every entry of INR that closes later; other currencies are filtered below.
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': exposurePk(vendorId), ':from': currency ? `${prefix}${utcSortKey(now, 'now')}~` : prefix, ':to': `${prefix}\uffff` },
      ConsistentRead: true,
    });
    return items.filter((item) => item[REMOVED] !== true)
      .map((item) => withoutKeys<ExposureEntry>(item, [TTL_ATTRIBUTE], ['closesAt', 'releasedAt']))
      .filter((e) => e.closesAt.ms > now.ms);
  }

  async version(vendorId: string, currency: string): Promise<number> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk: exposurePk(vendorId), sk: `V#${currency}` }, ConsistentRead: true });
    return typeof item?.version === 'number' ? item.version : 0;
  }

  async bump(vendorId: string, currency: string, expected: number): Promise<boolean> {
    try {
      await this.doc.put({
        TableName: this.tableName,
        Item: { pk: exposurePk(vendorId), sk: `V#${currency}`, version: expected + 1 },
        ConditionExpression: expected === 0 ? 'attribute_not_exists(pk)' : 'version = :expected',
        ...(expected === 0 ? {} : { ExpressionAttributeValues: { ':expected': expected } }),
      });
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  async put(entry: ExposureEntry): Promise<void> {
    await this.doc.put({ TableName: this.tableName, Item: { pk: exposurePk(entry.vendorId), sk: entrySk(entry), ...entry, [TTL_ATTRIBUTE]: expiresAtOf(entry) } });
  }

  async atCloses(vendorId: string, currency: string, orderId: string, closes: readonly Instant[]): Promise<ExposureAtClose[]> {
    const found = await Promise.all(closes.map(async (closesAt): Promise<ExposureAtClose | null> => {
      const item = await this.doc.get({ TableName: this.tableName, Key: { pk: exposurePk(vendorId), sk: entrySk({ currency, closesAt, orderId }) }, ConsistentRead: true });
      if (!item) return null;
      return { closesAt, entry: item[REMOVED] === true ? 'removed' : withoutKeys<ExposureEntry>(item, [TTL_ATTRIBUTE], ['closesAt', 'releasedAt']) };
    }));
    return found.filter((f): f is ExposureAtClose => f !== null);
  }

  async remove(entry: Pick<ExposureEntry, 'vendorId' | 'currency' | 'orderId' | 'closesAt'>): Promise<void> {
    await this.doc.put({ TableName: this.tableName, Item: { pk: exposurePk(entry.vendorId), sk: entrySk(entry), [REMOVED]: true, [TTL_ATTRIBUTE]: expiresAtOf(entry) } });
  }
}
