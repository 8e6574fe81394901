/** Vendor holds in the config table: `POLICY#vid`/`HOLD`, the vendor's last hold or unhold, read consistently. */
import type { DocumentClient } from './document-client';
import type { VendorHold } from '../../domain/types';
import type { VendorHoldRepository } from '../../application/ports';
import { withoutKeys } from './item-keys';
import { policyPk } from './versioned-items';

/** Beside the vendor's policy, in the same partition, so that the planner's batch read fetches both (config-reader.ts). */
export const HOLD_SK = 'HOLD';

export class DynamoHoldRepository implements VendorHoldRepository {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async get(vendorId: string): Promise<VendorHold | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk: policyPk(vendorId), sk: HOLD_SK }, ConsistentRead: true });
    return item ? withoutKeys<VendorHold>(item) : null;
  }

  async put(hold: VendorHold): Promise<void> {
    await this.doc.put({ TableName: this.tableName, Item: { pk: policyPk(hold.vendorId), sk: HOLD_SK, ...hold } });
  }
}
