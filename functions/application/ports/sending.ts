/** The ports a release is sent through: schedules, the release queue, the gateway's PUT and order lookup, the event bus. */
import type { Instant } from '../../domain/instant';
import type { GatewayAnswer, HoldbackEvent, ReleaseCommand, Attempt } from '../../domain/types';

/** One-time schedules that invoke the release handler (EventBridge Scheduler). */
export interface ReleaseScheduler {
  /** Creates a schedule named `command.releaseKey` firing at `at`; an existing one of that name is success. */
  schedule(command: ReleaseCommand, at: Instant): Promise<void>;
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
export type BeforePut = (attempt: number, at: Instant) => Promise<void>;

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
  fetchEligibility?(orderId: string, vendorId: string): Promise<Instant | null>;
}

export interface EventPublisher {
  publish(events: HoldbackEvent[]): Promise<void>;
  /**
   * Puts an order event on the bus with the marketplace's event source (the one Holdback's rule listens to), as if the
   * marketplace had sent it: the gateway webhook receiver turns a paid order into `order.paid` this way.
   */
  publishOrderEvent(detailType: string, detail: object): Promise<void>;
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
