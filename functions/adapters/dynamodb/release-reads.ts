/** The read side of releases (outcomes, forecasts, vendors) over the orders table's sparse indexes: queries, never a scan. */
import { createHash } from 'node:crypto';
import { MAX_DELAY_DAYS } from '../../domain/errors';
import { Instant } from '../../domain/instant';
import { isUnsent, reasonCodeOf } from '../../domain/release';
import type { OrderRecord, SettledFrom, VendorRelease } from '../../domain/types';
import type { OutcomeFilter, ReadRelease, ReleaseReads } from '../../application/ports';
import type { DocumentClient } from './document-client';
import { ORDER_TIMES, batchGetItems, queryItems, readReleaseTimes, withoutKeys } from './item-keys';
import { firstPlanIndexEntries, mergedInKeyOrder, openCountUpTo, openEnds, openEntriesUpTo, planningItemsByKey, previewReleaseOf, totalsOfEntries } from './open-index-counts';
import { APPLIED_INDEX, DUE_INDEX, KEY, OPEN_INDEX, OPEN_SHARDS, PAID_INDEX, PLAN_INDEX, SETTLED_INDEX, TTL_ATTRIBUTE } from '../../definitions/tables';

export const orderPk = (orderId: string): string => `ORDER#${orderId}`;
export const META_SK = 'META';
export const RELEASE_PREFIX = 'VENDOR#';
/**
 * Every index attribute a release or order item may carry, and its TTL stamp; removed when the item is read back as
 * a record.
 */
export const INDEX_ATTRIBUTES = [
  DUE_INDEX.pk, DUE_INDEX.sk, OPEN_INDEX.pk, OPEN_INDEX.sk, PAID_INDEX.pk, PAID_INDEX.sk,
  APPLIED_INDEX.pk, APPLIED_INDEX.sk, SETTLED_INDEX.pk, SETTLED_INDEX.sk, PLAN_INDEX.pk, PLAN_INDEX.sk, TTL_ATTRIBUTE,
] as const;

/** India is UTC+05:30 all year: index months are India's calendar months, as finance reads them. */
const INDIA_OFFSET_MS = 19_800_000;
/** Sorts after every character of an id or a time key, so `<time>#~` closes a range inclusively. */
const AFTER_ANY = '~';
/** Sorts before every time key (they start with a digit). */
const BEFORE_ANY = '0';
/** Index entries read per query page: enough to fill a page of outcomes, small enough to stream. */
const QUERY_PAGE = 250;
/** An outcomes read doubles its pages up to this: a page of outcomes reads little, an export a quarter of the calls. */
const LONG_READ_PAGE = 1_000;
/**
 * How far a release's eligibility may lie before its maximum eligibility (the open index's order): the window of
 * Defer by Days, at most 365 days, and a day to spare.
 */
const LONGEST_WINDOW_MS = (MAX_DELAY_DAYS + 1) * 86_400_000;

/** The partitions that list what exists: every vendor seen, and every month an index partition was written in. */
const VENDORS_PK = 'VENDORS';
const MONTHS_PK = 'MONTHS';
const VENDOR_PREFIX = 'VENDOR#';

type IndexKind = 'PAID' | 'APPLIED' | 'SETTLED';

/** `{utc, month}` of an instant: the fixed-width UTC text that sorts as time, and its India month ("2022-12"). */
export function timeKey(instant: Instant | string, field: string): { utc: string; month: string } {
  const ms = (instant instanceof Instant ? instant : Instant.parse(instant, field)).ms;
  return { utc: new Date(ms).toISOString(), month: new Date(ms + INDIA_OFFSET_MS).toISOString().slice(0, 7) };
}

const monthPk = (kind: IndexKind, month: string): string => `${kind}#${month}`;

/** The open-index partition of one release: stable for its order, spread evenly over OPEN_SHARDS (see tables.ts). */
export function openShardPk(vendorId: string, orderId: string): string {
  return `OPEN#${vendorId}#${createHash('sha256').update(orderId).digest().readUInt32BE(0) % OPEN_SHARDS}`;
}

/** Every open-index partition of a vendor: the shards, and the one key of releases written before the shards. */
export const openPartitions = (vendorId: string): string[] =>
  [`OPEN#${vendorId}`, ...Array.from({ length: OPEN_SHARDS }, (_, shard) => `OPEN#${vendorId}#${shard}`)];

