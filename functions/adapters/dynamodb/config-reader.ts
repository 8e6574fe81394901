/** The planner's read of the config table: the settings and every vendor's policy in force, in one BatchGetItem. */
import type { DocumentClient } from './document-client';
import type { VendorPolicy, VersionedSettings } from '../../domain/types';
import type { Clock, ConfigReader, PlanningConfig } from '../../application/ports';
import { withoutKeys } from './item-keys';
import { unsavedSettings } from './settings-repository';
import { CURRENT_SK, SETTINGS_PK, policyPk } from './versioned-items';

/** BatchGetItem's limit of keys per call. */
const MAX_KEYS = 100;
/** Unprocessed keys (throttling) are asked again, after a short, growing pause, at most this often. */
const MAX_ROUNDS = 8;

export class DynamoConfigReader implements ConfigReader {
  constructor(
    private readonly doc: DocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
  ) {}

  async forPlanning(vendorIds: readonly string[]): Promise<PlanningConfig> {
    const unique = [...new Set(vendorIds)];
    const keys = [SETTINGS_PK, ...unique.map(policyPk)].map((pk) => ({ pk, sk: CURRENT_SK }));
    const items = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < keys.length; i += MAX_KEYS) {
      for (const item of await this.batchGet(keys.slice(i, i + MAX_KEYS))) items.set(item.pk as string, item);
    }
    const settings = items.get(SETTINGS_PK);
    return {
      settings: settings ? withoutKeys<VersionedSettings>(settings) : unsavedSettings(this.clock),
      policies: new Map(unique.map((vendorId) => {
        const item = items.get(policyPk(vendorId));
        return [vendorId, item ? withoutKeys<VendorPolicy>(item) : null];
      })),
    };
  }

  private async batchGet(keys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
    const found: Record<string, unknown>[] = [];
    let pending = keys;
    for (let round = 1; pending.length > 0; round += 1) {
      if (round > MAX_ROUNDS) throw new Error(`config table ${this.tableName}: ${pending.length} keys still unprocessed after ${MAX_ROUNDS} rounds (throttled); try again`);
      if (round > 1) await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** round * Math.random()));
      const answer = await this.doc.batchGet(this.tableName, pending, true);
      found.push(...answer.items);
      pending = answer.unprocessed;
    }
    return found;
  }
}
