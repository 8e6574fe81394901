/** Vendor holds in the config table: `POLICY#vid`/`HOLD`, the vendor's last hold or unhold, read consistently. */
import type { DocumentClient } from './document-client';
import type { VendorHold } from '../../domain/types';
import type { VendorHoldRepository } from '../../application/ports';
import { gatheredGets, withoutKeys, type GatheredGets } from './item-keys';
import { policyPk } from './versioned-items';

/** Beside the vendor's policy, in the same partition, so that the planner's batch read fetches both (config-reader.ts). */
export const HOLD_SK = 'HOLD';

export class DynamoHoldRepository implements VendorHoldRepository {
  private readonly gathered: GatheredGets;

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {
    this.gathered = gatheredGets(doc, tableName);
  }

  /**
   * Consistent, as every hold read. Gets asked for together (a planner confirming each vendor of an order, `Promise.all`,
   * and the other invocations of the container) go out as one consistent BatchGetItem with the turn's other reads of
   * the table instead of a GetItem each: one round trip, the same read units.
   */
  async get(vendorId: string): Promise<VendorHold | null> {
    const item = await this.gathered.get({ pk: policyPk(vendorId), sk: HOLD_SK }, true);
    return item ? withoutKeys<VendorHold>(item, [], ['at']) : null;
  }

  async put(hold: VendorHold): Promise<void> {
    await this.doc.put({ TableName: this.tableName, Item: { pk: policyPk(hold.vendorId), sk: HOLD_SK, ...hold } });
  }
}
