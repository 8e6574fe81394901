/**
 * Previews in the config table (`PREVIEW#id`), each with its expiry in epoch seconds as well: the table's TTL
 * attribute (tables.ts), so DynamoDB removes an expired preview some time after its readers started refusing it.
 */
import type { DocumentClient } from './document-client';
import type { PreviewRepository, StoredPreview } from '../../application/ports';
import { withoutKeys } from './item-keys';
import { PREVIEW_EXPIRY_ATTRIBUTE } from '../../definitions/tables';

const previewPk = (previewId: string): string => `PREVIEW#${previewId}`;
const PREVIEW_SK = 'PREVIEW';

export class DynamoPreviewRepository implements PreviewRepository {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async save(preview: StoredPreview): Promise<void> {
    await this.doc.put({
      TableName: this.tableName,
      Item: { pk: previewPk(preview.previewId), sk: PREVIEW_SK, ...preview, [PREVIEW_EXPIRY_ATTRIBUTE]: Math.ceil(preview.expiresAt.ms / 1000) },
    });
  }

  async get(previewId: string): Promise<StoredPreview | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk: previewPk(previewId), sk: PREVIEW_SK }, ConsistentRead: true });
    return item ? withoutKeys<StoredPreview>(item, [PREVIEW_EXPIRY_ATTRIBUTE], ['createdAt', 'expiresAt']) : null;
  }
}