/**
 * The index attributes of a release item. Each is set by the write that makes it true and then never changes, so an
 * index is written about once per release (see tables.ts); the planning index's keys (the open index's values) only
 * while the release is unsent. The open index's key is the maximum eligibility, which
 * never changes, not the eligibility itself, which moves when a delivery sets the target or a late send is clamped:
 * each move would be a delete and a put of the entry (2 write units) that no query needs (see openReleases).
 */
export function releaseIndexKeys(release: VendorRelease): { keys: Record<string, string>; months: string[] } {
  const keys: Record<string, string> = {};
  const months: string[] = [];
  const { orderId, vendorId } = release;
  if (release.state !== 'SETTLED' && release.state !== 'CANCELLED') {
    keys[OPEN_INDEX.pk] = openShardPk(vendorId, orderId);
    keys[OPEN_INDEX.sk] = `${timeKey(release.maxEligibility, 'maxEligibility').utc}#${orderId}`;
    // The planning index (sparse): only while the release waits to be sent; its claim deletes the entry.
    if (isUnsent(release)) {
      keys[PLAN_INDEX.pk] = keys[OPEN_INDEX.pk];
      keys[PLAN_INDEX.sk] = keys[OPEN_INDEX.sk];
    }
  }
  if (release.appliedEligibility !== null) {
    const at = timeKey(release.appliedEligibility, 'appliedEligibility');
    keys[APPLIED_INDEX.pk] = monthPk('APPLIED', at.month);
    keys[APPLIED_INDEX.sk] = `${at.utc}#${orderId}#${vendorId}`;
    months.push(monthPk('APPLIED', at.month));
  }
  if (release.settledAt !== null) {
    const at = timeKey(release.settledAt, 'settledAt');
    keys[SETTLED_INDEX.pk] = monthPk('SETTLED', at.month);
    keys[SETTLED_INDEX.sk] = `${at.utc}#${orderId}#${vendorId}`;
    months.push(monthPk('SETTLED', at.month));
  }
  return { keys, months };
}

/** The paid index's attributes of an order record (`META`): one entry per order. */
export function orderIndexKeys(order: OrderRecord): { keys: Record<string, string>; month: string } {
  const at = timeKey(order.transactionTime, 'transactionTime');
  return {
    keys: { [PAID_INDEX.pk]: monthPk('PAID', at.month), [PAID_INDEX.sk]: `${at.utc}#${order.orderId}` },
    month: monthPk('PAID', at.month),
  };
}

/**
 * What exists, for reads that must know where to look: the vendors (GET /vendors) and the months each index was
 * written in (a range query visits those months only, never a walk over empty ones). Written once per key per process:
 * the cache makes a release's write cost nothing more after the first of its month or vendor.
 */
export class ReadDirectory {
  private readonly noted = new Set<string>();

  constructor(private readonly doc: DocumentClient, private readonly tableName: string) {}

  noteVendor(vendorId: string): Promise<void> {
    return this.note(VENDORS_PK, VENDOR_PREFIX + vendorId, { vendorId });
  }

  noteMonth(monthKey: string): Promise<void> {
    return this.note(MONTHS_PK, monthKey, {});
  }

  /** The months of one index kind in [fromMonth, toMonth], oldest first. */
  async months(kind: IndexKind, fromMonth: string | null, toMonth: string | null): Promise<string[]> {
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': MONTHS_PK, ':from': `${kind}#${fromMonth ?? BEFORE_ANY}`, ':to': `${kind}#${toMonth ?? AFTER_ANY}`,
      },
    });
    return items.map((item) => (item.sk as string).slice(kind.length + 1));
  }

  async vendors(after: string | null, limit: number): Promise<{ vendorIds: string[]; more: boolean }> {
    const page = await this.doc.query({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND sk > :after',
      ExpressionAttributeValues: { ':pk': VENDORS_PK, ':after': VENDOR_PREFIX + (after ?? '') },
      Limit: limit + 1,
    });
    const vendorIds = page.items.slice(0, limit).map((item) => item.vendorId as string);
    return { vendorIds, more: page.items.length > limit };
  }

  async knowsVendor(vendorId: string): Promise<boolean> {
    return (await this.doc.get({ TableName: this.tableName, Key: { pk: VENDORS_PK, sk: VENDOR_PREFIX + vendorId } })) !== undefined;
  }

  private async note(pk: string, sk: string, attributes: Record<string, unknown>): Promise<void> {
    const key = `${pk}\u0000${sk}`;
    if (this.noted.has(key)) return;
    // Unconditional and idempotent: two writers of the same key write the same item.
    await this.doc.put({ TableName: this.tableName, Item: { pk, sk, ...attributes } });
    this.noted.add(key);
  }
}

