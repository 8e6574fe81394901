/** The order's ports: its stored events, record and releases, the rejected events, and the read side of releases. */
import type { Instant } from '../../domain/instant';
import type { OrderRecord, RejectedEvent, StoredEvent, VendorRelease, DecimalText, ReleaseState } from '../../domain/types';
import type { ExposureEntry } from '../../domain/exposure';

/** Everything stored under one order, read at once. */
export interface StoredOrder {
  /** Null until `order.paid` was recorded. */
  order: OrderRecord | null;
  /** In the order they were received (the domain folds them by their own times). */
  events: StoredEvent[];
  releases: VendorRelease[];
}

export interface OrderRepository {
  /** Stores an event under its key; false when that key was already stored (a duplicate). */
  recordEvent(event: StoredEvent): Promise<boolean>;
  listEvents(orderId: string): Promise<StoredEvent[]>;
  /** The order record, its events and its releases, in one consistent read of the order. */
  loadOrder(orderId: string): Promise<StoredOrder>;
  getOrder(orderId: string): Promise<OrderRecord | null>;
  /**
   * Creates the order record once: `new` when no event of the order came before (nothing else is stored under it),
   * `awaited` when events came before and marked it (see `markAwaitingPayment`), `exists` when it was paid already
   * (the existing record stays).
   */
  createOrder(order: OrderRecord): Promise<'new' | 'awaited' | 'exists'>;
  /**
   * Marks an order whose events come before its payment, so that the payment knows to read them; false (and nothing
   * written) when the order is paid already.
   */
  markAwaitingPayment(orderId: string): Promise<boolean>;
  /**
   * Replaces a paid order's record with the gateway's account of the same payment (its time is the one the window
   * counts from), unless the record holds the gateway's account already; false (nothing written) then.
   */
  adoptGatewayPayment(order: OrderRecord): Promise<boolean>;
  getRelease(orderId: string, vendorId: string): Promise<VendorRelease | null>;
  listReleases(orderId: string): Promise<VendorRelease[]>;
  /**
   * Writes a release conditional on the stored version being `expectedVersion` (null: must not exist).
   * The stored item gets `release.version`; throws VersionConflictError otherwise.
   */
  putRelease(release: VendorRelease, expectedVersion: number | null): Promise<void>;
  /**
   * Releases with work pending (`sendAt` at or before `before`), oldest first; it may also list a claimed release
   * whose deadline (`sendAt`) is later, from the send time it was claimed at: the caller checks `sendAt`.
   */
  listDue(before: Instant, limit: number): Promise<VendorRelease[]>;
}

export interface RejectedEventRepository {
  /** Stores it with the next arrival number (`sequence`), which orders rejected events as they arrived. */
  add(rejected: RejectedEvent): Promise<void>;
  /**
   * Newest arrival first: `limit` of them, continuing after `after` (the `next` of the previous page); `count` is how
   * many were ever rejected.
   */
  page(opts: { limit: number; after?: string | null }): Promise<{ items: (RejectedEvent & { sequence: number })[]; next: string | null; count: number }>;
}

/** Which time of a release an outcome query ranges over (contract 6.1 `by`). */
export type OutcomeTime = 'transaction' | 'applied' | 'settled';

export interface OutcomeFilter {
  by: OutcomeTime;
  /** Instants (ISO 8601 with an offset), both inclusive. */
  from?: Instant;
  to?: Instant;
  vendorId?: string;
  orderId?: string;
  state?: ReleaseState;
}

/** A release with its order, in the order of a read, and the position a cursor resumes after. */
export interface ReadRelease {
  release: VendorRelease;
  /**
   * The order, read only for its currency: null when the release carries its own (every release planned since releases
   * kept it: the DynamoDB adapter then reads no order), or when the order record could not be read.
   */
  order: OrderRecord | null;
  /** Opaque but ordered: `<UTC time>#<orderId>#<vendorId>`. */
  position: string;
}

/**
 * The read side of releases (outcomes, forecasts, vendors), served from the orders table's indexes, never a scan.
 * Reads are eventually consistent (as every index read is).
 */
