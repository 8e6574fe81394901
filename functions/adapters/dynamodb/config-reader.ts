/** The planner's read of the config table: the settings, every vendor's policy in force and hold, kept under the config stamp. */
import type { DocumentClient } from './document-client';
import type { VendorHold, VendorPolicy, VersionedSettings } from '../../domain/types';
import type { Clock, ConfigReader, PlanningConfig } from '../../application/ports';
import { itemKeyText, withoutKeys } from './item-keys';
import { configItems, type ConfigItems } from './config-stamp';
import { HOLD_SK } from './hold-repository';
import { OPEN_ORDERS_SK } from './open-order-policy-repository';
import { unsavedSettings } from './settings-repository';
import { CURRENT_SK, SETTINGS_PK, policyPk } from './versioned-items';

export class DynamoConfigReader implements ConfigReader {
  private readonly items: ConfigItems;

  constructor(
    doc: DocumentClient,
    tableName: string,
    private readonly clock: Clock,
  ) {
    this.items = configItems(doc, tableName);
  }

  /**
   * Everything consistently, through the config stamp (config-stamp.ts): a settings change, a policy, an apply to open
   * orders or a hold answered before this read is always seen. That is what closes the stale-claim race (the release
   * function claims, then reads the hold; a hold stored before that read stops the send, one stored after it finds
   * the release APPLYING), the planner's write-then-read with a hold (see confirmVendorHolds), and makes a change in
   * force from its answer (contract 6.3).
   *
   * A warm container keeps what it read under the stamp's version: while no change was made, a read is the stamp
   * alone (one read unit, gathered with the turn's other reads of the table) instead of the settings and three items
   * a vendor (a kept read costs less than an eventually consistent one would).
   */
  async forPlanning(vendorIds: readonly string[]): Promise<PlanningConfig> {
    const unique = [...new Set(vendorIds)];
    const current = [SETTINGS_PK, ...unique.map(policyPk)].map((pk) => ({ pk, sk: CURRENT_SK }));
    const holdKeys = unique.flatMap((vendorId) => [{ pk: policyPk(vendorId), sk: HOLD_SK }, { pk: policyPk(vendorId), sk: OPEN_ORDERS_SK }]);
    const found = await this.items.getMany([...current, ...holdKeys]);
    const items = new Map<string, Record<string, unknown>>();
    const holds = new Map<string, Record<string, unknown>>();
    const openOrders = new Map<string, Record<string, unknown>>();
    for (const key of current) {
      const item = found.get(itemKeyText(key));
      if (item) items.set(key.pk, item);
    }
    for (const key of holdKeys) {
      const item = found.get(itemKeyText(key));
      if (item) (key.sk === HOLD_SK ? holds : openOrders).set(key.pk, item);
    }
    const settings = items.get(SETTINGS_PK);
    return {
      settings: settings ? withoutKeys<VersionedSettings>(settings, [], ['at']) : unsavedSettings(this.clock),
      policies: new Map(unique.map((vendorId) => {
        const item = items.get(policyPk(vendorId));
        return [vendorId, item ? withoutKeys<VendorPolicy>(item, [], ['at']) : null];
      })),
      holds: new Map(unique.map((vendorId) => {
        const item = holds.get(policyPk(vendorId));
        return [vendorId, item ? withoutKeys<VendorHold>(item, [], ['at']) : null];
      })),
      openOrderPolicies: new Map(unique.map((vendorId) => {
        const item = openOrders.get(policyPk(vendorId));
        return [vendorId, item ? withoutKeys<VendorPolicy>(item, [], ['at']) : null];
      })),
    };
  }
}