/** One row a read found in an index, before its release is fetched. */
interface Candidate {
  orderId: string;
  vendorId: string;
  position: string;
}

/**
 * The fields of a release that may be null. A release item stores only the fields that are set: a null costs its
 * name's bytes on each of a release's dozen writes, and those bytes took a settled release past the 1 KB of one write
 * unit. Reading gives the release back exactly: a field every release has is null when absent; an optional one that
 * was null (not absent) is named by its letter in `nulls`. (Records, so that the compiler names a field added to
 * VendorRelease that belongs here.)
 */
type NullableField = { [K in keyof VendorRelease]-?: null extends VendorRelease[K] ? K : never }[keyof VendorRelease];
type OptionalNullableField = { [K in NullableField]-?: undefined extends VendorRelease[K] ? K : never }[NullableField];
const REQUIRED_NULLABLE: Record<Exclude<NullableField, OptionalNullableField>, true> = {
  targetEligibility: true, sendAt: true, releaseKey: true, appliedEligibility: true, predictedSettlement: true, clamp: true,
  reason: true, settledAt: true,
};
const NULL_LETTERS: Record<OptionalNullableField, string> = {
  holdReason: 'h', plannedSendAt: 'p', settledFrom: 'f', manual: 'm', orderNotFoundSince: 'o', settlementMismatch: 'x', sending: 's', waitReason: 'w', exposure: 'e',
};
const NULLS = 'nulls';
/** The times a settled release keeps of what it was; stored in `settledFrom` only where they differ from the release's own. */
const SETTLED_FROM_TIMES = ['appliedEligibility', 'predictedSettlement'] as const;

/**
 * A release as its item's attributes (without keys): its order and vendor ids are the item's key already
 * (`ORDER#id`/`VENDOR#vid`), its nulls are left out (see NULL_LETTERS), and a settled release's `settledFrom` keeps
 * only the times that settling changed (none, as `settle` keeps them). toRelease gives back the same release.
 */
export function storedRelease(release: VendorRelease): Record<string, unknown> {
  const stored: Record<string, unknown> = {};
  let nulls = '';
  for (const [name, value] of Object.entries(release)) {
    if (name === 'orderId' || name === 'vendorId' || value === undefined) continue;
    if (value !== null) stored[name] = value;
    else if (name in NULL_LETTERS) nulls += NULL_LETTERS[name as OptionalNullableField];
  }
  if (nulls) stored[NULLS] = nulls;
  if (release.settledFrom) {
    const from: Record<string, unknown> = { state: release.settledFrom.state };
    for (const name of SETTLED_FROM_TIMES) if (!Instant.same(release.settledFrom[name], release[name])) from[name] = release.settledFrom[name];
    stored.settledFrom = from;
  }
  return stored;
}

/** What a release item carries that is not the release: its index keys, its TTL stamp and its nulls. */
const NOT_OF_A_RELEASE: readonly string[] = [...INDEX_ATTRIBUTES, NULLS];

/** The release of an item, as storedRelease stored it (or as written before it, with its ids and nulls). */
export function toRelease(item: Record<string, unknown>): VendorRelease {
  const release = readReleaseTimes(withoutKeys<Record<string, unknown>>(item, NOT_OF_A_RELEASE));
  release.orderId ??= (item[KEY.pk] as string).slice(orderPk('').length);
  release.vendorId ??= (item[KEY.sk] as string).slice(RELEASE_PREFIX.length);
  for (const name of Object.keys(REQUIRED_NULLABLE)) release[name] ??= null;
  const nulls = typeof item[NULLS] === 'string' ? item[NULLS] : '';
  for (const [name, letter] of Object.entries(NULL_LETTERS)) if (nulls.includes(letter)) release[name] = null;
  const from = release.settledFrom as Partial<SettledFrom> | null | undefined;
  if (from) {
    const full: Record<string, unknown> = { ...from };
    for (const name of SETTLED_FROM_TIMES) if (!(name in from)) full[name] = release[name];
    release.settledFrom = full;
  }
  // A release stored before reason codes were kept: its code from its state and words, here at the edge only (every
  // release the machine wrote has words; one without says nothing to derive from).
  const read = release as unknown as VendorRelease;
  if (read.reasonCode === undefined && read.reason !== null) read.reasonCode = reasonCodeOf(read);
  return read;
}

