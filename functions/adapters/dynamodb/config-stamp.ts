/**
 * The config table's change stamp, `CONFIG`/`STAMP`: a counter that every write of what planning reads (the settings
 * and each policy in force, holds, open orders' policies) moves before and after, so that a container may keep what it
 * read and re-read only after a change (config-reader.ts): one consistent read of this small item (one read unit)
 * instead of the settings and three items a vendor.
 *
 * A writer marks itself on the stamp (`w_<id>`: when it began) and moves the version, writes, then moves the version
 * again and removes its mark, all before its answer. A reader trusts the stamp only when no writer is marked: a
 * version seen with no mark was taken after every write begun before it ended, so what is read after it is at least
 * that new. A writer that died between its marks leaves one; it is taken as ended after ABANDONED_AFTER_MS (no write
 * of a dead writer lands that late) and removed by the next writer.
 *
 * The stamp is new with this version, and a writer of an older version (an API function not yet updated, still
 * running beside the new readers during a deploy) writes without moving it. So a stamp arms itself: it is trusted only
 * from ABANDONED_AFTER_MS after its first write (`armedAt`), when every older writer has ended; the embedded default,
 * one process with nothing older beside it, arms it at start (`armConfigStamp`). Until then every read reads the items.
 */
import { randomUUID } from 'node:crypto';
import type { DocumentClient } from './document-client';
import { gatheredGets, itemKeyText, type GatheredGets, type ItemKey } from './item-keys';

export const STAMP_KEY = { pk: 'CONFIG', sk: 'STAMP' } as const;
/** The prefix of a writer's mark. */
const MARK = 'w_';
/**
 * Longer than any writer runs: a Lambda function runs at most 15 minutes (the API's answer within 30 s), and its
 * DynamoDB request is answered or dropped well within the 5 minutes more.
 */
export const ABANDONED_AFTER_MS = 20 * 60_000;

/** What a reader learns from the stamp: its version, and whether what is read after it may be kept under it. */
export interface StampRead {
  version: number;
  trusted: boolean;
}

/** The stamp as read (its item, or undefined when no change was ever stamped), at wall time `nowMs`. */
export function stampOf(item: Record<string, unknown> | undefined, nowMs: number): StampRead {
  if (!item) return { version: 0, trusted: false };
  const since = nowMs - ABANDONED_AFTER_MS;
  const armed = typeof item.armedAt === 'number' && item.armedAt <= since;
  const writing = Object.entries(item).some(([name, at]) => name.startsWith(MARK) && typeof at === 'number' && at > since);
  return { version: typeof item.version === 'number' ? item.version : 0, trusted: armed && !writing };
}

/** One writer's change of the config items, between its two moves of the stamp. */
export class ConfigStamp {
  /** `nowMs`: wall time (never the embedded default's shared clock, which jumps: the bound is about real writers). */
  constructor(private readonly doc: DocumentClient, private readonly tableName: string, private readonly nowMs: () => number = Date.now) {}

  /**
   * Runs `write` between the stamp's two moves; the second runs whether `write` succeeds or not (a refused conditional
   * write changed nothing, but may have: a timeout). Marks older than ABANDONED_AFTER_MS seen at the first move go.
   */
  async change<T>(write: () => Promise<T>): Promise<T> {
    const mark = `${MARK}${randomUUID().replace(/-/g, '')}`;
    const at = this.nowMs();
    const begun = await this.doc.update({
      TableName: this.tableName,
      Key: { ...STAMP_KEY },
      UpdateExpression: 'ADD #version :one SET #mark = :at, #armedAt = if_not_exists(#armedAt, :at)',
      ExpressionAttributeNames: { '#version': 'version', '#mark': mark, '#armedAt': 'armedAt' },
      ExpressionAttributeValues: { ':one': 1, ':at': at },
      ReturnValues: 'ALL_NEW',
    });
    try {
      return await write();
    } finally {
      const abandoned = Object.entries(begun ?? {})
        .filter(([name, when]) => name.startsWith(MARK) && name !== mark && typeof when === 'number' && when <= at - ABANDONED_AFTER_MS)
        .map(([name]) => name);
      const names = Object.fromEntries([mark, ...abandoned].map((name, i) => [`#m${i}`, name]));
      await this.doc.update({
        TableName: this.tableName,
        Key: { ...STAMP_KEY },
        UpdateExpression: `ADD #version :one REMOVE ${Object.keys(names).join(', ')}`,
        ExpressionAttributeNames: { '#version': 'version', ...names },
        ExpressionAttributeValues: { ':one': 1 },
      });
    }
  }
}

