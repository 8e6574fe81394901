/** Vendor holds in the config table: `POLICY#vid`/`HOLD`, the vendor's last hold or unhold, read consistently. */
import type { DocumentClient } from './document-client';
import type { VendorHold } from '../../domain/types';
import type { VendorHoldRepository } from '../../application/ports';
import { batchGetItems, withoutKeys } from './item-keys';
import { policyPk } from './versioned-items';

/** Beside the vendor's policy, in the same partition, so that the planner's batch read fetches both (config-reader.ts). */
export const HOLD_SK = 'HOLD';

type Waiting = { resolve: (hold: VendorHold | null) => void; reject: (error: unknown) => void }[];

export class DynamoHoldRepository implements VendorHoldRepository {
  /** The gets asked for in this turn of the event loop, by vendor, read together at its end. */
  private asked: Map<string, Waiting> | null = null;

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  /**
   * Consistent, as every hold read. Gets asked for together (a planner confirming each vendor of an order, `Promise.all`)
   * go out as one consistent BatchGetItem instead of a GetItem each: one round trip, the same read units.
   */
  get(vendorId: string): Promise<VendorHold | null> {
    return new Promise((resolve, reject) => {
      if (!this.asked) {
        this.asked = new Map();
        queueMicrotask(() => void this.readAsked());
      }
      const waiting = this.asked.get(vendorId) ?? [];
      waiting.push({ resolve, reject });
      this.asked.set(vendorId, waiting);
    });
  }

  private async readAsked(): Promise<void> {
    const asked = this.asked!;
    this.asked = null;
    const vendorIds = [...asked.keys()];
    try {
      const items = vendorIds.length === 1
        ? [await this.doc.get({ TableName: this.tableName, Key: { pk: policyPk(vendorIds[0]), sk: HOLD_SK }, ConsistentRead: true })].filter((i) => i !== null && i !== undefined)
        : await batchGetItems(this.doc, this.tableName, vendorIds.map((vendorId) => ({ pk: policyPk(vendorId), sk: HOLD_SK })), true);
      const byPk = new Map(items.map((item) => [item!.pk as string, item!]));
      for (const [vendorId, waiting] of asked) {
        const item = byPk.get(policyPk(vendorId));
        for (const w of waiting) w.resolve(item ? withoutKeys<VendorHold>(item, [], ['at']) : null);
      }
    } catch (error) {
      for (const waiting of asked.values()) for (const w of waiting) w.reject(error);
    }
  }

  async put(hold: VendorHold): Promise<void> {
    await this.doc.put({ TableName: this.tableName, Item: { pk: policyPk(hold.vendorId), sk: HOLD_SK, ...hold } });
  }
}
