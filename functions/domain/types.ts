/** The vocabulary of Holdback's domain: settings, vendor policies, release states and outcomes. Pure types only. */
import type { Instant } from './instant';

/**
 * An instant as ISO 8601 text with an offset, e.g. "2022-12-02T16:00:00+05:30": the form every stored time has on the
 * wire (items, answers, events). Records carry `Instant` (instant.ts); the edges read this text with `Instant.parse`
 * and write it with `toText()`.
 */
export type IsoInstant = string;
/** An ISO 8601 duration, e.g. "P3D", "PT1H". */
export type IsoDuration = string;
/** A decimal amount as text ("1234.50"); never a float. */
export type DecimalText = string;

export type SettlementDays = 'working' | 'calendar';

/** Merchant-wide settings (contract section 4). */
export interface Settings {
  /** Mirror of the gateway dashboard's Defer by Days, 0..365. */
  deferByDays: number;
  /** IANA zone used for response times; default "Asia/Kolkata". */
  timezone: string;
  /** Schedule option of vendors without a policy; default 1. */
  defaultScheduleOption: number;
  /** Bank holidays, "YYYY-MM-DD" in India time. */
  holidays: string[];
  /** Whether "T+n" schedule options count bank working days or calendar days. */
  settlementDays: SettlementDays;
  /** How long before its target a release is sent; default "PT1H". */
  releaseLead: IsoDuration;
  /**
   * How long an answer that may be final ("Order ID does not exist": the gateway may learn of the order late) keeps
   * being retried, counted from its first such answer; default "P1D". Other retryable answers retry while the window
   * is open. Optional so that settings saved before it existed still read.
   */
  retryBudget?: IsoDuration;
  /** Which changes need a second person (contract 6.4 four eyes); absent or `{}`: none. */
  approvals?: import('./approvals').ApprovalRules;
  /**
   * How long after its delivery (after its payment when no delivery is known) an order can still be refunded or
   * disputed: money released early is the vendor's exposure until then (contract 6.4); default "P7D".
   */
  riskWindow?: IsoDuration;
  /** Held money that the gateway will settle anyway within this long is an alert (contract 6.4); default "P2D". */
  holdWarning?: IsoDuration;
}

export interface VersionedSettings extends Settings {
  version: number;
  actor: string;
  reason: string;
  at: Instant;
}

export type ReleaseRule =
  | { kind: 'at_max' }
  | { kind: 'immediate' }
  | { kind: 'after_payment'; delay: IsoDuration }
  | { kind: 'after_delivery'; delay: IsoDuration };

export interface VendorPolicy {
  vendorId: string;
  /** 0 for a vendor without a stored policy (the default applies). */
  version: number;
  scheduleOption: number;
  release: ReleaseRule;
  actor: string;
  reason: string;
  at: Instant | null;
  /** The bulk import (`POST /policies/import`) that wrote this version; absent for a single change. */
  importId?: string;
  /** The most early-released money that may be at risk at once, per currency (contract 6.4); absent: no cap. */
  maxExposure?: Record<string, DecimalText>;
}

/** Vendor release states (contract section 5). */
export type ReleaseState =
  | 'PLANNED'
  | 'SCHEDULED'
  | 'WAITING'
  | 'HELD'
  | 'APPLYING'
  | 'APPLIED'
  | 'AT_MAX'
  | 'CANCELLED'
  | 'FAILED'
  | 'SETTLED';

export const RELEASE_STATES: readonly ReleaseState[] = [
  'PLANNED', 'SCHEDULED', 'WAITING', 'HELD', 'APPLYING', 'APPLIED', 'AT_MAX', 'CANCELLED', 'FAILED', 'SETTLED',
];

/** States after which nothing more is sent to the gateway for this order and vendor. */
export const FINAL_STATES: readonly ReleaseState[] = ['APPLIED', 'AT_MAX', 'CANCELLED', 'FAILED', 'SETTLED'];

export type DisputeResolution = 'merchant_won' | 'customer_won';

/** Order events as Holdback consumes them (contract section 2), after validation. */
export type OrderEvent =
  | { type: 'order.paid'; orderId: string; transactionTime: Instant; vendors: { vendorId: string; amount: DecimalText }[]; currency: string; transactionTimeSource?: TransactionTimeSource }
  | { type: 'order.delivered'; orderId: string; deliveredAt: Instant; vendorIds?: string[] }
  | { type: 'order.dispute_opened'; orderId: string; openedAt: Instant; vendorIds?: string[] }
  | { type: 'order.dispute_closed'; orderId: string; closedAt: Instant; resolution: DisputeResolution; vendorIds?: string[] }
  | { type: 'order.cancelled'; orderId: string; cancelledAt: Instant; vendorIds?: string[] };

export type OrderEventType = OrderEvent['type'];

