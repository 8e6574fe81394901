/**
 * What a preview asks of a vendor's open index in a fixed number of requests, whatever the vendor's size: how many
 * releases up to a bound (is the preview a job?), and the ends of each partition (does a previewId still hold?); and
 * what it reads to plan them: the planning index's entries, or the fields it reads of each release by key.
 */
import type { DocumentClient } from './document-client';
import { KEY, LEGACY_PLAN_INDEX, OPEN_INDEX, OPEN_SHARDS, PLAN_INDEX, WIDE_PLAN_INDEX } from '../../definitions/tables';
import { INDIA_OFFSET_MINUTES, Instant } from '../../domain/instant';
import { reasonCodeOf } from '../../domain/release';
import type { VendorRelease, WaitReason } from '../../domain/types';
import { CurrencyTotals, moneyOf } from '../../domain/projection';
import { batchGetItems, queryItems, readTime, withTimes } from './item-keys';

/** A query of one whole open-index partition. */
function openPartition(tableName: string, pk: string) {
  return {
    TableName: tableName,
    IndexName: OPEN_INDEX.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': OPEN_INDEX.pk },
    ExpressionAttributeValues: { ':pk': pk },
  };
}

/**
 * Counted, not read: each partition queried at once with `Select: COUNT` (the store sends back a number, no entry),
 * up to a bound per partition. Shards are filled by a hash of the order id, so each holds about an eighth of the
 * vendor; a shard is counted up to a quarter more than its share of `max` (plus 64, so that a small `max` is counted
 * exactly), and the unsharded partition of older entries (`partitions[0]`) up to `max + 1`. When no partition reaches
 * its bound the sum is exact; a shard that reaches it means a vendor of about `max` releases or more, which is
 * answered as more (`max + 1`). So a decision reads at most about 1.25 x `max` index entries, 9 queries in parallel
 * (one 1 MB page each at the default 20,000), whether the vendor has 20,001 open releases or a million; one shard is
 * counted before the others, so a vendor well over `max` costs an eighth of that.
 */
export async function openCountUpTo(doc: DocumentClient, tableName: string, partitions: string[], max: number): Promise<number> {
  const shardBound = Math.min(max + 1, Math.ceil(((max + 1) * 1.25) / OPEN_SHARDS) + 64);
  const countOf = async (pk: string, bound: number) => {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await doc.count({ ...openPartition(tableName, pk), ExclusiveStartKey: start, Limit: bound - count });
      count += page.count;
      start = page.lastEvaluatedKey;
    } while (start && count < bound);
    return { count, full: count >= bound };
  };
  // One shard first: a vendor far over `max` fills it, and is answered after an eighth of the reading.
  const first = await countOf(partitions[1], shardBound);
  if (first.full) return max + 1;
  const others = await Promise.all(partitions.map((pk, i) => (i === 1 ? first : countOf(pk, i === 0 ? max + 1 : shardBound))));
  const sum = others.reduce((total, c) => total + c.count, 0);
  return others.some((c) => c.full) ? max + 1 : Math.min(sum, max + 1);
}

/**
 * At most about `max` entries: the first page of each partition at once (its share of `max`), a fixed number of
 * queries whatever the vendor's size; `complete` when no partition has more.
 */
export async function openEntriesUpTo(doc: DocumentClient, tableName: string, partitions: string[], max: number): Promise<{ entries: Record<string, unknown>[]; complete: boolean }> {
  const limit = Math.max(1, Math.ceil(max / partitions.length));
  const pages = await Promise.all(partitions.map((pk) => doc.query({ ...openPartition(tableName, pk), Limit: limit })));
  return { entries: pages.flatMap((page) => page.items), complete: pages.every((page) => page.lastEvaluatedKey === undefined) };
}

/**
 * Count and sum per currency of open-index entries. An entry without currency (its release written before releases
 * kept it) is summed from its release and order, read by `fetch`; one with neither is a defect (moneyOf).
 */
