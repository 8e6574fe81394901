/** In-memory state of the gateway sandbox: merchant settings, orders, vendors, settlements, payments, deliveries, faults. */
import { TrackedMap } from './tracked-map';

/** Money is kept as decimal text (decimal.js parses it); the wire shows it as a JSON number. */
export type Money = string;
/** ISO 8601 with an offset (+05:30, India time, for everything the gateway shows). */
export type IsoTime = string;

export interface MerchantSettings {
  deferByDays: number;
  deferredSettlementEnabled: boolean;
  tpvEnabled: boolean;
  /** Where merchant-level webhooks (vendor settlements, payments without notify_url) go. */
  webhookUrl: string | null;
  /** Bank holidays, "YYYY-MM-DD" in India time: data, not code. */
  holidays: string[];
}

export interface CustomerRecord {
  customer_id: string;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string;
  /** Kept for TPV checks; never echoed in order responses. */
  customer_bank_account_number: string | null;
  customer_bank_ifsc: string | null;
  customer_bank_code: number | null;
}

export interface OrderSplit {
  vendor_id: string;
  amount?: number;
  percentage?: number;
}

export type OrderStatus = 'ACTIVE' | 'PAID' | 'EXPIRED';

export interface OrderRecord {
  cf_order_id: number;
  order_id: string;
  order_amount: Money;
  order_currency: string;
  customer: CustomerRecord;
  order_meta: { return_url: string | null; notify_url: string | null; payment_methods: string | null };
  order_note: string | null;
  order_tags: Record<string, string> | null;
  order_splits: OrderSplit[];
  order_expiry_time: IsoTime;
  created_at: IsoTime;
  payment_session_id: string;
  /** Stored status; EXPIRED is also derived on read from order_expiry_time. */
  status: OrderStatus;
  /** cf_payment_ids of every attempt, oldest first. */
  payments: number[];
  /** Time of the successful payment (the transaction time of deferred settlement), second precision. */
  payment_time: IsoTime | null;
  /** Room for the payments engineer (TPV account checks, link origin, ...). */
  extensions: Record<string, unknown>;
}

export type VendorStatus = 'ACTIVE' | 'BLOCKED';

export interface VendorRecord {
  vendor_id: string;
  name: string;
  email: string;
  phone: string;
  status: VendorStatus;
  schedule_option: number;
  added_on: IsoTime;
  updated_on: IsoTime;
}

/** PENDING until settled; IN_PROGRESS is shown (derived) from shortly before the settlement slot until it settles. */
export type SettlementStatus = 'PENDING' | 'SETTLED';

export interface VendorSettlementRecord {
  order_id: string;
  vendor_id: string;
  amount: Money;
  /** When the vendor becomes eligible for settlement. */
  eligibility: IsoTime;
  /** The slot of the vendor's schedule at which it will settle (first slot strictly after eligibility). */
  scheduled_at: IsoTime;
  status: SettlementStatus;
  settled_at: IsoTime | null;
  settlement_id: number | null;
  /** Successful eligibility PUTs for this order and vendor ("applied exactly once" proofs). */
  eligibility_updates: number;
}

export type PaymentStatus = 'SUCCESS' | 'NOT_ATTEMPTED' | 'FAILED' | 'USER_DROPPED' | 'VOID' | 'CANCELLED' | 'PENDING';

export interface PaymentRecord {
  cf_payment_id: number;
  order_id: string;
  payment_amount: Money;
  payment_currency: string;
  payment_status: PaymentStatus;
  payment_message: string | null;
  payment_time: IsoTime;
  payment_completion_time: IsoTime | null;
  payment_group: string;
  payment_method: Record<string, unknown>;
  bank_reference: string | null;
  auth_id: string | null;
  /** Room for the payments engineer (channel, OTP state, paying account, ...). */
  extensions: Record<string, unknown>;
}

/** Payment links, test payers and pre-approved phones belong to sandbox/payments; their shapes are theirs. */
export type LinkRecord = Record<string, unknown> & { cf_link_id: number; link_id: string };
export type TestPayerRecord = Record<string, unknown>;

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface WebhookDelivery {
  id: number;
  type: string;
  url: string;
  /** Sent to the merchant's webhook URL (not an order's notify_url): each try goes to the merchant's URL of the moment. */
  merchant?: boolean;
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: IsoTime;
  delivered_at: IsoTime | null;
}

