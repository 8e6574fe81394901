/** Customer-facing routes: hosted checkout, the bank/provider redirect page, the checkout OTP page and the link page. */
import Decimal from 'decimal.js';
import { GatewayError, fieldError, type Router, type SandboxContext, type SandboxReply, type SandboxRequest } from '../http';
import { createOrder } from '../orders';
import { effectiveOrderStatus, type OrderRecord, type PaymentRecord } from '../state';
import { TEST_OTP, submitOtp } from './authenticate';
import type { Catalogue } from './catalogue';
import { checkoutOptions } from './checkout-options';
import { completePayment, extensionsOf, findPayment, orderOf } from './completion';
import { findLinkByCfId, linkStatus, type StoredLink } from './links';
import { bankPage, checkoutPage, linkPage, otpPage, resultPage } from './pages';
import { normalisePhone } from './payment-method';
import { orderOfSession, startPayment } from './payment-session';
import { chosenPayingAccount, listTestPayers } from './tpv';

const html = (status: number, text: string): SandboxReply => ({ status, text, contentType: 'text/html; charset=utf-8' });
const seeOther = (location: string): SandboxReply => ({ status: 303, headers: { location } });

/** Fields of an HTML form post (or of a JSON object, for scripted clients). */
function formFields(req: SandboxRequest): Record<string, string> {
  if (req.body !== undefined && req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body)) {
    return Object.fromEntries(Object.entries(req.body as Record<string, unknown>).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
  }
  return Object.fromEntries(new URLSearchParams(req.rawBody.toString('utf8')));
}

function wantsJson(req: SandboxRequest): boolean {
  return /json/i.test(req.header('content-type') ?? '') || (/application\/json/i.test(req.header('accept') ?? '') && !/text\/html/i.test(req.header('accept') ?? ''));
}

/** The checkout form's choice as the payment_method object of the sessions request (2.4). */
function paymentMethodFromForm(fields: Record<string, string>): Record<string, unknown> {
  const [family, code, tenure] = (fields.option ?? '').split('|');
  const card = { card_number: fields.card_number, card_expiry_mm: fields.card_expiry_mm, card_expiry_yy: fields.card_expiry_yy, card_cvv: fields.card_cvv, card_bank_name: code };
  const months = tenure === undefined ? undefined : Number(tenure);
  switch (family) {
    case 'credit': return { emi: { channel: 'link', ...card, emi_tenure: months } };
    case 'debit': return { emi: { channel: 'post', ...card, emi_tenure: months, card_holder_name: fields.card_holder_name, phone: fields.phone } };
    case 'cardless': return { cardless_emi: { channel: 'link', provider: code, phone: fields.phone, ...(months === undefined ? {} : { emi_tenure: months }) } };
    case 'paylater': return { paylater: { channel: 'link', provider: code, phone: fields.phone } };
    case 'upi': return { upi: code === 'collect' ? { channel: 'collect', upi_id: fields.upi_id } : { channel: 'link' } };
    case 'netbanking': {
      const bank = fields.netbanking_bank_code ?? '';
      return { netbanking: { channel: 'link', netbanking_bank_code: /^\d+$/.test(bank) ? Number(bank) : bank } };
    }
    default: throw fieldError('option', 'missing', 'choose one of the options on the page, then pay', fields.option ?? '');
  }
}

function showCheckout(ctx: SandboxContext, catalogue: Catalogue, order: OrderRecord, error: GatewayError | null): SandboxReply {
  const options = checkoutOptions(catalogue, {
    amount: new Decimal(order.order_amount),
    tpvEnabled: ctx.state.merchant.tpvEnabled,
    debitPreApproved: ctx.state.preApprovedPhones.has(normalisePhone(order.customer.customer_phone)),
    paymentMethods: order.order_meta.payment_methods,
  });
  return html(error ? error.status : 200, checkoutPage(order, options, error ? error.message : null));
}

function showResult(ctx: SandboxContext, req: SandboxRequest, payment: PaymentRecord): SandboxReply {
  const order = orderOf(ctx, payment);
  const orderStatus = effectiveOrderStatus(order, ctx.clock.nowMs());
  if (wantsJson(req)) {
    return { status: 200, body: { cf_payment_id: payment.cf_payment_id, payment_status: payment.payment_status, payment_message: payment.payment_message, order_id: order.order_id, order_status: orderStatus } };
  }
  return html(200, resultPage(order, orderStatus, payment));
}

/** Whether the bank/UPI-app page asks which account pays: UPI intent and net banking, checked under TPV. */
function choosesAccount(ctx: SandboxContext, payment: PaymentRecord): boolean {
  const ext = extensionsOf(payment);
  return ctx.state.merchant.tpvEnabled && (payment.payment_group === 'net_banking' || (payment.payment_group === 'upi' && !ext.upi_id));
}

