/**
 * The upgrade's backfill: gives every order and release item written by an older version the read indexes' key
 * attributes this version writes (paid, open, applied and settled by month, and the unsent releases' planning index;
 * see tables.ts), and notes the months and
 * vendors the reads look up (ReadDirectory). Computed by the same functions the repository writes with, so a
 * backfilled item is exactly what this version would have written. Idempotent and safe beside live traffic: each
 * update is conditional on the item's version (releases) or on the item being unchanged (orders), and an item written
 * meanwhile by this version already carries its keys. Run by bin/backfill-indexes.ts (README, runbook "Upgrade").
 */
import type { OrderRecord } from '../../../domain/types';
import { APPLIED_INDEX, OPEN_INDEX, PAID_INDEX, PLAN_INDEX, SETTLED_INDEX } from '../../../definitions/tables';
import type { DocumentClient } from '../document-client';
import { isConditionalCheckFailed } from '../item-keys';
import { META_SK, RELEASE_PREFIX, ReadDirectory, orderIndexKeys, releaseIndexKeys, toRelease } from '../release-reads';

/** The key attributes of the indexes this backfill fills (the due index is older and kept by every write). */
const FILLED = [OPEN_INDEX.pk, OPEN_INDEX.sk, PAID_INDEX.pk, PAID_INDEX.sk, APPLIED_INDEX.pk, APPLIED_INDEX.sk, SETTLED_INDEX.pk, SETTLED_INDEX.sk, PLAN_INDEX.pk, PLAN_INDEX.sk];

export interface BackfillOptions {
  /** Parallel scan segment and their number (DynamoDB's Segment/TotalSegments), to split a large table. */
  segment?: number;
  totalSegments?: number;
  /** Items per scan page (its read units stay small). */
  pageSize?: number;
  /** Reports nothing changed: counts what would be. */
  dryRun?: boolean;
  onPage?: (progress: BackfillResult) => void;
}

export interface BackfillResult {
  scanned: number;
  /** Items given (or cleared of) index attributes. */
  updated: number;
  /** Items already as this version writes them. */
  current: number;
  /** Items changed by a writer between the scan and the update: they carry this version's keys already. */
  changedMeanwhile: number;
  /** Items that are neither an order nor a release (directory entries, events). */
  other: number;
  /** Items whose attributes could not be read as an order or a release, with why (left as they are). */
  unreadable: Array<{ pk: string; sk: string; reason: string }>;
}

/** What an item should carry: the attributes to set and those to remove, with the months and vendor to note. */
function wanted(item: Record<string, unknown>): { keys: Record<string, string>; months: string[]; vendorId?: string } | null {
  const sk = String(item.sk);
  if (sk === META_SK) {
    if (typeof item.transactionTime !== 'string' || typeof item.orderId !== 'string') return null; // awaiting payment
    const { keys, month } = orderIndexKeys(item as unknown as OrderRecord);
    return { keys, months: [month] };
  }
  if (sk.startsWith(RELEASE_PREFIX) && String(item.pk).startsWith('ORDER#')) {
    const release = toRelease(item);
    const { keys, months } = releaseIndexKeys(release);
    return { keys, months, vendorId: release.vendorId };
  }
  return null;
}

export async function backfillIndexKeys(doc: DocumentClient, tableName: string, options: BackfillOptions = {}): Promise<BackfillResult> {
  const result: BackfillResult = { scanned: 0, updated: 0, current: 0, changedMeanwhile: 0, other: 0, unreadable: [] };
  const directory = new ReadDirectory(doc, tableName);
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.scan({
      TableName: tableName,
      Limit: options.pageSize ?? 100,
      ConsistentRead: true,
      ...(options.totalSegments ? { Segment: options.segment ?? 0, TotalSegments: options.totalSegments } : {}),
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    for (const item of page.items) {
      result.scanned += 1;
      let target: ReturnType<typeof wanted>;
      try {
        target = wanted(item);
      } catch (error) {
        result.unreadable.push({ pk: String(item.pk), sk: String(item.sk), reason: error instanceof Error ? error.message : String(error) });
        continue;
      }
      if (!target) {
        result.other += 1;
        continue;
      }
      const set = Object.entries(target.keys).filter(([name, value]) => item[name] !== value);
      const remove = FILLED.filter((name) => item[name] !== undefined && target.keys[name] === undefined);
      if (set.length === 0 && remove.length === 0) {
        result.current += 1;
      } else if (!options.dryRun && !(await update(doc, tableName, item, set, remove))) {
        result.changedMeanwhile += 1;
        continue;
      } else {
        result.updated += 1;
      }
      if (options.dryRun) continue;
      // The reads visit only the months and vendors noted (idempotent puts, once per process).
      for (const month of target.months) await directory.noteMonth(month);
      if (target.vendorId) await directory.noteVendor(target.vendorId);
    }
    start = page.lastEvaluatedKey;
    options.onPage?.(result);
  } while (start);
  return result;
}

/** Sets and removes the attributes if the item is still the one scanned; false when a writer changed it meanwhile. */
async function update(doc: DocumentClient, tableName: string, item: Record<string, unknown>, set: Array<[string, string]>, remove: string[]): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = set.map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = remove.map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  // A release carries a version every write increments; an order record never changes once paid.
  const versioned = typeof item.version === 'number';
  if (versioned) {
    names['#v'] = 'version';
    values[':v'] = item.version;
  } else {
    names['#t'] = 'transactionTime';
    values[':t'] = item.transactionTime;
  }
  try {
    await doc.update({
      TableName: tableName,
      Key: { pk: item.pk, sk: item.sk },
      UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' '),
      ConditionExpression: versioned ? '#v = :v' : '#t = :t',
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    });
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
