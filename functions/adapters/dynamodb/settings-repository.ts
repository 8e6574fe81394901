/** Versioned merchant settings in the config table: one item per version, the latest wins. */
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_SETTINGS } from '../../domain/settings';
import { formatInstant } from '../../domain/dates';
import type { Settings, VersionedSettings } from '../../domain/types';
import { VersionConflictError, type Clock, type SettingsRepository } from '../../application/ports';
import { isConditionalCheckFailed, queryItems, versionSortKey, withoutKeys } from './item-keys';

const SETTINGS_PK = 'SETTINGS';

export class DynamoSettingsRepository implements SettingsRepository {
  /** `clock` stamps the defaults' `at` when nothing was ever saved. */
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<VersionedSettings> {
    const [latest] = await this.newestFirst(1);
    if (latest) return latest;
    return {
      ...DEFAULT_SETTINGS,
      version: 0,
      actor: 'system',
      reason: 'default settings',
      at: formatInstant(this.clock.now(), DEFAULT_SETTINGS.timezone),
    };
  }

  async save(
    settings: Settings, meta: { actor: string; reason: string; at: string; expectedVersion: number },
  ): Promise<VersionedSettings> {
    const [latest] = await this.newestFirst(1);
    const latestVersion = latest?.version ?? 0;
    if (latestVersion !== meta.expectedVersion) {
      throw new VersionConflictError(
        `settings: version ${meta.expectedVersion} is not the latest (${latestVersion}); reload and send the latest version`,
      );
    }
    const saved: VersionedSettings = {
      ...settings, version: meta.expectedVersion + 1, actor: meta.actor, reason: meta.reason, at: meta.at,
    };
    try {
      // The read above is only a check; this condition is what stops two writers making the same version.
      await this.doc.send(new PutCommand({
        TableName: this.tableName,
        Item: { pk: SETTINGS_PK, sk: versionSortKey(saved.version), ...saved },
        ConditionExpression: 'attribute_not_exists(pk)',
      }));
    } catch (error) {
      if (isConditionalCheckFailed(error)) {
        throw new VersionConflictError(
          `settings: version ${saved.version} was saved by someone else meanwhile; reload and send the latest version`,
        );
      }
      throw error;
    }
    return saved;
  }

  /** Saved versions, newest first (the defaults, version 0, are never stored). */
  history(): Promise<VersionedSettings[]> {
    return this.newestFirst();
  }

  /** One saved version, or null. */
  async version(version: number): Promise<VersionedSettings | null> {
    const answer = await this.doc.send(new GetCommand({
      TableName: this.tableName, Key: { pk: SETTINGS_PK, sk: versionSortKey(version) }, ConsistentRead: true,
    }));
    return answer.Item ? withoutKeys<VersionedSettings>(answer.Item) : null;
  }

  private async newestFirst(limit?: number): Promise<VersionedSettings[]> {
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': SETTINGS_PK },
      ScanIndexForward: false,
      ConsistentRead: true,
    }, limit);
    return items.map((item) => withoutKeys<VersionedSettings>(item));
  }
}