function payFromLink(ctx: SandboxContext, link: StoredLink, fields: Record<string, string>): OrderRecord {
  const remaining = new Decimal(link.link_amount).minus(link.link_amount_paid);
  let amount = remaining;
  if (link.link_partial_payments && fields.amount !== undefined && fields.amount !== '') {
    if (!/^\d+(\.\d{1,2})?$/.test(fields.amount)) throw fieldError('amount', 'invalid', 'must be an amount with at most two decimals', fields.amount);
    amount = new Decimal(fields.amount);
    const minimum = new Decimal(link.link_minimum_partial_amount ?? '0.01');
    if (amount.gt(remaining)) throw fieldError('amount', 'invalid', `must not exceed the remaining ${remaining.toFixed(2)}`, fields.amount);
    if (amount.lt(minimum) && !amount.eq(remaining)) throw fieldError('amount', 'invalid', `must be at least the minimum partial amount ${minimum.toFixed(2)}`, fields.amount);
  }
  const p = link.payer;
  const order = createOrder(ctx, {
    order_id: `link_${link.cf_link_id}_${link.order_ids.length + 1}`,
    order_amount: amount.toNumber(),
    order_currency: link.link_currency,
    customer_details: {
      customer_id: `link_${link.cf_link_id}`,
      customer_phone: p.customer_phone,
      ...(p.customer_email ? { customer_email: p.customer_email } : {}),
      ...(p.customer_name ? { customer_name: p.customer_name } : {}),
      ...(p.customer_bank_account_number ? { customer_bank_account_number: p.customer_bank_account_number } : {}),
      ...(p.customer_bank_ifsc ? { customer_bank_ifsc: p.customer_bank_ifsc } : {}),
      ...(p.customer_bank_code !== null ? { customer_bank_code: p.customer_bank_code } : {}),
    },
    order_meta: {
      ...(link.link_meta.notify_url ? { notify_url: link.link_meta.notify_url } : {}),
      ...(link.link_meta.return_url ? { return_url: link.link_meta.return_url } : {}),
      ...(link.link_meta.payment_methods ? { payment_methods: link.link_meta.payment_methods } : {}),
    },
  });
  order.extensions.link_id = link.link_id;
  link.order_ids.push(order.order_id);
  return order;
}

export function checkoutUrl(ctx: SandboxContext, order: OrderRecord): string {
  return `${ctx.config.baseUrl}/pg/view/checkout?payment_session_id=${encodeURIComponent(order.payment_session_id)}`;
}

export function registerCheckout(router: Router, ctx: SandboxContext, catalogue: Catalogue): void {
  router.get('/pg/view/checkout', (req) => showCheckout(ctx, catalogue, orderOfSession(ctx, req.query.get('payment_session_id') ?? undefined), null));

  router.post('/pg/view/checkout/pay', (req) => {
    const fields = formFields(req);
    const order = orderOfSession(ctx, fields.payment_session_id);
    try {
      const { payment, response } = startPayment(ctx, catalogue, { payment_session_id: fields.payment_session_id, payment_method: paymentMethodFromForm(fields) });
      if (response.action === 'link') return seeOther(response.data.url);
      return html(200, otpPage(payment, extensionsOf(payment).summary, TEST_OTP));
    } catch (error) {
      if (error instanceof GatewayError && error.status < 500) return showCheckout(ctx, catalogue, order, error);
      throw error;
    }
  });

  router.post('/pg/view/checkout/otp/:cf_payment_id', (req) => {
    const payment = findPayment(ctx, req.params.cf_payment_id);
    submitOtp(ctx, payment, { action: 'SUBMIT_OTP', otp: formFields(req).otp });
    return showResult(ctx, req, payment);
  });

  router.get('/_sandbox/pay/:cf_payment_id', (req) => {
    const payment = findPayment(ctx, req.params.cf_payment_id);
    const order = orderOf(ctx, payment);
    if (payment.payment_status !== 'PENDING' || extensionsOf(payment).flow !== 'redirect') return showResult(ctx, req, payment);
    return html(200, bankPage(order, payment, extensionsOf(payment).summary, choosesAccount(ctx, payment) ? listTestPayers(ctx.state) : null));
  });

  router.post('/_sandbox/pay/:cf_payment_id', (req) => {
    const payment = findPayment(ctx, req.params.cf_payment_id);
    const fields = formFields(req);
    if (extensionsOf(payment).flow !== 'redirect') {
      throw new GatewayError(400, 'payment_otp_required', `cf_payment_id: payment ${payment.cf_payment_id} is authorised by OTP at /pg/orders/pay/authenticate/${payment.cf_payment_id}, not on a redirect page. Value received: ${payment.cf_payment_id}`);
    }
    const outcome = fields.outcome;
    if (outcome !== 'approve' && outcome !== 'decline') throw fieldError('outcome', 'invalid', 'must be "approve" or "decline"', outcome ?? '');
    const ext = extensionsOf(payment);
    const payingAccount = choosesAccount(ctx, payment)
      ? chosenPayingAccount(ctx.state, orderOf(ctx, payment), fields.payer_account_number || null, ext.netbanking_bank_code ?? null)
      : undefined;
    completePayment(ctx, payment, outcome === 'approve' ? { approved: true, payingAccount } : { approved: false, reason: 'Payment declined by the customer' });
    return showResult(ctx, req, payment);
  });

  router.get('/pg/view/links/:cf_link_id', (req) => {
    const link = findLinkByCfId(ctx, req.params.cf_link_id);
    return html(200, linkPage(link, linkStatus(link, ctx.clock.nowMs()), null));
  });

  router.post('/pg/view/links/:cf_link_id', (req) => {
    const link = findLinkByCfId(ctx, req.params.cf_link_id);
    const status = linkStatus(link, ctx.clock.nowMs());
    if (status !== 'ACTIVE' && status !== 'PARTIALLY_PAID') return html(400, linkPage(link, status, `This link is ${status} and cannot be paid`));
    try {
      const order = payFromLink(ctx, link, formFields(req));
      if (wantsJson(req)) return { status: 200, body: { order_id: order.order_id, payment_session_id: order.payment_session_id, checkout_url: checkoutUrl(ctx, order) } };
      return seeOther(checkoutUrl(ctx, order));
    } catch (error) {
      if (error instanceof GatewayError && error.status < 500 && !wantsJson(req)) return html(error.status, linkPage(link, status, error.message));
      throw error;
    }
  });
}