export async function totalsOfEntries(
  vendorId: string,
  entries: Record<string, unknown>[],
  fetch: (candidates: { orderId: string; vendorId: string; position: string }[]) => Promise<{ release: VendorRelease; order: { currency?: string } | null }[]>,
): Promise<{ currency: string; count: number; amount: string }[]> {
  const totals = new CurrencyTotals<'open'>();
  const withoutCurrency: { orderId: string; vendorId: string; position: string }[] = [];
  for (const entry of entries) {
    const [utc, orderId] = (entry[OPEN_INDEX.sk] as string).split('#');
    if (typeof entry.currency === 'string') {
      totals.add('open', entry.currency, moneyOf({ orderId, vendorId, amount: entry.amount as string, currency: entry.currency }).amount);
    } else {
      withoutCurrency.push({ orderId, vendorId, position: `${utc}#${orderId}#${vendorId}` });
    }
  }
  for (const row of withoutCurrency.length > 0 ? await fetch(withoutCurrency) : []) {
    const { amount, currency } = moneyOf(row.release, row.order?.currency);
    totals.add('open', currency, amount);
  }
  return totals.currencies().map((currency) => ({ currency, ...totals.get('open', currency) }));
}

/**
 * The first and the last key of each partition, two queries of one entry each, all at once. The keys are ordered by
 * maximum eligibility (then order id), so a new order of the vendor (the latest maximum eligibility) or a settled one
 * (the earliest) moves them.
 */
export async function openEnds(doc: DocumentClient, tableName: string, partitions: string[]): Promise<string> {
  const ends = await Promise.all(partitions.flatMap((pk) => [true, false].map(async (forward) => {
    const page = await doc.query({ ...openPartition(tableName, pk), ScanIndexForward: forward, Limit: 1 });
    return (page.items[0]?.[OPEN_INDEX.sk] as string | undefined) ?? '';
  })));
  return ends.join('|');
}

/**
 * What a preview reads of a stored release: what can change its answer (each release's state, amount and currency,
 * its current and candidate target and settlement, whether the candidate drops or moves it, the day totals, the cap
 * stops) or its previewId (the version). A field added to VendorRelease must be named here or in NotRead.
 * - state, holdReason (a dispute's hold is a fact the plan keeps), reasonCode (whether an AT_MAX waits by its rule,
 *   isUnsent), rule, scheduleOption and manual (what the pinned plan aims at), transactionTime and targetEligibility
 *   (the window and the current side), amount and currency (the totals), version (a previewId over at most 1,000);
 *   the maximum eligibility is the sort key's time (the order's, always in India time: maxEligibility in plan.ts).
 * - not read: sendAt, sends, plannedSendAt and reason only decide whether the candidate is sent now or at its time
 *   (PLANNED or SCHEDULED), which lands the same and is not shown; policyVersion, releaseKey, updatedAt and exposure
 *   are carried through the plan and not shown; appliedEligibility, predictedSettlement, settledAt, clamp,
 *   waitReason and orderNotFoundSince are a sent release's or not read by the plan (the current side projects from
 *   the target); attempts, sending, settledFrom and settlementMismatch only a sent one has.
 */
type NotRead = 'orderId' | 'vendorId' | 'maxEligibility' | 'sendAt' | 'sends' | 'plannedSendAt' | 'reason' | 'policyVersion' | 'releaseKey'
  | 'updatedAt' | 'exposure' | 'appliedEligibility' | 'predictedSettlement' | 'settledAt' | 'clamp' | 'waitReason' | 'orderNotFoundSince'
  | 'attempts' | 'sending' | 'settledFrom' | 'settlementMismatch';
const PREVIEW_FIELDS: Record<Exclude<keyof VendorRelease, NotRead>, true> = {
  amount: true, currency: true, state: true, holdReason: true, reasonCode: true, rule: true, scheduleOption: true, manual: true,
  transactionTime: true, targetEligibility: true, version: true,
};
// The planning index projects exactly these: a field named here and not there, or there and not here, fails to compile.
type Unprojected = Exclude<keyof typeof PREVIEW_FIELDS, (typeof PLAN_INDEX.include)[number]>;
const PROJECTED: readonly (keyof typeof PREVIEW_FIELDS)[] = PLAN_INDEX.include;
const ALL_PROJECTED: [Unprojected] extends [never] ? typeof PROJECTED : never = PROJECTED;

