/** Versioned vendor policies in the config table: every change is a new item, never an overwrite. */
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { VendorPolicy } from '../../domain/types';
import { VersionConflictError, type PolicyRepository } from '../../application/ports';
import { isConditionalCheckFailed, queryItems, versionSortKey, withoutKeys } from './item-keys';

const policyPk = (vendorId: string): string => `POLICY#${vendorId}`;

export class DynamoPolicyRepository implements PolicyRepository {
  constructor(private readonly doc: DynamoDBDocumentClient, private readonly tableName: string) {}

  async current(vendorId: string): Promise<VendorPolicy | null> {
    const [latest] = await this.newestFirst(vendorId, 1);
    return latest ?? null;
  }

  async save(policy: VendorPolicy): Promise<VendorPolicy> {
    try {
      await this.doc.send(new PutCommand({
        TableName: this.tableName,
        Item: { pk: policyPk(policy.vendorId), sk: versionSortKey(policy.version), ...policy },
        ConditionExpression: 'attribute_not_exists(pk)',
      }));
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        throw new VersionConflictError(
          `policy of vendor ${policy.vendorId}: version ${policy.version} exists already; reload and send the latest version`,
        );
      }
      throw error;
    }
    return policy;
  }

  history(vendorId: string): Promise<VendorPolicy[]> {
    return this.newestFirst(vendorId);
  }

  async version(vendorId: string, version: number): Promise<VendorPolicy | null> {
    const answer = await this.doc.send(new GetCommand({
      TableName: this.tableName, Key: { pk: policyPk(vendorId), sk: versionSortKey(version) }, ConsistentRead: true,
    }));
    return answer.Item ? withoutKeys<VendorPolicy>(answer.Item) : null;
  }

  private async newestFirst(vendorId: string, limit?: number): Promise<VendorPolicy[]> {
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': policyPk(vendorId) },
      ScanIndexForward: false,
      ConsistentRead: true,
    }, limit);
    return items.map((item) => withoutKeys<VendorPolicy>(item));
  }
}