/**
 * Who told Holdback the payment's time: the gateway's own payment webhook (trusted for the window, which the gateway
 * counts from its own payment time) or the marketplace's `order.paid`.
 */
export type TransactionTimeSource = 'gateway' | 'marketplace';

/**
 * One call of the gateway's eligibility PUT, as recorded on the outcome: written with status "SENT" before the PUT
 * leaves, its answer filled in when it comes.
 */
export interface Attempt {
  at: Instant;
  /** The date sent, in the gateway's form "YYYY-MM-DD HH:MM:SS". */
  request: string;
  /** HTTP status, or null when no answer came (timeout, reset). */
  httpStatus: number | null;
  /**
   * The body's status ("OK" | "ERROR"), a transport label ("TIMEOUT", "NETWORK", "RATE_LIMITED"), "SENT" (on its way,
   * no answer yet) or "NO_ANSWER" (its sender was lost before the answer was recorded).
   */
  status: string;
  subCode: string | null;
  message: string;
  /**
   * Its answer never came (or said nothing) and the gateway's order recon, read at `at`, held the date it sent: it was
   * applied. Status is then "OK"; the message keeps what the transport said.
   */
  confirmedFromRecon?: { at: Instant; eligibility: Instant } | null;
}

/** Why a target was moved into the window or into the future. */
export interface Clamp {
  requested: Instant;
  clampedTo: Instant;
  reason: 'before_transaction' | 'after_max_eligibility' | 'in_the_past';
}

/** What the gateway's answer means for the caller (gateway-facts section 1). */
export type AnswerClass =
  | { kind: 'applied' }
  /**
   * `budgeted`: an answer that may be final (e.g. "Order ID does not exist": the gateway may learn of the order late),
   * retried only within the settings' `retryBudget`.
   */
  | { kind: 'retryable'; reason: string; retryAfterSeconds?: number; recompute?: boolean; budgeted?: boolean }
  | { kind: 'terminal'; reason: string }
  | { kind: 'config_drift'; reason: string };

/** The gateway's answer to one eligibility PUT, as data (the adapter produces it, the domain classifies it). */
export type GatewayAnswer =
  | { kind: 'response'; httpStatus: number; status: string; subCode: string; message: string; retryAfterSeconds?: number }
  /** No answer in time, or none at all (the connection failed): what happened, in words. */
  | { kind: 'timeout' | 'network'; message: string }
  /** The client-side rate limit had no room within the caller's patience; nothing was sent. */
  | { kind: 'throttled'; retryAfterSeconds: number };

/** An order as Holdback knows it once `order.paid` has arrived. */
export interface OrderRecord {
  orderId: string;
  transactionTime: Instant;
  /** transactionTime + deferByDays in force when the payment was recorded. */
  maxEligibility: Instant;
  deferByDays: number;
  currency: string;
  vendors: { vendorId: string; amount: DecimalText }[];
  recordedAt: Instant;
  /** Absent on orders recorded before it existed: the marketplace's. */
  transactionTimeSource?: TransactionTimeSource;
}

/** One order event as stored (deduplicated by `key`). */
export interface StoredEvent {
  orderId: string;
  /** Deterministic: detail-type plus a hash of the canonical detail, so a duplicate lands on the same key. */
  key: string;
  event: OrderEvent;
  receivedAt: Instant;
}

/** The release of one vendor's share of one order: the item Holdback keeps per order and vendor. */
export interface VendorRelease {
  orderId: string;
  vendorId: string;
  amount: DecimalText;
  state: ReleaseState;
  policyVersion: number;
  rule: ReleaseRule;
  scheduleOption: number;
  transactionTime: Instant;
  maxEligibility: Instant;
  /** The eligibility Holdback aims for, already clamped into the window; null while it waits for an event. */
  targetEligibility: Instant | null;
  /** When the PUT is due (target minus releaseLead, or a retry time); null when nothing is pending. */
  sendAt: Instant | null;
  /** Deterministic name of the pending release (also the Scheduler schedule name); a new one per send. */
  releaseKey: string | null;
  appliedEligibility: Instant | null;
  predictedSettlement: Instant | null;
  clamp: Clamp | null;
  attempts: Attempt[];
  /** How many times the eligibility PUT was sent (one send may hold several attempts); absent means 0. */
  sends?: number;
  /** The gateway's reason or Holdback's for FAILED, AT_MAX after a dispute, CANCELLED...: the words of `reasonCode`. */
  reason: string | null;
  /**
   * Why the release is in its state, as a code: behaviour is keyed on it, never on `reason`'s words. Absent only on
   * releases stored before it existed (the item mapping derives it from their `reason`).
   */
  reasonCode?: ReasonCode;
  settledAt: Instant | null;
  /** Why it is HELD: an open dispute or a vendor hold (null otherwise; absent on releases stored before it existed). */
  holdReason?: HoldReason | null;
  /** When the rule (or a manual release) wants the PUT sent: target minus releaseLead; kept while a retry waits. */
  plannedSendAt?: Instant | null;
  /** What the release was when the gateway reported the settlement. */
  settledFrom?: SettledFrom | null;
  /** A manual early release (contract 6): it replaces the rule's target, and with `override` an open hold. */
  manual?: ManualRelease | null;
  /** The first "Order ID does not exist" answer of the current run of them: the retry budget counts from it. */
  orderNotFoundSince?: Instant | null;
  /** The order's currency (absent on releases written before it was kept here: the order record has it). */
  currency?: string;
  /** Set when the gateway's settlement differs from the prediction (read by outcomes and the accuracy report). */
  settlementMismatch?: SettlementMismatch | null;
  /**
   * The eligibility the claim in force sends (gateway form), stored before the PUT: a claimant taking over a send whose
   * deadline passed asks the gateway's order recon whether that send arrived. Null or absent when nothing is in flight.
   */
  sending?: SendInFlight | null;
  /**
   * Why a WAITING release waits, when not for a delivery: `exposure_cap`, an early release that would pass the policy's
   * maxExposure (contract 6.4), claimed again at `sendAt` (when a risk window closes, or at max eligibility).
   */
  waitReason?: WaitReason | null;
  /** The exposure entry of an early release (contract 6.4), written when it was claimed for sending. */
  exposure?: { currency: string; amount: DecimalText; closesAt: Instant } | null;
  /** Optimistic-lock version: every write is conditional on the previous one. */
  version: number;
  updatedAt: Instant;
}

