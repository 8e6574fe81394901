/**
 * Versioned records in the config table (the settings, each vendor's policy): one `CURRENT` item per record, which is
 * what is in force, and one item per version, which is its history.
 *
 * A change commits with one conditional write of `CURRENT` (the expected previous version, or none for version 1), so
 * two writers can never both make version N. The version item is written right after, with the same content. If that
 * second write is lost (the caller then got an error), the history is repaired from `CURRENT` by the next read of the
 * history, or by the next save (from the item it replaces), so that a lost version never leaves a gap.
 * Keeping the record in force under a fixed key is what lets the planner read the settings and every policy of an
 * order in one BatchGetItem instead of one query each.
 */
import type { DocumentClient } from './document-client';
import { VersionConflictError } from '../../application/ports';
import { gatheredGets, isConditionalCheckFailed, queryItems, versionSortKey, withoutKeys } from './item-keys';
import { ConfigStamp } from './config-stamp';

export const SETTINGS_PK = 'SETTINGS';
export const policyPk = (vendorId: string): string => `POLICY#${vendorId}`;
/** The sort key of the record in force; version items sort under `V#`. */
export const CURRENT_SK = 'CURRENT';
const VERSION_PREFIX = 'V#';
/** The time a version was saved (settings and policies alike), read as an Instant. */
const VERSIONED_TIMES = ['at'] as const;

export class VersionedItems<T extends { version: number }> {
  /** `CURRENT` is what planning reads: each change of it moves the config stamp (config-stamp.ts). */
  private readonly stamp: ConfigStamp;

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {
    this.stamp = new ConfigStamp(doc, tableName);
  }

  /**
   * The record in force, or null when none was ever saved: read consistently, with the turn's other reads of the table
   * (GatheredGets: a vendor's policy, the settings and the config stamp asked for at once go out as one BatchGetItem, a
   * lone read as a GetItem). The item is copied whole, since callers of one turn share what the read found.
   */
  async current(pk: string): Promise<T | null> {
    const item = await gatheredGets(this.doc, this.tableName).get({ pk, sk: CURRENT_SK }, true);
    return item ? withoutKeys<T>(structuredClone(item), [], VERSIONED_TIMES) : null;
  }

  /**
   * Makes `record` (version N) the one in force if version N - 1 is, then keeps it in the history. Throws
   * VersionConflictError with `conflict` when another version is in force.
   */
  async save(pk: string, record: T, conflict: () => string): Promise<T> {
    const previous = record.version - 1;
    let replaced: Record<string, unknown> | undefined;
    try {
      ({ old: replaced } = await this.stamp.change(() => this.doc.put({
        TableName: this.tableName,
        Item: { pk, sk: CURRENT_SK, ...record },
        // Version N - 1 as it was in force: its history item is written again (the same content), in case its own
        // save lost that write; otherwise nothing would ever restore it once N replaced it.
        ReturnValues: 'ALL_OLD',
        ...(previous === 0
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
            ConditionExpression: '#version = :previous',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':previous': previous },
          }),
      })));
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw new VersionConflictError(conflict());
      throw error;
    }
    await Promise.all([
      this.keepVersion(pk, record),
      ...(replaced ? [this.keepVersion(pk, withoutKeys<T>(replaced, [], VERSIONED_TIMES))] : []),
    ]);
    return record;
  }

  /** Every version, newest first; a version in force whose history item was lost is written back first. */
  async history(pk: string): Promise<T[]> {
    const [versions, current] = await Promise.all([this.newestFirst(pk), this.current(pk)]);
    if (current && (versions[0]?.version ?? 0) < current.version) {
      await this.keepVersion(pk, current);
      versions.unshift(current);
    }
    return versions;
  }

  /** One version, or null. */
  async version(pk: string, version: number): Promise<T | null> {
    const item = await this.doc.get({ TableName: this.tableName, Key: { pk, sk: versionSortKey(version) }, ConsistentRead: true });
    if (item) return withoutKeys<T>(item, [], VERSIONED_TIMES);
    const current = await this.current(pk);
    return current?.version === version ? current : null;
  }

  /** The same content every time for a version, so writing it again (a repair) changes nothing. */
  private async keepVersion(pk: string, record: T): Promise<void> {
    await this.doc.put({ TableName: this.tableName, Item: { pk, sk: versionSortKey(record.version), ...record } });
  }

  private async newestFirst(pk: string): Promise<T[]> {
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': VERSION_PREFIX },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return items.map((item) => withoutKeys<T>(item, [], VERSIONED_TIMES));
  }
}
