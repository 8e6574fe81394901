/** Vendor holds in the config table: `POLICY#vid`/`HOLD`, the vendor's last hold or unhold, read consistently. */
import type { DocumentClient } from './document-client';
import type { VendorHold } from '../../domain/types';
import type { VendorHoldRepository } from '../../application/ports';
import { itemKeyText, withoutKeys } from './item-keys';
import { policyPk } from './versioned-items';
import { ConfigStamp, configItems, type ConfigItems } from './config-stamp';

/** Beside the vendor's policy, in the same partition, so that the planner's batch read fetches both (config-reader.ts). */
export const HOLD_SK = 'HOLD';

export class DynamoHoldRepository implements VendorHoldRepository {
  private readonly items: ConfigItems;
  /** A hold is what planning reads: each change of it moves the config stamp (config-stamp.ts). */
  private readonly stamp: ConfigStamp;

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {
    this.items = configItems(doc, tableName);
    this.stamp = new ConfigStamp(doc, tableName);
  }

  /**
   * Consistent, as every hold read, through the config stamp (config-stamp.ts): a container that read the hold since
   * the last change answers it for the stamp's read alone. Gets asked for together (a planner confirming each vendor
   * of an order, `Promise.all`) share that one read of the stamp, gathered with the turn's other reads of the table.
   */
  async get(vendorId: string): Promise<VendorHold | null> {
    const key = { pk: policyPk(vendorId), sk: HOLD_SK };
    const item = (await this.items.getMany([key])).get(itemKeyText(key));
    return item ? withoutKeys<VendorHold>(item, [], ['at']) : null;
  }

  async put(hold: VendorHold): Promise<void> {
    await this.stamp.change(() => this.doc.put({ TableName: this.tableName, Item: { pk: policyPk(hold.vendorId), sk: HOLD_SK, ...hold } }));
  }
}
