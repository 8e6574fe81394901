/**
 * Shapes of the API's answers that both the server and the browser console read (contract sections 6.1 to 6.4): types
 * only, importing nothing, so that the console's browser build and its type check take them as they are.
 */

/** One signed checkpoint as `GET /audit/checkpoints` lists it: what it signs and its hash, not every stream head. */
export interface CheckpointSummary {
  number: number;
  at: string;
  coveredUntil: string;
  hash: string;
  previousHash: string;
  root: string | null;
  keyId: string;
  algorithm: string;
  streams: number;
}

/** One day of an exposure forecast: the exposure left at the end of the day, and what closes that day (decimal text). */
export interface ExposureForecastDay {
  date: string;
  amount: string;
  closing: string;
}

/** One currency of a vendor's exposure as GET /vendors shows it. */
export interface VendorExposure {
  currency: string;
  /** Exposure now: decimal text in `currency`. */
  amount: string;
  /** Early releases whose risk window is still open. */
  count: number;
  /** The policy's maxExposure in this currency (null: no cap). */
  maxExposure: string | null;
  /** How much the exposure is above the cap (a cap lowered below today's exposure stops every new early release); null when within it. */
  exceededBy: string | null;
  /** When the next risk window closes (null: none open). */
  nextCloseAt: string | null;
  /** Per day (settings zone) until the last risk window closes: the exposure left at the end of the day, and what closes that day. */
  forecast: ExposureForecastDay[];
}

/** One entry of an order's timeline (GET /orders/{orderId}/timeline). */
export interface TimelineItem {
  /** In the settings' timezone. */
  at: string;
  /** `event_received`, or the audit record's kind (`planned`, `gateway_attempt`, `webhook_received`, `manual_release`...). */
  kind: string;
  vendorId?: string;
  actor?: string;
  /** Who proved to be the actor (contract 6.4): an IAM principal ARN on AWS, `local:unauthenticated` locally. */
  principal?: string;
  detail: Record<string, unknown>;
  /** The audit record's place in the order's stream; absent for a received event (kept with the order, not the log). */
  sequence?: number;
}