export class DynamoReleaseReads implements ReleaseReads {
  constructor(
    private readonly doc: DocumentClient,
    private readonly tableName: string,
    readonly directory: ReadDirectory = new ReadDirectory(doc, tableName),
  ) {}

  async *outcomes(filter: OutcomeFilter, after: string | null): AsyncIterable<ReadRelease> {
    if (filter.orderId !== undefined) {
      yield* this.outcomesOfOrder(filter, filter.orderId, after);
      return;
    }
    const kind: IndexKind = filter.by === 'transaction' ? 'PAID' : filter.by === 'applied' ? 'APPLIED' : 'SETTLED';
    const index = kind === 'PAID' ? PAID_INDEX : kind === 'APPLIED' ? APPLIED_INDEX : SETTLED_INDEX;
    const from = filter.from !== undefined ? timeKey(filter.from, 'from') : null;
    const to = filter.to !== undefined ? timeKey(filter.to, 'to') : null;
    if (from && to && from.utc > to.utc) return;
    const resumeUtc = after?.split('#')[0] ?? null;
    const lowest = [from?.utc, resumeUtc].filter((v): v is string => Boolean(v)).sort().pop() ?? BEFORE_ANY;
    const startMonth = lowest === BEFORE_ANY ? null : timeKey(lowest, 'cursor').month;
    const upper = to ? `${to.utc}#${AFTER_ANY}` : AFTER_ANY;
    for (const month of await this.directory.months(kind, startMonth, to?.month ?? null)) {
      // One page's releases are read while the previous page's rows are consumed (streamed to a client, say).
      let ahead: Promise<ReadRelease[]> | null = null;
      for await (const entries of this.indexPages(index.name, index.pk, index.sk, monthPk(kind, month), lowest, upper, QUERY_PAGE, LONG_READ_PAGE)) {
        const candidates = entries.flatMap((entry) => candidatesOf(kind, entry, filter.vendorId))
          .filter((c) => after === null || c.position > after);
        const next = this.fetch(candidates, filter);
        // A rejection is seen when it is awaited below; until then it must not count as unhandled.
        next.catch(() => undefined);
        if (ahead) yield* await ahead;
        ahead = next;
      }
      if (ahead) yield* await ahead;
    }
  }

  /**
   * The index is ordered by maximum eligibility, which bounds the eligibility on both sides: it is never later than
   * the maximum, nor earlier than the transaction time, at most the longest window before it. A range is read over
   * those bounds and each release is then kept by its own eligibility (read with it anyway).
   */
  async *openReleases(vendorId: string, range?: { from: Instant; to: Instant }): AsyncIterable<ReadRelease> {
    const from = range ? timeKey(range.from, 'from').utc : BEFORE_ANY;
    const to = range ? timeKey(range.to, 'to').utc : AFTER_ANY;
    if (from > to) return;
    const upper = range ? `${new Date(range.to.ms + LONGEST_WINDOW_MS).toISOString()}#${AFTER_ANY}` : AFTER_ANY;
    // Kept when its window [transaction time, max eligibility] meets the range: wherever the release's money lands
    // (its applied eligibility, its target, or its max eligibility for a held or waiting one) lies in that window.
    const inRange = (release: VendorRelease): boolean => !range || timeKey(release.transactionTime, 'transactionTime').utc <= to;
    const entries = await this.openEntries(vendorId, from, upper);
    // One page's releases are read while the previous page's rows are consumed.
    let ahead: Promise<ReadRelease[]> | null = null;
    for (let i = 0; i < entries.length; i += QUERY_PAGE) {
      const next = this.fetch(entries.slice(i, i + QUERY_PAGE).map((entry) => {
        const [utc, orderId] = (entry[OPEN_INDEX.sk] as string).split('#');
        return { orderId, vendorId, position: `${utc}#${orderId}#${vendorId}` };
      }), {});
      next.catch(() => undefined);
      if (ahead) yield* (await ahead).filter((row) => inRange(row.release));
      ahead = next;
    }
    if (ahead) yield* (await ahead).filter((row) => inRange(row.release));
  }

