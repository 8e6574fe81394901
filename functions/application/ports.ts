/** The interfaces the use cases need from the outside world; adapters implement them, tests use fakes. */
import type { DateTime } from 'luxon';
import type {
  GatewayAnswer, HoldbackEvent, IsoInstant, OrderRecord, RejectedEvent, ReleaseCommand, Settings, StoredEvent,
  VendorPolicy, VendorRelease, VersionedSettings, Attempt,
} from '../domain/types';

/** Time as the runtime sees it (the local edge's shared clock, or the system clock on AWS). */
export interface Clock {
  now(): DateTime;
}

/** Thrown by a conditional write whose expected version no longer holds. */
export class VersionConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VersionConflictError';
  }
}

export interface SettingsRepository {
  /** The current settings; the defaults (version 0) when none were ever saved. */
  get(): Promise<VersionedSettings>;
  /** Saves a new version, conditional on `expectedVersion` being the latest. */
  save(settings: Settings, meta: { actor: string; reason: string; at: string; expectedVersion: number }): Promise<VersionedSettings>;
  history(): Promise<VersionedSettings[]>;
}

export interface PolicyRepository {
  /** The latest version, or null for a vendor without a stored policy. */
  current(vendorId: string): Promise<VendorPolicy | null>;
  /** Stores `policy` as version `policy.version`; conflicts if that version exists. */
  save(policy: VendorPolicy): Promise<VendorPolicy>;
  /** Every version, newest first. */
  history(vendorId: string): Promise<VendorPolicy[]>;
  /** A given version (for outcomes that recorded it). */
  version(vendorId: string, version: number): Promise<VendorPolicy | null>;
}

/** What planning an order's releases reads: the settings in force and each vendor's current policy. */
export interface PlanningConfig {
  settings: VersionedSettings;
  /** Every vendor asked for; null for a vendor without a stored policy (the default applies). */
  policies: Map<string, VendorPolicy | null>;
}

export interface ConfigReader {
  /** The settings and the current policy of each vendor, read together (one round trip for a whole order). */
  forPlanning(vendorIds: readonly string[]): Promise<PlanningConfig>;
}

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
  getRelease(orderId: string, vendorId: string): Promise<VendorRelease | null>;
  listReleases(orderId: string): Promise<VendorRelease[]>;
  /**
   * Writes a release conditional on the stored version being `expectedVersion` (null: must not exist).
   * The stored item gets `release.version`; throws VersionConflictError otherwise.
   */
  putRelease(release: VendorRelease, expectedVersion: number | null): Promise<void>;
  /** Releases with work pending (`sendAt` at or before `before`), oldest first. */
  listDue(before: string, limit: number): Promise<VendorRelease[]>;
  /** Releases of one vendor (for outcomes, previews and forecasts), optionally filtered. */
  listByVendor(vendorId: string, opts?: { from?: string; to?: string; limit?: number }): Promise<VendorRelease[]>;
}

export interface RejectedEventRepository {
  add(rejected: RejectedEvent): Promise<void>;
  /** Newest first. */
  list(limit: number): Promise<RejectedEvent[]>;
}

/** One-time schedules that invoke the release handler (EventBridge Scheduler). */
export interface ReleaseScheduler {
  /** Creates a schedule named `command.releaseKey` firing at `at`; an existing one of that name is success. */
  schedule(command: ReleaseCommand, at: DateTime): Promise<void>;
  /** Deletes it; a missing one is success. */
  cancel(releaseKey: string): Promise<void>;
}

export interface GatewayCallResult {
  /** Every attempt of this call, in order, for the outcome's attempt log. */
  attempts: Attempt[];
  /** The answer that ended the call. */
  final: GatewayAnswer;
}

/** The gateway's vendor settlement eligibility PUT. */
export interface EligibilityGateway {
  /** `eligibility` in the gateway's form "YYYY-MM-DD HH:MM:SS" (India time). */
  updateEligibility(orderId: string, vendorId: string, eligibility: string): Promise<GatewayCallResult>;
}

/** One vendor's share in an order's static split, as the gateway holds it: exactly one of amount and percentage. */
export interface GatewayOrderSplit {
  vendorId: string;
  /** Decimal text, e.g. "600" or "600.50". */
  amount?: string;
  /** Decimal text of the order amount, e.g. "33.335". */
  percentage?: string;
}

/** The part of a gateway order the webhook receiver needs: its payment webhook does not carry the split. */
export interface GatewayOrder {
  /** Decimal text, e.g. "1000". */
  orderAmount: string;
  /** Empty for an order without a split. */
  splits: GatewayOrderSplit[];
}

/** The gateway's order lookup (`GET /pg/orders/{order_id}`, version 2022-09-01). */
export interface GatewayOrders {
  /** The order, or null when the gateway does not know it; throws when the gateway could not be asked. */
  fetchOrder(orderId: string): Promise<GatewayOrder | null>;
}

export interface EventPublisher {
  publish(events: HoldbackEvent[]): Promise<void>;
  /**
   * Puts an order event on the bus with the marketplace's event source (the one Holdback's rule listens to), as if the
   * marketplace had sent it: the gateway webhook receiver turns a paid order into `order.paid` this way.
   */
  publishOrderEvent(detailType: string, detail: object): Promise<void>;
}

/** Secrets the use cases need; kept apart from the ports so that nothing logs them by accident. */
export interface RuntimeSecrets {
  /** Key of the gateway's webhook signature (the gateway client secret). */
  webhookSecret: string;
}

/**
 * The one send path (SQS on AWS, the local edge's queue locally): every release that is due is enqueued here and sent
 * by the release function, whose bounded concurrency keeps the whole deployment under the gateway's rate limit.
 * Schedules target the same queue. A duplicate command is harmless: the release key and the claim decide who sends.
 */
export interface ReleaseQueue {
  /** Enqueues every command; resolves once all are accepted, throws when one could not be. */
  enqueue(commands: ReleaseCommand[]): Promise<void>;
}

/**
 * One record of the tamper-evident audit log (contract 6.2). The log derives the stream from the entry: the order's
 * (`orderId` set), else the vendor's (`vendorId` set), else the configuration's.
 */
export interface AuditEntry {
  /** What happened, e.g. `event_received`, `planned`, `gateway_attempt`, `settled`, `settings_changed`,
   * `policy_changed`, `hold`, `unhold`, `manual_release`, `retry`, `webhook_received`. */
  kind: string;
  at: IsoInstant;
  actor?: string | null;
  orderId?: string;
  vendorId?: string;
  /** What a reader needs to understand the record (the request and the answer of an attempt, a reason, a diff). */
  detail: Record<string, unknown>;
}

/** The audit log: append-only, hash-chained per stream, checkpoints signed. */
export interface AuditLog {
  /**
   * Appends the entries in order. Retries on its own; it never makes a release fail or repeat: a record it could not
   * write after its retries is kept for a later append (the sweep), and the failure is logged.
   */
  append(entries: AuditEntry[]): Promise<void>;
}

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Everything a use case may need, built once per runtime by a composition root. */
export interface Dependencies {
  clock: Clock;
  settings: SettingsRepository;
  policies: PolicyRepository;
  config: ConfigReader;
  orders: OrderRepository;
  rejected: RejectedEventRepository;
  scheduler: ReleaseScheduler;
  gateway: EligibilityGateway;
  gatewayOrders: GatewayOrders;
  publisher: EventPublisher;
  queue: ReleaseQueue;
  audit: AuditLog;
  logger: Logger;
  secrets: RuntimeSecrets;
}