/** Typed reasons of a WAITING release besides waiting for its delivery. */
export type WaitReason = 'exposure_cap';

/** One eligibility PUT about to be sent (or sent, its answer not yet recorded). */
export interface SendInFlight {
  /** The date sent, in the gateway's form "YYYY-MM-DD HH:MM:SS" (India time). */
  request: string;
  /** When the claim that sends it was made. */
  claimedAt: Instant;
}

export type HoldReason = 'dispute' | 'vendor_hold';

/** Why a release is in its state (the words are in `reason`, made from the code and its details). */
export type ReasonCode =
  | 'planned' | 'retrying' | 'waiting_delivery' | 'vendor_hold' | 'dispute'
  | 'at_max_rule' | 'window_closed' | 'customer_won' | 'cancelled'
  | 'applied' | 'applied_from_recon'
  | 'gateway_refused' | 'config_drift' | 'gave_up' | 'window_closes' | 'window_closed_retrying'
  | 'settled' | 'settled_cancelled'
  | 'exposure_cap';
/** Who placed a hold (contract 6.4), strongest first: lifting a hold needs its own source or a stronger one. */
export type HoldSource = 'dispute' | 'risk' | 'finance' | 'vendor_request';
export const HOLD_SOURCES: readonly HoldSource[] = ['dispute', 'risk', 'finance', 'vendor_request'];

export interface SettledFrom {
  state: ReleaseState;
  appliedEligibility: Instant | null;
  predictedSettlement: Instant | null;
}

export interface ManualRelease {
  actor: string;
  reason: string;
  /** The eligibility asked for; null: as soon as the gateway accepts (from `requestedAt`). */
  at: Instant | null;
  override: boolean;
  requestedAt: Instant;
}

/** A vendor's hold (contract 6): while `held`, nothing of the vendor is sent. Kept after unhold, as its last change. */
export interface VendorHold {
  vendorId: string;
  held: boolean;
  /** Who placed the hold in force (absent on holds stored before sources existed: `finance`). */
  source?: HoldSource;
  actor: string;
  reason: string;
  at: Instant;
}

/** A settlement the gateway reported at another time than Holdback predicted (a drift of configuration or calendar). */
export interface SettlementMismatch {
  predicted: Instant;
  settledAt: Instant;
  /** settledAt minus predicted, in whole minutes (negative: earlier than predicted). */
  differenceMinutes: number;
  /** What likely disagrees, for the reader. */
  message: string;
}

/** Input of the release handler (the Scheduler target's Input, and what the sweep re-drives). */
export interface ReleaseCommand {
  orderId: string;
  vendorId: string;
  releaseKey: string;
}

/** Events Holdback emits (contract section 3). */
export type HoldbackEvent =
  | { type: 'vendor.release_applied'; detail: { orderId: string; vendorId: string; eligibility: Instant; predictedSettlement: Instant | null } }
  | { type: 'vendor.release_failed'; detail: { orderId: string; vendorId: string; reason: string; retryable: boolean } }
  | { type: 'config.drift_detected'; detail: { orderId: string; vendorId: string; message: string } };

export interface RejectedEvent {
  id: string;
  at: Instant;
  source: string | null;
  detailType: string | null;
  /** What was wrong, naming the field and what to send. */
  reasons: string[];
  /** The detail as received (truncated if huge). */
  detail: unknown;
}
