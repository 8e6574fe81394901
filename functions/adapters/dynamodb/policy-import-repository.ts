/** Bulk policy imports in the config table (`IMPORT#<digest of the file>`): the journal that makes an import apply once. */
import type { DocumentClient } from './document-client';
import type { PolicyImport, PolicyImportRepository } from '../../application/ports';
import type { Instant } from '../../domain/instant';
import { isConditionalCheckFailed, withoutKeys } from './item-keys';

const importPk = (importId: string): string => `IMPORT#${importId}`;
const IMPORT_SK = 'IMPORT';

export class DynamoPolicyImportRepository implements PolicyImportRepository {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async begin(record: PolicyImport): Promise<PolicyImport | null> {
    try {
      await this.doc.put({
        TableName: this.tableName,
        Item: { pk: importPk(record.importId), sk: IMPORT_SK, ...record },
        // A rolled-back import left nothing applied, so the same file may be tried again.
        ConditionExpression: 'attribute_not_exists(pk) OR #state = :rolledBack',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':rolledBack': 'rolled_back' },
      });
      return null;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
    const kept = await this.get(record.importId);
    if (!kept) throw new Error(`import ${record.importId}: the journal refused the start but holds no record; try again`);
    return kept;
  }

  async finish(importId: string, end: { state: 'applied' | 'rolled_back'; at: Instant; reason: string | null }): Promise<void> {
    const kept = await this.get(importId);
    if (!kept) throw new Error(`import ${importId} has no journal record to finish`);
    await this.doc.put({
      TableName: this.tableName,
      Item: { pk: importPk(importId), sk: IMPORT_SK, ...kept, state: end.state, finishedAt: end.at, reason: end.reason },
      ConditionExpression: '#state = :applying',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':applying': 'applying' },
    });
  }

  async get(importId: string): Promise<PolicyImport | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk: importPk(importId), sk: IMPORT_SK }, ConsistentRead: true });
    return item ? withoutKeys<PolicyImport>(item, [], ['startedAt', 'finishedAt']) : null;
  }
}
