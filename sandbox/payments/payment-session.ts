/** POST /pg/orders/sessions (4.2): starts a payment for a payment_session_id and answers how to complete it (2.5). */
import Decimal from 'decimal.js';
import { fieldError, GatewayError, type SandboxContext } from '../http';
import { newPaymentRecord } from '../settlement';
import { effectiveOrderStatus, type OrderRecord, type PaymentRecord } from '../state';
import { isoIst } from '../time';
import type { Catalogue } from './catalogue';
import type { PaymentExtensions } from './completion';
import { choosePaymentMethod, normalisePhone, type ChosenMethod } from './payment-method';

export interface SessionResponse {
  payment_method: string;
  channel: string;
  action: 'link' | 'post';
  data: { url: string; payload: null; content_type: string | null; method: string | null };
  cf_payment_id: number;
  payment_amount: number;
}

/** The redirect page where the customer completes a "link" payment (the bank's, provider's or UPI app's page). */
function redirectPageUrl(ctx: SandboxContext, cfPaymentId: number): string {
  return `${ctx.config.baseUrl}/_sandbox/pay/${cfPaymentId}`;
}

function authenticateUrl(ctx: SandboxContext, cfPaymentId: number): string {
  return `${ctx.config.baseUrl}/pg/orders/pay/authenticate/${cfPaymentId}`;
}

/** The order of a payment session, or the gateway's error. */
export function orderOfSession(ctx: SandboxContext, sessionId: unknown): OrderRecord {
  if (sessionId === undefined || sessionId === null || sessionId === '') {
    throw fieldError('payment_session_id', 'missing', 'is required. Send the payment_session_id from the order creation response', '');
  }
  if (typeof sessionId !== 'string') throw fieldError('payment_session_id', 'invalid', 'must be a string from the order creation response', sessionId);
  const orderId = ctx.state.sessions.get(sessionId);
  const order = orderId === undefined ? undefined : ctx.state.orders.get(orderId);
  if (order) return order;
  // Only the start of the token is echoed: it authorises payments of the order.
  throw new GatewayError(404, 'payment_session_id_invalid', `payment_session_id: no order has this payment session. Send the payment_session_id from the order creation response. Value received: ${sessionId.slice(0, 16)}…`);
}

function hasPaidWithPayLater(ctx: SandboxContext, code: string, phone: string): boolean {
  for (const payment of ctx.state.payments.values()) {
    if (payment.payment_status !== 'SUCCESS' || payment.payment_group !== 'pay_later') continue;
    const paylater = payment.payment_method.paylater as { provider?: string; phone?: string } | undefined;
    if (paylater?.provider === code && paylater.phone !== undefined && normalisePhone(paylater.phone) === phone) return true;
  }
  return false;
}

/** Checks the request, records a PENDING payment and answers with the action to take. */
export function startPayment(ctx: SandboxContext, catalogue: Catalogue, body: Record<string, unknown>): { payment: PaymentRecord; response: SessionResponse } {
  const order = orderOfSession(ctx, body.payment_session_id);
  const status = effectiveOrderStatus(order, ctx.clock.nowMs());
  if (status !== 'ACTIVE') {
    throw new GatewayError(400, 'order_not_payable', `payment_session_id: order ${order.order_id} is ${status} and cannot be paid. Create a new order. Value received: ${order.order_id}`);
  }
  const tpv = ctx.state.merchant.tpvEnabled;
  const chosen: ChosenMethod = choosePaymentMethod(body.payment_method, {
    catalogue,
    orderAmount: new Decimal(order.order_amount),
    tpvEnabled: tpv,
    nowMs: ctx.clock.nowMs(),
    isPreApproved: (phone) => ctx.state.preApprovedPhones.has(phone),
    hasPaidWithPayLater: (code, phone) => hasPaidWithPayLater(ctx, code, phone),
  });
  if (tpv && chosen.key === 'netbanking' && order.customer.customer_bank_code === null) {
    throw fieldError('payment_method.netbanking', 'invalid', `bank account verification (TPV) of a net banking payment needs the bank code: order ${order.order_id} was created without customer_details.customer_bank_code. Create the order with it`, chosen.netbankingBankCode);
  }
  const now = isoIst(ctx.clock.nowMs());
  const extensions: PaymentExtensions = { flow: chosen.flow, channel: chosen.channel, summary: chosen.summary, initiated_at: now };
  if (chosen.upiId) extensions.upi_id = chosen.upiId;
  if (chosen.netbankingBankCode !== undefined) extensions.netbanking_bank_code = chosen.netbankingBankCode;
  if (chosen.phone) extensions.phone = chosen.phone;
  const payment = newPaymentRecord(ctx, order, {
    payment_status: 'PENDING',
    payment_message: chosen.flow === 'otp' ? 'Waiting for the OTP' : 'Waiting for the customer',
    payment_time: now,
    payment_completion_time: null,
    payment_group: chosen.group,
    payment_method: chosen.shown,
    bank_reference: null,
    extensions: extensions as unknown as Record<string, unknown>,
  });
  ctx.state.payments.set(payment.cf_payment_id, payment);
  order.payments.push(payment.cf_payment_id);
  const otp = chosen.flow === 'otp';
  return {
    payment,
    response: {
      payment_method: chosen.key,
      channel: chosen.channel,
      action: otp ? 'post' : 'link',
      data: {
        url: otp ? authenticateUrl(ctx, payment.cf_payment_id) : redirectPageUrl(ctx, payment.cf_payment_id),
        payload: null,
        content_type: otp ? 'application/json' : null,
        method: otp ? 'post' : null,
      },
      cf_payment_id: payment.cf_payment_id,
      payment_amount: Number(order.order_amount),
    },
  };
}
