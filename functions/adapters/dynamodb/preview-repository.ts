/** Previews in the config table (`PREVIEW#id`), each with an expiry that DynamoDB's TTL may clear once it has passed. */
import type { DocumentClient } from './document-client';
import type { PreviewRepository, StoredPreview } from '../../application/ports';
import { withoutKeys } from './item-keys';

const previewPk = (previewId: string): string => `PREVIEW#${previewId}`;
const PREVIEW_SK = 'PREVIEW';
/** Epoch seconds of `expiresAt`: the attribute the table's TTL reads (readers check `expiresAt` themselves). */
export const EXPIRY_ATTRIBUTE = 'expiresAtEpoch';

export class DynamoPreviewRepository implements PreviewRepository {
  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  async save(preview: StoredPreview): Promise<void> {
    await this.doc.put({
      TableName: this.tableName,
      Item: { pk: previewPk(preview.previewId), sk: PREVIEW_SK, ...preview, [EXPIRY_ATTRIBUTE]: Math.ceil(Date.parse(preview.expiresAt) / 1000) },
    });
  }

  async get(previewId: string): Promise<StoredPreview | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk: previewPk(previewId), sk: PREVIEW_SK }, ConsistentRead: true });
    return item ? withoutKeys<StoredPreview>(item, [EXPIRY_ATTRIBUTE]) : null;
  }
}