/**
 * Arms the stamp at once: only where no writer of an older version can run beside this one (the embedded default at
 * its start, and tests). Elsewhere it arms itself (see the top of this file).
 */
export async function armConfigStamp(doc: DocumentClient, tableName: string): Promise<void> {
  await doc.update({
    TableName: tableName,
    Key: { ...STAMP_KEY },
    UpdateExpression: 'SET #armedAt = :zero',
    ExpressionAttributeNames: { '#armedAt': 'armedAt' },
    ExpressionAttributeValues: { ':zero': 0 },
  });
}

/** Items a container keeps at most (the settings and three a vendor: about 2,500 vendors); the oldest go first. */
const MAX_KEPT_ITEMS = 10_000;

/**
 * A container's copy of config items, kept under the stamp's version: a read takes the stamp (one consistent read,
 * gathered with the turn's other reads of the table) and answers the kept items when the stamp is trusted and has not
 * moved since they were read, reading the rest consistently. Items read after a trusted stamp V are kept under V: no
 * write began since (it would have moved V), and every write begun before had ended. One per client and table
 * (`configItems`), so every repository of the container shares it.
 */
export class ConfigItems {
  private version = -1;
  private readonly kept = new Map<string, Record<string, unknown> | null>();

  constructor(private readonly gathered: GatheredGets, private readonly nowMs: () => number = Date.now) {}

  /** The items of `keys` that exist, by `itemKeyText`, each a copy; consistent: a change answered before is seen. */
  async getMany(keys: readonly ItemKey[]): Promise<Map<string, Record<string, unknown>>> {
    const stamp = stampOf(await this.gathered.get(STAMP_KEY, true), this.nowMs());
    if (!stamp.trusted || stamp.version !== this.version) {
      this.kept.clear();
      this.version = stamp.trusted ? stamp.version : -1;
    }
    // Taken now: another read may clear the kept items while this one waits for the rest.
    const hits = new Map<string, Record<string, unknown> | null>();
    for (const key of keys) if (this.kept.has(itemKeyText(key))) hits.set(itemKeyText(key), this.kept.get(itemKeyText(key))!);
    const missing = keys.filter((key) => !hits.has(itemKeyText(key)));
    const found = missing.length > 0 ? await this.gathered.getMany(missing, true) : new Map<string, Record<string, unknown>>();
    // Kept only under the version they were read after (another read may have moved it meanwhile).
    if (stamp.trusted && this.version === stamp.version) {
      for (const key of missing) this.kept.set(itemKeyText(key), found.get(itemKeyText(key)) ?? null);
      for (const name of this.kept.keys()) {
        if (this.kept.size <= MAX_KEPT_ITEMS) break;
        this.kept.delete(name);
      }
    }
    const answer = new Map<string, Record<string, unknown>>();
    for (const key of keys) {
      const text = itemKeyText(key);
      const item = hits.has(text) ? hits.get(text) : found.get(text);
      // A copy: the caller's changes never reach the kept item.
      if (item) answer.set(text, structuredClone(item));
    }
    return answer;
  }
}

const containers = new WeakMap<DocumentClient, Map<string, ConfigItems>>();

/** The one ConfigItems of this client and table (the container's repositories built on one client share it). */
export function configItems(doc: DocumentClient, tableName: string): ConfigItems {
  let tables = containers.get(doc);
  if (!tables) containers.set(doc, (tables = new Map()));
  let items = tables.get(tableName);
  if (!items) tables.set(tableName, (items = new ConfigItems(gatheredGets(doc, tableName))));
  return items;
}