  /**
   * The vendor's open releases as previews read them (previewReleaseOf: what can change a preview's answer), in the
   * index's order: a planning index's partitions at once (or, before any exists, the open index's, then the release
   * items by key); an entry that is not enough (previewReleaseOf) is read by key, in its place.
   */
  async openReleasesToPlan(vendorId: string): Promise<VendorRelease[]> {
    const found = await firstPlanIndexEntries(this.doc, this.tableName, openPartitions(vendorId), this.planIndexes);
    if (found === null) return this.openReleasesByKey(vendorId, await this.openEntries(vendorId, BEFORE_ANY, AFTER_ANY), OPEN_INDEX.sk);
    const releases = found.entries.map((entry) => previewReleaseOf(entry, entry[found.index.sk] as string, vendorId));
    const short = found.entries.filter((_, i) => releases[i] === null);
    const read = short.length > 0 ? await this.openReleasesByKey(vendorId, short, found.index.sk) : [];
    const byOrder = new Map(read.map((release) => [release.orderId, release]));
    const whole = releases.flatMap((release, i) => release ?? byOrder.get((found.entries[i][found.index.sk] as string).split('#')[1]) ?? []);
    return this.withCurrencies(whole, new Map());
  }

  /** Which planning indexes are missing (learned once a container): until one's upgrade stage, the next way instead. */
  private readonly planIndexes = new Set<string>();

  /** openReleasesToPlan from the release items of these index entries (sort key `sk`), read by key. */
  private async openReleasesByKey(vendorId: string, entries: Record<string, unknown>[], sk: string): Promise<VendorRelease[]> {
    const currencies = new Map<string, unknown>();
    const place = new Map<string, number>();
    const keys = entries.map((entry, i) => {
      const orderId = (entry[sk] as string).split('#')[1];
      currencies.set(orderId, entry.currency);
      place.set(orderId, i);
      return { [KEY.pk]: orderPk(orderId), [KEY.sk]: RELEASE_PREFIX + vendorId };
    });
    const found = await planningItemsByKey(this.doc, this.tableName, keys);
    // In the index's order (maximum eligibility, then order id), as openReleases gives them.
    const releases = found.flatMap((item) => previewReleaseOf(item, `#${(item[KEY.pk] as string).slice(orderPk('').length)}`, vendorId, true) ?? [])
      .sort((a, b) => place.get(a.orderId)! - place.get(b.orderId)!);
    return this.withCurrencies(releases, currencies);
  }

  /** Releases written before they kept their currency take the index entry's or else their order record's. */
  private async withCurrencies(releases: VendorRelease[], currencies: Map<string, unknown>): Promise<VendorRelease[]> {
    const withoutCurrency = releases.filter((r) => r.currency === undefined);
    if (withoutCurrency.length > 0) {
      // Written before releases kept their currency: the index entry or else the order record has it.
      const orders = await batchGetItems(this.doc, this.tableName, withoutCurrency.filter((r) => typeof currencies.get(r.orderId) !== 'string')
        .map((r) => ({ [KEY.pk]: orderPk(r.orderId), [KEY.sk]: META_SK })), false);
      for (const order of orders) currencies.set((order[KEY.pk] as string).slice(orderPk('').length), order.currency);
      for (const r of withoutCurrency) if (typeof currencies.get(r.orderId) === 'string') r.currency = currencies.get(r.orderId) as string;
    }
    return releases;
  }

  /** Every entry of the vendor's open partitions between `lower` and `upper`, read in parallel, in key order. */
  private async openEntries(vendorId: string, lower: string, upper: string, pageSize = 1000): Promise<Record<string, unknown>[]> {
    const parts = await Promise.all(openPartitions(vendorId).map(async (pk) => {
      const entries: Record<string, unknown>[] = [];
      for await (const page of this.indexPages(OPEN_INDEX.name, OPEN_INDEX.pk, OPEN_INDEX.sk, pk, lower, upper, pageSize)) entries.push(...page);
      return entries;
    }));
    return mergedInKeyOrder(parts, OPEN_INDEX.sk);
  }