/**
 * A release as a preview reads it, from a planning index's entry (or its item read by key): the ids from the sort key
 * (`<max eligibility>#<order id>`) and the vendor, the maximum eligibility from the same key (or the item's own), the
 * fields of PREVIEW_FIELDS, and null for every other field a release always has (the planner reads none of them);
 * `attempts` empty. Built in one fixed shape, never by deleting properties from the entry (an object that loses
 * properties becomes a slow dictionary for the planner). Null when an index entry is not enough: an AT_MAX written
 * before releases kept their reason code (only its words say whether it waits by its rule, isUnsent; any other
 * state's code changes nothing a preview shows), or a sort key that holds no time; the caller reads that one `byKey`,
 * which asks its words and its own maximum eligibility too.
 */
export function previewReleaseOf(entry: Record<string, unknown>, sortKey: string, vendorId: string, byKey = false): VendorRelease | null {
  const cut = sortKey.indexOf('#');
  const maxMs = Date.parse(sortKey.slice(0, cut));
  const maxEligibility = entry.maxEligibility !== undefined ? readTime(entry.maxEligibility, 'maxEligibility')
    : Number.isNaN(maxMs) ? null : Instant.withOffset(maxMs, INDIA_OFFSET_MINUTES);
  const reason = (entry.reason as string | undefined) ?? null;
  const release = {
    orderId: sortKey.slice(cut + 1), vendorId, amount: entry.amount, currency: entry.currency, state: entry.state,
    holdReason: entry.holdReason ?? null, reasonCode: entry.reasonCode, rule: entry.rule, scheduleOption: entry.scheduleOption,
    manual: entry.manual ? withTimes(entry.manual as Record<string, unknown>, ['at', 'requestedAt']) : null,
    transactionTime: readTime(entry.transactionTime, 'transactionTime'), maxEligibility,
    targetEligibility: readTime(entry.targetEligibility ?? null, 'targetEligibility'), version: entry.version,
    sendAt: null, releaseKey: null, appliedEligibility: null, predictedSettlement: null, clamp: null, reason: null, settledAt: null, attempts: [],
  } as unknown as VendorRelease;
  if (release.reasonCode === undefined && reason !== null) {
    release.reasonCode = reasonCodeOf({ state: release.state, reason, holdReason: release.holdReason, waitReason: (entry.waitReason as WaitReason | undefined) ?? null });
  }
  return maxEligibility === null || (release.reasonCode === undefined && release.state === 'AT_MAX' && !byKey) ? null : release;
}

/** DynamoDB's (and dynalite's) answer to a query of an index the table does not have. */
export const isMissingIndex = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ValidationException' && /does not have the specified index/.test(String((error as Error).message));

const projectionOf = (names: readonly string[]) => ({
  ProjectionExpression: names.map((_, i) => `#p${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#p${i}`, name])),
});
/**
 * What a planning read by key asks of each item: its keys and PREVIEW_FIELDS, and what an item written before reason
 * codes and the planning index needs (its words and wait reason for the code, its own maximum eligibility).
 */
const PLANNING_PROJECTION = projectionOf([KEY.pk, KEY.sk, ...ALL_PROJECTED, 'maxEligibility', 'reason', 'waitReason']);
/**
 * What a planning index read asks of each entry: its sort key (the order, and the order id after its `#`) and
 * PREVIEW_FIELDS; not the table's keys nor the partition key, which the read knows (the vendor, the partition). The
 * wide indexes of the upgrade's earlier stages are asked the same.
 */
const INDEX_PROJECTION = {
  [PLAN_INDEX.name]: projectionOf([PLAN_INDEX.sk, ...ALL_PROJECTED]),
  [WIDE_PLAN_INDEX.name]: projectionOf([WIDE_PLAN_INDEX.sk, ...ALL_PROJECTED]),
  [LEGACY_PLAN_INDEX.name]: projectionOf([LEGACY_PLAN_INDEX.sk, ...ALL_PROJECTED]),
};
type PlanIndex = typeof PLAN_INDEX | typeof WIDE_PLAN_INDEX | typeof LEGACY_PLAN_INDEX;

