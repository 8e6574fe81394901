/**
 * The local edge's share of the upgrade's backfill (functions/adapters/dynamodb/backfill/index-backfill.ts): a release
 * item written by a version before the sparse planning index (PLAN_INDEX) has the open index's keys but not the
 * planning index's; the table's rebuild (table-migration.ts) gives an unsent one its keys as it copies it, computed by
 * the function the repository writes with, so the rebuilt index lists every unsent release.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { OPEN_INDEX, PLAN_INDEX } from '../../functions/definitions/tables';
import { RELEASE_PREFIX, orderPk, releaseIndexKeys, toRelease } from '../../functions/adapters/dynamodb/release-reads';

type Item = Record<string, AttributeValue>;

/** The item with the planning index's keys when it is a release that should carry them and does not; else as it is. */
export function withPlanKeys(item: Item): Item {
  if (item[PLAN_INDEX.pk] !== undefined || !item.pk?.S?.startsWith(orderPk('')) || !item.sk?.S?.startsWith(RELEASE_PREFIX)) return item;
  let keys: Record<string, string>;
  try {
    keys = releaseIndexKeys(toRelease(unmarshall(item))).keys;
  } catch {
    // Not readable as a release (the backfill reports such items; here they are copied as they are).
    return item;
  }
  if (keys[PLAN_INDEX.pk] === undefined) return item;
  // Beside its open index entry (an entry written before the open index's shards keeps its partition until the
  // release's next write moves both).
  const pk = item[OPEN_INDEX.pk] ?? { S: keys[PLAN_INDEX.pk] };
  const sk = item[OPEN_INDEX.sk] ?? { S: keys[PLAN_INDEX.sk] };
  return { ...item, [PLAN_INDEX.pk]: pk, [PLAN_INDEX.sk]: sk };
}
