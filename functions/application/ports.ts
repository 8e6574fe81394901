/** The interfaces the use cases need from the outside world; adapters implement them, tests use fakes. */
import type { DateTime } from 'luxon';
import type {
  GatewayAnswer, HoldbackEvent, IsoInstant, OrderRecord, RejectedEvent, ReleaseCommand, Settings, StoredEvent,
  VendorPolicy, VendorRelease, VersionedSettings, Attempt, DecimalText, ReleaseState, VendorHold,
} from '../domain/types';
import type { AuditRecord, StreamHead } from '../domain/audit-records';
import type { AuditCheckpoint, CheckpointAlgorithm } from '../domain/audit-checkpoints';

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
  /** Every vendor asked for; null for a vendor never held. Read consistently: a stored hold is always seen. */
  holds: Map<string, VendorHold | null>;
  /**
   * Every vendor asked for: the policy last applied to its open orders (PUT policy with `applyTo: "open_orders"`, or
   * an import), null when none was. Read consistently with the holds: a release pinned to an older version is planned
   * under this one from the apply's answer on, whether or not the apply's job has reached it yet. Absent: none.
   */
  openOrderPolicies?: Map<string, VendorPolicy | null>;
}

/** The policy each vendor's open orders were last told to follow (see PlanningConfig.openOrderPolicies). */
export interface OpenOrderPolicyRepository {
  /** Stores it as the vendor's policy for open orders, unless a newer version is stored there already. */
  put(policy: VendorPolicy): Promise<void>;
}

/** Vendor holds (contract 6): one item per vendor, its last hold or unhold. */
export interface VendorHoldRepository {
  /** The vendor's hold as last stored (consistent read), or null when it was never held. */
  get(vendorId: string): Promise<VendorHold | null>;
  put(hold: VendorHold): Promise<void>;
}

export interface PlanningReadOptions {
  /**
   * Settings and policies may be read eventually consistent (half the read units; the hot paths); holds are always
   * read consistently. See DynamoConfigReader for why that is safe.
   */
  eventual?: boolean;
}

export interface ConfigReader {
  /** The settings and the current policy of each vendor, read together (one round trip for a whole order). */
  forPlanning(vendorIds: readonly string[], options?: PlanningReadOptions): Promise<PlanningConfig>;
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
  listDue(before: string, limit: number): Promise<VendorRelease[]>;
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
  from?: IsoInstant;
  to?: IsoInstant;
  vendorId?: string;
  orderId?: string;
  state?: ReleaseState;
}

