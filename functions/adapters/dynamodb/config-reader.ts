/** The planner's read of the config table: the settings, every vendor's policy in force and hold, in batch reads. */
import type { DocumentClient } from './document-client';
import type { VendorHold, VendorPolicy, VersionedSettings } from '../../domain/types';
import type { Clock, ConfigReader, PlanningConfig, PlanningReadOptions } from '../../application/ports';
import { gatheredGets, itemKeyText, withoutKeys, type GatheredGets } from './item-keys';
import { HOLD_SK } from './hold-repository';
import { OPEN_ORDERS_SK } from './open-order-policy-repository';
import { unsavedSettings } from './settings-repository';
import { CURRENT_SK, SETTINGS_PK, policyPk } from './versioned-items';

export class DynamoConfigReader implements ConfigReader {
  private readonly gathered: GatheredGets;

  constructor(
    doc: DocumentClient,
    tableName: string,
    private readonly clock: Clock,
  ) {
    this.gathered = gatheredGets(doc, tableName);
  }

  /**
   * The holds are always read consistently: a hold stored before this read is always seen. That is what closes the
   * stale-claim race (the release function claims, then reads the hold; a hold stored before that read stops the send,
   * one stored after it finds the release APPLYING) and the planner's write-then-read with a hold (see
   * confirmVendorHolds). An eventually consistent read could miss a hold stored a moment before, and send.
   *
   * The settings and policies, with `eventual`, may be read eventually consistent (half the read units); asked in the
   * same turn as the holds, they go in the holds' consistent BatchGetItem (one call instead of two, GatheredGets).
   * Nothing that must hold depends on
   * seeing a change saved a moment before: an open release keeps the policy it was pinned to (a policy reaches open
   * releases only through the replan of PUT policy, whose conditional writes re-read a release that moved), so a
   * missed policy change plans a new order as if the order had been paid a moment before the change, which a
   * consistent read leaves possible as well (the two are concurrent); a missed settings change likewise plans as if
   * this read had come a moment earlier. The hot paths (order events, the release function) ask for it; a person's
   * request (manual release, retry, previews) reads consistently, so that what they just saved is what they get.
   * Nothing is cached across invocations: every call reads.
   */
  async forPlanning(vendorIds: readonly string[], options: PlanningReadOptions = {}): Promise<PlanningConfig> {
    const unique = [...new Set(vendorIds)];
    const current = [SETTINGS_PK, ...unique.map(policyPk)].map((pk) => ({ pk, sk: CURRENT_SK }));
    // The open orders' policy is read with the holds, consistently: an apply's answer is in force at once.
    const holdKeys = unique.flatMap((vendorId) => [{ pk: policyPk(vendorId), sk: HOLD_SK }, { pk: policyPk(vendorId), sk: OPEN_ORDERS_SK }]);
    // Read with the other reads of the table asked in this turn (the records of a batch, the invocations a container
    // runs at once): the keys of all in one call, consistent when any is (GatheredGets).
    const [found, foundHolds] = await Promise.all([
      this.gathered.getMany(current, !options.eventual),
      this.gathered.getMany(holdKeys, true),
    ]);
    const items = new Map<string, Record<string, unknown>>();
    const holds = new Map<string, Record<string, unknown>>();
    const openOrders = new Map<string, Record<string, unknown>>();
    for (const key of current) {
      const item = found.get(itemKeyText(key));
      if (item) items.set(key.pk, item);
    }
    for (const key of holdKeys) {
      const item = foundHolds.get(itemKeyText(key));
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
