/** The planner's read of the config table: the settings, every vendor's policy in force and hold, in one BatchGetItem. */
import type { DocumentClient } from './document-client';
import type { VendorHold, VendorPolicy, VersionedSettings } from '../../domain/types';
import type { Clock, ConfigReader, PlanningConfig } from '../../application/ports';
import { batchGetItems, withoutKeys } from './item-keys';
import { HOLD_SK } from './hold-repository';
import { unsavedSettings } from './settings-repository';
import { CURRENT_SK, SETTINGS_PK, policyPk } from './versioned-items';

export class DynamoConfigReader implements ConfigReader {
  constructor(
    private readonly doc: DocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
  ) {}

  async forPlanning(vendorIds: readonly string[]): Promise<PlanningConfig> {
    const unique = [...new Set(vendorIds)];
    const keys = [
      ...[SETTINGS_PK, ...unique.map(policyPk)].map((pk) => ({ pk, sk: CURRENT_SK })),
      ...unique.map((vendorId) => ({ pk: policyPk(vendorId), sk: HOLD_SK })),
    ];
    const items = new Map<string, Record<string, unknown>>();
    const holds = new Map<string, Record<string, unknown>>();
    // Consistent: a hold stored before this read is always seen (the release function reads after its claim).
    for (const item of await batchGetItems(this.doc, this.tableName, keys, true)) {
      (item.sk === HOLD_SK ? holds : items).set(item.pk as string, item);
    }
    const settings = items.get(SETTINGS_PK);
    return {
      settings: settings ? withoutKeys<VersionedSettings>(settings) : unsavedSettings(this.clock),
      policies: new Map(unique.map((vendorId) => {
        const item = items.get(policyPk(vendorId));
        return [vendorId, item ? withoutKeys<VendorPolicy>(item) : null];
      })),
      holds: new Map(unique.map((vendorId) => {
        const item = holds.get(policyPk(vendorId));
        return [vendorId, item ? withoutKeys<VendorHold>(item) : null];
      })),
    };
  }
}