  /** Counted, not read, at a cost bounded by `max` (see open-index-counts.ts). */
  openCountUpTo(vendorId: string, max: number): Promise<number> {
    return openCountUpTo(this.doc, this.tableName, openPartitions(vendorId), max);
  }

  /** Two queries of one entry per partition (see open-index-counts.ts). */
  openEnds(vendorId: string): Promise<string> {
    return openEnds(this.doc, this.tableName, openPartitions(vendorId));
  }

  /** A page over every open partition: each read after `after` at once, merged in key order. */
  async openOrderIds(vendorId: string, after: string | null, limit: number): Promise<{ orderIds: string[]; next: string | null }> {
    const pages = await Promise.all(openPartitions(vendorId).map((pk) => this.doc.query({
      TableName: this.tableName,
      IndexName: OPEN_INDEX.name,
      KeyConditionExpression: after === null ? '#pk = :pk' : '#pk = :pk AND #sk > :after',
      ExpressionAttributeNames: after === null ? { '#pk': OPEN_INDEX.pk } : { '#pk': OPEN_INDEX.pk, '#sk': OPEN_INDEX.sk },
      ExpressionAttributeValues: after === null ? { ':pk': pk } : { ':pk': pk, ':after': after },
      Limit: limit,
    })));
    const all = pages.flatMap((page) => page.items.map((entry) => entry[OPEN_INDEX.sk] as string)).sort();
    const keys = all.slice(0, limit);
    const more = all.length > limit || pages.some((page) => page.lastEvaluatedKey !== undefined);
    return { orderIds: keys.map((key) => key.split('#')[1]), next: more && keys.length > 0 ? keys[keys.length - 1] : null };
  }

  async openTotals(vendorId: string): Promise<{ currency: string; count: number; amount: string }[]> {
    return this.totalsOf(vendorId, await this.openEntries(vendorId, BEFORE_ANY, AFTER_ANY));
  }

  /** The open index's first page of each partition (see open-index-counts.ts), totalled. */
  async openTotalsUpTo(vendorId: string, max: number): Promise<{ totals: { currency: string; count: number; amount: string }[]; complete: boolean }> {
    const { entries, complete } = await openEntriesUpTo(this.doc, this.tableName, openPartitions(vendorId), max);
    return { totals: await this.totalsOf(vendorId, entries), complete };
  }

  /** Count and sum per currency of these open-index entries (see open-index-counts.ts). */
  private totalsOf(vendorId: string, entries: Record<string, unknown>[]): Promise<{ currency: string; count: number; amount: string }[]> {
    return totalsOfEntries(vendorId, entries, (candidates) => this.fetch(candidates, {}));
  }

  vendors(after: string | null, limit: number): Promise<{ vendorIds: string[]; more: boolean }> {
    return this.directory.vendors(after, limit);
  }

  knowsVendor(vendorId: string): Promise<boolean> {
    return this.directory.knowsVendor(vendorId);
  }

