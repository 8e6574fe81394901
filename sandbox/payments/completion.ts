/** Ends a pending payment: success (order PAID, settlement armed, webhook) or failure (order stays ACTIVE, webhook). */
import Decimal from 'decimal.js';
import { GatewayError, type SandboxContext } from '../http';
import { markOrderPaid, sendPaymentWebhook } from '../settlement';
import { effectiveOrderStatus, type OrderRecord, type PaymentRecord } from '../state';
import { isoIst } from '../time';
import { accountOfUpiId, tpvMismatch, type BankAccount } from './tpv';

/** What a payment record keeps besides the core's fields (in `extensions`). */
export interface PaymentExtensions {
  flow: 'redirect' | 'otp';
  channel: string;
  summary: string;
  initiated_at: string;
  upi_id?: string;
  netbanking_bank_code?: number;
  phone?: string;
}

export function extensionsOf(payment: PaymentRecord): PaymentExtensions {
  return payment.extensions as unknown as PaymentExtensions;
}

export interface Outcome {
  approved: boolean;
  /** Why the customer or bank declined (when not approved). */
  reason?: string;
  /** The account chosen on the bank/UPI-app page (UPI intent, net banking); UPI collect uses the UPI id's account. */
  payingAccount?: BankAccount | null;
}

/** The payment by its id or 404; ids in paths are digits only. */
export function findPayment(ctx: SandboxContext, cfPaymentId: string): PaymentRecord {
  if (!/^\d{1,18}$/.test(cfPaymentId)) throw new GatewayError(400, 'cf_payment_id_invalid', `cf_payment_id: must be the integer id from the payment response. Value received: ${cfPaymentId.slice(0, 40)}`);
  const payment = ctx.state.payments.get(Number(cfPaymentId));
  if (!payment) throw new GatewayError(404, 'payment_not_found', `cf_payment_id: no payment with this id. Value received: ${cfPaymentId}`);
  return payment;
}

export function orderOf(ctx: SandboxContext, payment: PaymentRecord): OrderRecord {
  const order = ctx.state.orders.get(payment.order_id);
  if (!order) throw new GatewayError(404, 'order_not_found', `order_id: the order of payment ${payment.cf_payment_id} no longer exists (was the sandbox reset?). Value received: ${payment.order_id}`);
  return order;
}

/** The TPV failure of this payment, or null (no TPV, or a method that is not account-checked, or the right account). */
function tpvFailure(ctx: SandboxContext, order: OrderRecord, payment: PaymentRecord, outcome: Outcome): string | null {
  if (!ctx.state.merchant.tpvEnabled) return null;
  const ext = extensionsOf(payment);
  if (payment.payment_group === 'upi' && ext.upi_id) return tpvMismatch(order, accountOfUpiId(ctx.state, ext.upi_id, order), null);
  if (payment.payment_group === 'upi') return tpvMismatch(order, outcome.payingAccount ?? null, null);
  if (payment.payment_group === 'net_banking') return tpvMismatch(order, outcome.payingAccount ?? null, ext.netbanking_bank_code ?? null);
  return null;
}

function fail(ctx: SandboxContext, order: OrderRecord, payment: PaymentRecord, message: string): PaymentRecord {
  payment.payment_status = 'FAILED';
  payment.payment_message = message;
  payment.payment_completion_time = isoIst(ctx.clock.nowMs());
  ctx.config.log(`payment ${payment.cf_payment_id} of order ${order.order_id} failed: ${message}`);
  sendPaymentWebhook(ctx, order, payment, 'PAYMENT_FAILED_WEBHOOK');
  return payment;
}

/** Link orders: the paid amount is added to the link (a full payment makes it PAID). */
function creditLink(ctx: SandboxContext, order: OrderRecord, payment: PaymentRecord): void {
  const linkId = order.extensions.link_id;
  if (typeof linkId !== 'string') return;
  const link = ctx.state.links.get(linkId);
  if (!link) return;
  const paid = new Decimal(String(link.link_amount_paid ?? 0)).plus(payment.payment_amount);
  link.link_amount_paid = paid.toNumber();
  link.link_status = paid.gte(String(link.link_amount)) ? 'PAID' : 'PARTIALLY_PAID';
}

/**
 * Completes a PENDING payment. Success needs an ACTIVE order and, with TPV, the customer's own account; a failure
 * leaves the order ACTIVE (section 3). Either way the payment webhook goes to order_meta.notify_url.
 */
export function completePayment(ctx: SandboxContext, payment: PaymentRecord, outcome: Outcome): PaymentRecord {
  if (payment.payment_status !== 'PENDING') {
    throw new GatewayError(400, 'payment_not_pending', `cf_payment_id: payment is already ${payment.payment_status} and cannot be completed again. Start a new payment with POST /pg/orders/sessions. Value received: ${payment.cf_payment_id}`);
  }
  const order = orderOf(ctx, payment);
  if (!outcome.approved) return fail(ctx, order, payment, outcome.reason ?? 'Payment declined by the customer');
  const status = effectiveOrderStatus(order, ctx.clock.nowMs());
  if (status !== 'ACTIVE') return fail(ctx, order, payment, `Order is ${status}; this payment was not taken`);
  const mismatch = tpvFailure(ctx, order, payment, outcome);
  if (mismatch) return fail(ctx, order, payment, `Bank account verification (TPV) failed: ${mismatch}`);
  const now = isoIst(ctx.clock.nowMs());
  // The transaction time of deferred settlement is when the money moved, so payment_time is the completion time.
  payment.payment_time = now;
  payment.payment_completion_time = now;
  payment.payment_message = 'Transaction successful';
  payment.bank_reference = String(100_000_000 + (payment.cf_payment_id % 900_000_000));
  markOrderPaid(ctx, order, payment);
  creditLink(ctx, order, payment);
  return payment;
}