/**
 * Every entry of a planning index (PLAN_INDEX or, during the upgrade, WIDE_PLAN_INDEX: unsent releases only; or
 * LEGACY_PLAN_INDEX: every open release, the open index's keys) over the vendor's partitions, all queried at once, a
 * page of up to 1 MB a query, in the index's order; each entry its sort key and PREVIEW_FIELDS only (INDEX_PROJECTION).
 */
export async function openPlanEntries(
  doc: DocumentClient, tableName: string, partitions: readonly string[], index: PlanIndex = PLAN_INDEX,
): Promise<Record<string, unknown>[]> {
  const projection = INDEX_PROJECTION[index.name];
  const parts = await Promise.all(partitions.map((pk) => queryItems(doc, {
    TableName: tableName,
    IndexName: index.name,
    KeyConditionExpression: '#pk = :pk',
    ProjectionExpression: projection.ProjectionExpression,
    ExpressionAttributeNames: { '#pk': index.pk, ...projection.ExpressionAttributeNames },
    ExpressionAttributeValues: { ':pk': pk },
  })));
  return mergedInKeyOrder(parts, index.sk);
}

/**
 * Entries of several partitions, each read in its key order, as one list in the order of `sk`: merged (a pass over
 * the heads, not a sort of 100,000 entries), then checked, and sorted only if a partition was not in that order.
 */
export function mergedInKeyOrder(parts: readonly Record<string, unknown>[][], sk: string): Record<string, unknown>[] {
  const merged: Record<string, unknown>[] = [];
  const at = parts.map(() => 0);
  for (;;) {
    let best = -1;
    let bestKey = '';
    for (let p = 0; p < parts.length; p += 1) {
      if (at[p] >= parts[p].length) continue;
      const key = parts[p][at[p]][sk] as string;
      if (best < 0 || key < bestKey) {
        best = p;
        bestKey = key;
      }
    }
    if (best < 0) break;
    merged.push(parts[best][at[best]]);
    at[best] += 1;
  }
  const keyOf = (item: Record<string, unknown>) => item[sk] as string;
  for (let i = 1; i < merged.length; i += 1) {
    if (keyOf(merged[i - 1]) > keyOf(merged[i])) return merged.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  }
  return merged;
}

/**
 * The entries of the first planning index the table has (and which it was), or null when it has none (`missing`
 * remembers, for the container, those found missing). The older indexes first while they exist: during the upgrade
 * stage that holds two, the sparse one may still wait for the backfill to give older unsent releases its keys, and a
 * new index cannot be queried while DynamoDB fills it (lib/holdback-table.ts).
 */
export async function firstPlanIndexEntries(
  doc: DocumentClient, tableName: string, partitions: readonly string[], missing: Set<string>,
): Promise<{ entries: Record<string, unknown>[]; index: PlanIndex } | null> {
  for (const index of [LEGACY_PLAN_INDEX, WIDE_PLAN_INDEX, PLAN_INDEX]) {
    if (missing.has(index.name)) continue;
    try {
      return { entries: await openPlanEntries(doc, tableName, partitions, index), index };
    } catch (error) {
      // Before its upgrade stage deploys it, or once the last stage removed the legacy one: the next way.
      if (!isMissingIndex(error)) throw error;
      missing.add(index.name);
    }
  }
  return null;
}

/** Release keys per BatchGetItem group of a planning read by key, and groups read at once (each group is 10 calls at once). */
const OPEN_FETCH_GROUP = 1000;
const OPEN_FETCHES_IN_FLIGHT = 4;

/** The release items of `keys` with only what a preview reads (PLANNING_PROJECTION), in groups read a few at once. */
export async function planningItemsByKey(doc: DocumentClient, tableName: string, keys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const groups: Record<string, unknown>[][] = [];
  for (let i = 0; i < keys.length; i += OPEN_FETCH_GROUP) groups.push(keys.slice(i, i + OPEN_FETCH_GROUP));
  const found: Record<string, unknown>[][] = new Array(groups.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(OPEN_FETCHES_IN_FLIGHT, groups.length) }, async () => {
    for (let g = next++; g < groups.length; g = next++) found[g] = await batchGetItems(doc, tableName, groups[g], false, PLANNING_PROJECTION);
  }));
  return found.flat();
}