/**
 * `hang_after_apply` acts on the vendor eligibility PUT only: the sandbox processes it (and keeps what it changed),
 * then never answers, as a gateway that applied a request and lost the connection does.
 */
export type FaultKind = '5xx' | '429' | 'timeout' | 'reset' | 'hang_after_apply';
export const FAULT_KINDS: readonly FaultKind[] = ['5xx', '429', 'timeout', 'reset', 'hang_after_apply'];

export interface FaultSettings {
  rate: number;
  kinds: FaultKind[];
  seed: number;
  timeoutMs: number;
  /** State of the seeded generator (mulberry32), advanced by every draw. */
  rngState: number;
}

export interface EligibilityUpdateLogEntry {
  at: IsoTime;
  order_id: string;
  vendor_id: string;
  requested: unknown;
  http_status: number;
  status: string;
  subCode: string;
  message: string;
}

export interface SandboxStats {
  eligibilityPut: {
    total: number;
    servedWithinLimit: number;
    rateLimited: number;
    /** Largest number of requests served within any 60-second window while a limit was set. */
    peakPerMinute: number;
  };
  faultsInjected: Record<FaultKind, number>;
}

export interface SandboxState {
  merchant: MerchantSettings;
  orders: Map<string, OrderRecord>;
  /** payment_session_id → order_id, kept as orders are created: a session is looked up on every payment call. */
  sessions: Map<string, string>;
  vendors: Map<string, VendorRecord>;
  /** Keyed by settlementKey(order_id, vendor_id). */
  settlements: Map<string, VendorSettlementRecord>;
  payments: Map<number, PaymentRecord>;
  links: Map<string, LinkRecord>;
  /** cf_link_id → link_id, kept as links are created. */
  linksByCfId: Map<number, string>;
  testPayers: { byUpiId: Map<string, TestPayerRecord>; byBankAccount: Map<string, TestPayerRecord> };
  preApprovedPhones: Set<string>;
  webhooks: WebhookDelivery[];
  /** Append-only: an entry is never changed once pushed (persistence.ts keeps the text of the entries it saved). */
  eligibilityLog: EligibilityUpdateLogEntry[];
  faults: FaultSettings | null;
  rateLimits: { eligibilityPerMinute: number | null };
  /** Real-time (Date.now) instants of the eligibility PUTs served in the current sliding window. */
  eligibilityWindow: number[];
  stats: SandboxStats;
  counters: { cfOrderId: number; cfPaymentId: number; cfLinkId: number; settlementId: number; webhookId: number };
}

function defaultMerchant(): MerchantSettings {
  return { deferByDays: 15, deferredSettlementEnabled: true, tpvEnabled: false, webhookUrl: null, holidays: [] };
}

export function settlementKey(orderId: string, vendorId: string): string {
  return `${orderId}\u0000${vendorId}`;
}

export function createState(): SandboxState {
  return {
    merchant: defaultMerchant(),
    orders: new TrackedMap(),
    sessions: new TrackedMap(),
    vendors: new TrackedMap(),
    settlements: new TrackedMap(),
    payments: new TrackedMap(),
    links: new TrackedMap(),
    linksByCfId: new TrackedMap(),
    testPayers: { byUpiId: new TrackedMap(), byBankAccount: new TrackedMap() },
    preApprovedPhones: new Set(),
    webhooks: [],
    eligibilityLog: [],
    faults: null,
    rateLimits: { eligibilityPerMinute: null },
    eligibilityWindow: [],
    stats: {
      eligibilityPut: { total: 0, servedWithinLimit: 0, rateLimited: 0, peakPerMinute: 0 },
      faultsInjected: { '5xx': 0, '429': 0, timeout: 0, reset: 0, hang_after_apply: 0 },
    },
    counters: { cfOrderId: 3_100_000_000, cfPaymentId: 5_100_000_000, cfLinkId: 1_900_000, settlementId: 70_000_000, webhookId: 0 },
  };
}

/** ACTIVE orders past their expiry read EXPIRED. */
export function effectiveOrderStatus(order: OrderRecord, nowMs: number): OrderStatus {
  if (order.status === 'ACTIVE' && nowMs > Date.parse(order.order_expiry_time)) return 'EXPIRED';
  return order.status;
}

/** Empties the state in place: the state object stays the same, its maps are new, so always read them through it. */
export function resetState(state: SandboxState): void {
  Object.assign(state, createState());
}