/** A release with its order, in the order of a read, and the position a cursor resumes after. */
export interface ReadRelease {
  release: VendorRelease;
  /** Null only if the order record could not be read (it is written before its releases). */
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
  openReleases(vendorId: string, range?: { from: IsoInstant; to: IsoInstant }): AsyncIterable<ReadRelease>;
  /**
   * One page of the vendor's open releases as the index keys them (no release read): order ids in the index's order,
   * strictly after `after`, and the position the next page continues after (null: this was the last page).
   */
  openOrderIds(vendorId: string, after: string | null, limit: number): Promise<{ orderIds: string[]; next: string | null }>;
  /** Count and sum of the vendor's open releases per currency, from the index alone. */
  openTotals(vendorId: string): Promise<{ currency: string; count: number; amount: DecimalText }[]>;
  /** Vendors seen in an order or a policy, by id, strictly after `after`. */
  vendors(after: string | null, limit: number): Promise<{ vendorIds: string[]; more: boolean }>;
  /** Whether a vendor was ever seen in an order or a policy. */
  knowsVendor(vendorId: string): Promise<boolean>;
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
/**
 * Runs before each PUT leaves (`attempt`: its try within the call, `at`: the attempt's stamp), so that the caller can
 * put it on the record first; when it throws, nothing is sent and the call throws that error.
 */
export type BeforePut = (attempt: number, at: string) => Promise<void>;

export interface EligibilityGateway {
  /**
   * `eligibility` in the gateway's form "YYYY-MM-DD HH:MM:SS" (India time). Tries again within the call only after a
   * clean refusal (429); an answer that leaves open whether the PUT applied (timeout, reset, 5xx) ends the call, so
   * that the caller reads the gateway's order recon before anything is sent again.
   */
  updateEligibility(orderId: string, vendorId: string, eligibility: string, beforePut?: BeforePut): Promise<GatewayCallResult>;
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
  /**
   * The vendor as the gateway's Easy Split vendor API holds it (`GET /pg/easy-split/vendors/{vendor_id}`): its
   * schedule option is the one the gateway settles by. Null when the gateway does not know the vendor; throws when it
   * could not be asked. Optional: a gateway without the vendor API leaves Holdback's policy as the only source.
   */
  fetchVendor?(vendorId: string): Promise<{ scheduleOption: number } | null>;
  /**
   * The vendor's settlement eligibility in the order as the gateway's order recon shows it
   * (`GET /pg/easy-split/orders/{order_id}`), ISO 8601 with offset; null when the recon lists none for the vendor.
   * Throws when the gateway could not be asked or the order is unknown to it. Optional: without it a release whose
   * sender was lost is sent again (a PUT of the same date is harmless at the gateway).
   */
  fetchEligibility?(orderId: string, vendorId: string): Promise<string | null>;
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
  /** Read at run time (cached): a rotated secret applies without a deploy. */
  webhookSecret(): Promise<string>;
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
  /** What happened, e.g. `planned`, `gateway_attempt` (the last one also says what the answer made
   * of the release), `settings_changed`, `policy_changed`, `hold`, `unhold`, `manual_release`, `retry`,
   * `webhook_received` (also what it did: a settlement is recorded here). */
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

/** A record as the store holds it, with what the store found wrong with the item itself (verification reports it). */
export interface StoredAuditRecord {
  record: AuditRecord;
  /** E.g. an item stored under another key than its stream and sequence; absent when the item is well-formed. */
  problem?: string;
}

/** The audit log's read side and its checkpoints (verify, export, timeline): the store behind `audit`. */
export interface AuditArchive {
  /** One stream's records in sequence order (`order#<id>`, `vendor#<id>`, `config`). */
  streamRecords(stream: string): Promise<AuditRecord[]>;
  /** Every record, each stream's in sequence order; `from`/`to` (UTC ISO, inclusive) bound `recordedAt`. */
  records(range?: { from?: string; to?: string }): AsyncIterable<StoredAuditRecord>;
  /** Every checkpoint in number order; `since` (UTC ISO) keeps those written at or after it. */
  checkpoints(since?: string): Promise<AuditCheckpoint[]>;
  /** The newest checkpoints, newest first. */
  latestCheckpoints(limit: number): Promise<AuditCheckpoint[]>;
  /**
   * The head of every stream with a record stored at or after `since` (UTC ISO; null: every stream), from an index:
   * only a hint of which streams moved (an index can lag or run ahead), never what is signed.
   */
  headsRecordedSince(since: string | null): Promise<StreamHead[]>;
  /** One stream's records from `fromSequence` on, in sequence order, read consistently from the records themselves. */
  streamRecordsFrom(stream: string, fromSequence: number): Promise<AuditRecord[]>;
  /** The head each of `streams` had when the writer last signed it (absent: never signed, or signed before pointers). */
  signedHeads(streams: readonly string[]): Promise<Map<string, StreamHead & { checkpoint?: number }>>;
  /** One checkpoint by number, or null. */
  checkpoint(number: number): Promise<AuditCheckpoint | null>;
  /** Remembers the heads a checkpoint signed (a pointer per stream that only moves forward). */
  putSignedHeads(heads: readonly StreamHead[], checkpoint: number): Promise<void>;
  /** Stores a checkpoint unless its number is taken; false then (another writer was first). */
  putCheckpoint(checkpoint: AuditCheckpoint): Promise<boolean>;
  /** Appends entries kept after appends that failed; answers how many entries were appended. */
  flushPending(): Promise<number>;
}

/** One entry of GET /audit/public-keys (contract 6.2). */
export type AuditPublicKey = import('../domain/audit-proof').PublicKeyEntry;

/** The asymmetric key of the audit checkpoints (locally an Ed25519 key file, on AWS a KMS key). */
export interface AuditKey {
  /** The algorithm and key name written into (and covered by) every checkpoint. */
  identity(): Promise<{ algorithm: CheckpointAlgorithm; keyId: string }>;
  /** The public key, PEM (SPKI), for verifiers. */
  publicKeyPem(): Promise<string>;
  /** Every key that ever signed here, the current one last (GET /audit/public-keys); from the key store, not the log. */
  publicKeys(): Promise<AuditPublicKey[]>;
  /** Whether this runtime may sign (on AWS only the checkpoint writer may). */
  readonly canSign: boolean;
  /** Base64 signature of a checkpoint's text (`digestHex` is its SHA-256); throws where `canSign` is false. */
  sign(text: string, digestHex: string): Promise<string>;
}

/** What a preview showed (contract 6, `previewId`), kept until it expires so that a later PUT can require it to hold. */
export interface StoredPreview {
  previewId: string;
  /** What it previewed: `policy:<vendorId>` or `settings`. */
  scope: string;
  /** The digest of the releases and versions it covered and of the change (domain/preview.ts previewDigest). */
  digest: string;
  createdAt: IsoInstant;
  expiresAt: IsoInstant;
}

export interface PreviewRepository {
  save(preview: StoredPreview): Promise<void>;
  /** The preview, or null when it was never made (an expired one is returned; the caller checks `expiresAt`). */
  get(previewId: string): Promise<StoredPreview | null>;
}

/** One bulk policy import, keyed by the digest of its file, so that the same file is applied once. */
export interface PolicyImport {
  importId: string;
  actor: string;
  rows: number;
  state: 'applying' | 'applied' | 'rolled_back';
  startedAt: IsoInstant;
  finishedAt: IsoInstant | null;
  /** Why it was rolled back; null otherwise. */
  reason: string | null;
}

export interface PolicyImportRepository {
  /**
   * Records that an import starts (state `applying`): null when it was written, or the record kept already (nothing
   * written then), except that a rolled-back import may start again.
   */
  begin(record: PolicyImport): Promise<PolicyImport | null>;
  /** Ends an import that is `applying`. */
  finish(importId: string, end: { state: 'applied' | 'rolled_back'; at: IsoInstant; reason: string | null }): Promise<void>;
  get(importId: string): Promise<PolicyImport | null>;
}

/** What a job does (contract 6.3): the bulk work of a change, or an export. */
export type JobKind = 'vendor_hold' | 'vendor_unhold' | 'policy_apply' | 'outcomes_export' | 'audit_export';
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export const JOB_KINDS: readonly JobKind[] = ['vendor_hold', 'vendor_unhold', 'policy_apply', 'outcomes_export', 'audit_export'];
export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/** One release a job could not do, and why; the job carries on with the others. */
export interface JobFailure {
  orderId: string;
  vendorId: string;
  reason: string;
}

/** A job as stored: the contract's shape plus what its steps need. */
export interface StoredJob {
  jobId: string;
  kind: JobKind;
  state: JobState;
  /** Items found so far (releases, or rows of an export); final once every step was read. */
  total: number;
  done: number;
  failed: number;
  actor: string;
  createdAt: IsoInstant;
  finishedAt: IsoInstant | null;
  error: string | null;
  result: unknown;
  /** What the job works on (e.g. `{vendorId}`, an export's filters). */
  params: Record<string, unknown>;
  /** The first failures (at most JOB_FAILURES_KEPT), each naming its release and reason. */
  failures: JobFailure[];
  /** Steps known to exist, and steps finished: the job is done when both hold the same steps. */
  expected: string[];
  finished: string[];
}

/** One message of the job queue: one step (a page of releases, or a whole export) of one job. */
export interface JobStep {
  jobId: string;
  step: string;
  /** The vendor whose open releases the step walks, and the index position it continues after. */
  vendorId?: string;
  after?: string | null;
}

export interface JobRepository {
  create(job: StoredJob): Promise<void>;
  get(jobId: string): Promise<StoredJob | null>;
  /** Newest first; `after` is the `next` of the previous page. */
  list(query: { state?: JobState; kind?: JobKind; limit: number; after?: string | null }): Promise<{ items: StoredJob[]; next: string | null }>;
  /**
   * Records once that `step` was read: `count` items more to do, and the steps it opened (expected from now on); the
   * job is `running` from then. False when the step was recorded already (a delivery again).
   */
  stepRead(jobId: string, step: string, count: number, opened: string[]): Promise<boolean>;
  /** Records once that `step` finished with these counts; the job after it, or null when it was recorded already. */
  stepDone(jobId: string, step: string, outcome: { done: number; failed: number; failures: JobFailure[] }): Promise<StoredJob | null>;
  /** Ends a job that is not ended yet; false when it was ended already. */
  finish(jobId: string, end: { state: Exclude<JobState, 'queued' | 'running'>; at: IsoInstant; error: string | null; result: unknown }): Promise<boolean>;
}

/** The job queue (SQS on AWS, the local edge's queue locally), consumed by the jobs function at a bounded concurrency. */
export interface JobQueue {
  enqueue(steps: JobStep[]): Promise<void>;
}

/** Where export files are written once and served by a link that expires (S3 on AWS, the data folder locally). */
export interface ExportStore {
  /**
   * Writes the lines as one file named by `key`, replacing any partial file of an earlier try, and answers its size and
   * SHA-256 (lowercase hex); the file is only visible once whole.
   */
  write(key: string, contentType: string, lines: AsyncIterable<string>): Promise<{ bytes: number; sha256: string }>;
  /** A download link of the file valid until `expiresAt`. */
  link(key: string, expiresAt: Date, fileName: string): Promise<string>;
  /**
   * The file behind a link this store made, served by the API (the local store); absent where links point elsewhere
   * (a pre-signed S3 URL). Unknown key or wrong token: not_found; past its expiry: expired, never part of a file.
   */
  open?(key: string, token: string, now: Date): Promise<ExportDownload>;
}

export type ExportDownload =
  | { kind: 'file'; contentType: string; fileName: string; chunks: AsyncIterable<string> }
  | { kind: 'expired'; expiresAt: IsoInstant }
  | { kind: 'not_found' };

/**
 * Early-release exposure as it changes (contract 6.4): one entry per early release, sorted by the instant its risk
 * window closes, and one version counter per vendor and currency, so that "exposure now", "by day" and the cap check
 * are one small query of the open entries, and two sends cannot both pass a cap (the counter's conditional write).
 */
export interface ExposureLedger {
  /** The vendor's entries whose risk window closes after `now`, in closing order; of one currency, or of every one. */
  open(vendorId: string, now: IsoInstant, currency?: string): Promise<import('../domain/exposure').ExposureEntry[]>;
  /** The vendor and currency's version (0: never written). */
  version(vendorId: string, currency: string): Promise<number>;
  /** Moves the version from `expected` to `expected + 1`; false when another writer moved it first. */
  bump(vendorId: string, currency: string, expected: number): Promise<boolean>;
  /** Writes the entry (the same order, vendor and closing instant: the same item). */
  put(entry: import('../domain/exposure').ExposureEntry): Promise<void>;
  /** Removes the entry, if there. */
  remove(entry: Pick<import('../domain/exposure').ExposureEntry, 'vendorId' | 'currency' | 'orderId' | 'closesAt'>): Promise<void>;
}

/** Counts and measures of the release flow (names in functions/definitions/metric-names.ts), for alarms. */
export interface ReleaseMetrics {
  /** Adds `value` (default 1) to the metric: a count, or a measure in the metric's unit. */
  record(key: import('../definitions/metric-names').MetricKey, value?: number): void;
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
  /** The same store as `audit`, read: verification, export, timelines, checkpoints. */
  auditArchive: AuditArchive;
  /** The checkpoints' key; null where none is configured (no checkpoints are written, verification says so). */
  auditKey: AuditKey | null;
  holds: VendorHoldRepository;
  exposure: ExposureLedger;
  reads: ReleaseReads;
  previews: PreviewRepository;
  policyImports: PolicyImportRepository;
  openOrderPolicies: OpenOrderPolicyRepository;
  jobs: JobRepository;
  jobQueue: JobQueue;
  exports: ExportStore;
  logger: Logger;
  secrets: RuntimeSecrets;
  /**
   * Whether the gateway credentials are there (the secret filled in): releases run only then, so a stack whose secret
   * is still its placeholder pauses by itself and resumes once it is filled in, with no deploy. Absent: always.
   */
  gatewayReady?: () => Promise<boolean>;
}
