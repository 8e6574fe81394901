/** The policy a vendor's open orders follow since the last apply to open orders: `POLICY#vid`/`OPEN_ORDERS`. */
import type { DocumentClient } from './document-client';
import type { VendorPolicy } from '../../domain/types';
import type { OpenOrderPolicyRepository } from '../../application/ports';
import { isConditionalCheckFailed } from './item-keys';
import { policyPk } from './versioned-items';
import { ConfigStamp } from './config-stamp';

/** Beside the vendor's policy and hold, so that the planner's consistent batch read fetches it with the hold. */
export const OPEN_ORDERS_SK = 'OPEN_ORDERS';

export class DynamoOpenOrderPolicyRepository implements OpenOrderPolicyRepository {
  /** What planning reads: each change of it moves the config stamp (config-stamp.ts). */
  private readonly stamp: ConfigStamp;

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {
    this.stamp = new ConfigStamp(doc, tableName);
  }

  async put(policy: VendorPolicy): Promise<void> {
    try {
      await this.stamp.change(() => this.doc.put({
        TableName: this.tableName,
        Item: { pk: policyPk(policy.vendorId), sk: OPEN_ORDERS_SK, ...policy },
        // Two applies racing: the newer version stays, whichever write comes last.
        ConditionExpression: 'attribute_not_exists(pk) OR version < :version',
        ExpressionAttributeValues: { ':version': policy.version },
      }));
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
}