  /** One order's releases from its own partition (no index needed), filtered and ordered as an index read would be. */
  private async *outcomesOfOrder(filter: OutcomeFilter, orderId: string, after: string | null): AsyncIterable<ReadRelease> {
    const items = await queryItems(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': orderPk(orderId) },
    });
    const meta = items.find((item) => item.sk === META_SK);
    const order = meta && meta.transactionTime ? withoutKeys<OrderRecord>(meta, INDEX_ATTRIBUTES, ORDER_TIMES) : null;
    const from = filter.from !== undefined ? timeKey(filter.from, 'from').utc : null;
    const to = filter.to !== undefined ? timeKey(filter.to, 'to').utc : null;
    const rows: ReadRelease[] = [];
    for (const item of items) {
      if (!(item.sk as string).startsWith(RELEASE_PREFIX)) continue;
      const release = toRelease(item);
      const time = filter.by === 'transaction' ? release.transactionTime : filter.by === 'applied' ? release.appliedEligibility : release.settledAt;
      if (time === null) continue;
      const utc = timeKey(time, filter.by).utc;
      if ((from !== null && utc < from) || (to !== null && utc > to)) continue;
      if (filter.vendorId !== undefined && release.vendorId !== filter.vendorId) continue;
      if (filter.state !== undefined && release.state !== filter.state) continue;
      const position = `${utc}#${orderId}#${release.vendorId}`;
      if (after !== null && position <= after) continue;
      rows.push({ release, order, position });
    }
    yield* rows.sort((a, b) => (a.position < b.position ? -1 : 1));
  }

  /** An index partition's entries in key order between `lower` and `upper` (inclusive), pages from `pageSize` doubling to `maxPage`. */
  private async *indexPages(
    indexName: string, pkName: string, skName: string, pk: string, lower: string, upper: string, pageSize = QUERY_PAGE, maxPage = pageSize,
  ): AsyncIterable<Record<string, unknown>[]> {
    let start: Record<string, unknown> | undefined;
    let limit = pageSize;
    do {
      const page = await this.doc.query({
        TableName: this.tableName,
        IndexName: indexName,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
        ExpressionAttributeNames: { '#pk': pkName, '#sk': skName },
        ExpressionAttributeValues: { ':pk': pk, ':lower': lower, ':upper': upper },
        ExclusiveStartKey: start,
        Limit: limit,
      });
      limit = Math.min(limit * 2, maxPage);
      if (page.items.length > 0) yield page.items;
      start = page.lastEvaluatedKey;
    } while (start);
  }

  /**
   * The candidates' releases in their order, filtered by state, each with its order only when the release lacks its
   * currency (older releases): readers take only the currency from the order, so an export reads one item a row, not two.
   */
  private async fetch(candidates: Candidate[], filter: Pick<OutcomeFilter, 'state'>): Promise<ReadRelease[]> {
    const found = new Map<string, Record<string, unknown>>();
    const read = async (keys: Record<string, unknown>[]) => {
      // Eventually consistent, like the index that named them: half the read cost of a consistent read.
      for (const item of keys.length > 0 ? await batchGetItems(this.doc, this.tableName, keys, false) : []) found.set(`${item.pk}\u0000${item.sk}`, item);
    };
    await read(candidates.map((c) => ({ [KEY.pk]: orderPk(c.orderId), [KEY.sk]: RELEASE_PREFIX + c.vendorId })));
    const kept = candidates.flatMap((c) => {
      const item = found.get(`${orderPk(c.orderId)}\u0000${RELEASE_PREFIX}${c.vendorId}`);
      const release = item ? toRelease(item) : null;
      return release && (filter.state === undefined || release.state === filter.state) ? [{ c, release }] : [];
    });
    await read([...new Set(kept.filter(({ release }) => !release.currency).map(({ c }) => c.orderId))].map((orderId) => ({ [KEY.pk]: orderPk(orderId), [KEY.sk]: META_SK })));
    return kept.map(({ c, release }) => {
      const meta = release.currency ? undefined : found.get(`${orderPk(c.orderId)}\u0000${META_SK}`);
      return { release, order: meta ? withoutKeys<OrderRecord>(meta, INDEX_ATTRIBUTES, ORDER_TIMES) : null, position: c.position };
    });
  }
}

/** The rows one index entry stands for: an order's vendors (paid index, by vendor id) or one release. */
function candidatesOf(kind: IndexKind, entry: Record<string, unknown>, vendorId: string | undefined): Candidate[] {
  if (kind === 'PAID') {
    const [utc, orderId] = (entry[PAID_INDEX.sk] as string).split('#');
    const vendors = ((entry.vendors ?? []) as { vendorId: string }[]).map((v) => v.vendorId)
      .filter((v) => vendorId === undefined || v === vendorId)
      .sort();
    return vendors.map((v) => ({ orderId, vendorId: v, position: `${utc}#${orderId}#${v}` }));
  }
  const sk = (kind === 'APPLIED' ? entry[APPLIED_INDEX.sk] : entry[SETTLED_INDEX.sk]) as string;
  const [, orderId, v] = sk.split('#');
  if (vendorId !== undefined && v !== vendorId) return [];
  return [{ orderId, vendorId: v, position: sk }];
}