export interface ReleaseReads {
  /** Matching releases in the order of the chosen time (then order and vendor id), strictly after `after`. */
  outcomes(filter: OutcomeFilter, after: string | null): AsyncIterable<ReadRelease>;
  /**
   * The vendor's open releases (not settled or cancelled) whose window [transaction time, max eligibility] meets
   * [from, to], so that every release whose money may become eligible in the range is read (all of them without a
   * range), in the order of their maximum eligibility (then order id).
   * Every unsent release is open: previews, holds and replanning read a vendor's unsent releases here, from that
   * vendor's partition alone.
   */
  openReleases(vendorId: string, range?: { from: Instant; to: Instant }): AsyncIterable<ReadRelease>;
  /**
   * One page of the vendor's open releases as the index keys them (no release read): order ids in the index's order,
   * strictly after `after`, and the position the next page continues after. Null: nothing follows. A full page may
   * still give a position whose page is empty (DynamoDB cannot tell the end from a full page), so callers follow
   * `next` until it is null.
   */
  openOrderIds(vendorId: string, after: string | null, limit: number): Promise<{ orderIds: string[]; next: string | null }>;
  /**
   * The vendor's open releases counted up to `max`: the exact number when there are at most `max`, else `max + 1`; at
   * a cost bounded by `max` whatever the vendor's size (a preview decides by it whether it fits its answer or becomes a
   * job), never a read of every release.
   */
  openCountUpTo(vendorId: string, max: number): Promise<number>;
  /**
   * The ends of the vendor's open index (the first and the last entry of each partition), read in a few queries of one
   * entry whatever the vendor's size: a new order of the vendor (its maximum eligibility the latest) or a settled one
   * (the earliest) moves them. What a previewId checks its releases by, instead of reading them again.
   */
  openEnds(vendorId: string): Promise<string>;
  /**
   * Every open release of the vendor as planning reads it (previews), read at once over the index's partitions,
   * without its orders and without `attempts` (empty): a narrow read, in the order of openReleases.
   */
  openReleasesToPlan(vendorId: string): Promise<VendorRelease[]>;
  /** Count and sum of the vendor's open releases per currency, from the index alone. */
  openTotals(vendorId: string): Promise<{ currency: string; count: number; amount: DecimalText }[]>;
  /**
   * openTotals over at most about `max` of the vendor's open releases, in a fixed number of requests whatever the
   * vendor's size (one page of each index partition): `complete` when that was every one, else the totals are of the
   * releases read (lower bounds). What a request reads when it needs the vendor's open money (four eyes' amount).
   */
  openTotalsUpTo(vendorId: string, max: number): Promise<{ totals: { currency: string; count: number; amount: DecimalText }[]; complete: boolean }>;
  /** Vendors seen in an order or a policy, by id, strictly after `after`. */
  vendors(after: string | null, limit: number): Promise<{ vendorIds: string[]; more: boolean }>;
  /** Whether a vendor was ever seen in an order or a policy. */
  knowsVendor(vendorId: string): Promise<boolean>;
}

/**
 * Early-release exposure as it changes (contract 6.4): one entry per early release, sorted by the instant its risk
 * window closes, and one version counter per vendor and currency, so that "exposure now", "by day" and the cap check
 * are one small query of the open entries, and two sends cannot both pass a cap (the counter's conditional write).
 */
export interface ExposureLedger {
  /** The vendor's entries whose risk window closes after `now`, in closing order; of one currency, or of every one. */
  open(vendorId: string, now: Instant, currency?: string): Promise<ExposureEntry[]>;
  /** The vendor and currency's version (0: never written). */
  version(vendorId: string, currency: string): Promise<number>;
  /** Moves the version from `expected` to `expected + 1`; false when another writer moved it first. */
  bump(vendorId: string, currency: string, expected: number): Promise<boolean>;
  /** Writes the entry (the same order, vendor and closing instant: the same item). */
  put(entry: ExposureEntry): Promise<void>;
  /** Removes the entry, if there. */
  remove(entry: Pick<ExposureEntry, 'vendorId' | 'currency' | 'orderId' | 'closesAt'>): Promise<void>;
  /**
   * What one order's keys hold at these closing instants, read by key (no query): each key's entry, or `removed` for a
   * removed one. A key never written, or expired a day after its close, is left out.
   */
  atCloses(vendorId: string, currency: string, orderId: string, closes: readonly Instant[]): Promise<ExposureAtClose[]>;
}

/** One key of an order's exposure entry, as `atCloses` found it. */
export type ExposureAtClose = { closesAt: Instant; entry: ExposureEntry | 'removed' };
