/** Versioned vendor policies in the config table: every change is a new version, never an overwrite of history. */
import type { DocumentClient } from './document-client';
import type { VendorPolicy } from '../../domain/types';
import type { PolicyRepository } from '../../application/ports';
import type { ReadDirectory } from './release-reads';
import { VersionedItems, policyPk } from './versioned-items';

export class DynamoPolicyRepository implements PolicyRepository {
  private readonly items: VersionedItems<VendorPolicy>;

  /** `directory`: where GET /vendors finds every vendor with a policy (the orders table's; absent in some tests). */
  constructor(doc: DocumentClient, tableName: string, private readonly directory?: ReadDirectory) {
    this.items = new VersionedItems(doc, tableName);
  }

  current(vendorId: string): Promise<VendorPolicy | null> {
    return this.items.current(policyPk(vendorId));
  }

  async save(policy: VendorPolicy): Promise<VendorPolicy> {
    // Listed first: a vendor with a policy must never be missing from GET /vendors.
    await this.directory?.noteVendor(policy.vendorId);
    return this.items.save(policyPk(policy.vendorId), policy, () =>
      `policy of vendor ${policy.vendorId}: version ${policy.version} exists already; reload and send the latest version`);
  }

  history(vendorId: string): Promise<VendorPolicy[]> {
    return this.items.history(policyPk(vendorId));
  }

  version(vendorId: string, version: number): Promise<VendorPolicy | null> {
    return this.items.version(policyPk(vendorId), version);
  }
}
