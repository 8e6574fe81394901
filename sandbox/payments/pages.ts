/** HTML of the sandbox's customer-facing pages: hosted checkout, bank/provider page, OTP page, result page, link page. */
import Decimal from 'decimal.js';
import type { OrderRecord, PaymentRecord } from '../state';
import type { CheckoutOptions, IssuerOption } from './checkout-options';
import type { StoredLink } from './links';
import type { TestPayer } from './tpv';

/** Test card prefilled on the checkout page (any card of valid shape works in the sandbox). */
export const TEST_CARD = { number: '4111111111111111', mm: '12', yy: '30', cvv: '123', holder: 'Test Customer' };

function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;max-width:56rem;margin:1rem auto;padding:0 1rem}table{border-collapse:collapse;margin:.5rem 0}
td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}fieldset{margin:1rem 0}.error{color:#b00;font-weight:bold}
.note{color:#555;font-size:.9em}</style></head>
<body><p class="note">Gateway sandbox: simulated pages for tests and demos.</p>
${body}</body></html>`;
}

function amountText(value: Decimal.Value): string {
  return `INR ${new Decimal(value).toFixed(2)}`;
}

/** One choice of a radio group named "option" (the checkout form's family|code|tenure value). */
function optionRadio(value: string, label: string): string {
  return `<label><input type="radio" name="option" value="${escapeHtml(value)}"> ${escapeHtml(label)}</label><br>`;
}

function phoneField(phone: string): string {
  return `<p>Phone <input name="phone" value="${escapeHtml(phone)}"></p>`;
}

function planTable(family: string, issuers: IssuerOption[]): string {
  return issuers.map((issuer) => `
<table data-testid="plans-${escapeHtml(family)}-${escapeHtml(issuer.code)}">
<caption>${escapeHtml(issuer.label)} (code "${escapeHtml(issuer.code)}")</caption>
<tr><th></th><th>Tenure (months)</th><th>Annual rate %</th><th>Type</th><th>Monthly instalment</th><th>Total</th></tr>
${issuer.plans.map((plan) => `<tr data-testid="plan-${escapeHtml(plan.value)}"><td><input type="radio" name="option" value="${escapeHtml(plan.value)}" aria-label="${escapeHtml(`${issuer.label} ${plan.tenure} months`)}"></td>
<td>${plan.tenure}</td><td>${escapeHtml(plan.annualRate)}</td><td>${escapeHtml(plan.type)}</td><td class="monthly">${escapeHtml(plan.monthly)}</td><td>${escapeHtml(plan.total)}</td></tr>`).join('\n')}
</table>`).join('\n');
}

function cardFields(withHolder: boolean): string {
  return `<p>Card number <input name="card_number" value="${TEST_CARD.number}"> Expiry <input name="card_expiry_mm" size="2" value="${TEST_CARD.mm}">/<input name="card_expiry_yy" size="2" value="${TEST_CARD.yy}">
CVV <input name="card_cvv" size="4" value="${TEST_CARD.cvv}">${withHolder ? ` Name on card <input name="card_holder_name" value="${TEST_CARD.holder}">` : ''}</p>`;
}

function form(sessionId: string, id: string, legend: string, inner: string, button: string): string {
  return `<form method="post" action="/pg/view/checkout/pay" data-testid="form-${id}"><fieldset><legend>${escapeHtml(legend)}</legend>
<input type="hidden" name="payment_session_id" value="${escapeHtml(sessionId)}">
${inner}
<button type="submit" data-testid="pay-${id}">${escapeHtml(button)}</button></fieldset></form>`;
}

/** The hosted checkout: every option the order is eligible for, each a form that starts the payment. */
export function checkoutPage(order: OrderRecord, options: CheckoutOptions, error: string | null): string {
  const sid = order.payment_session_id;
  const phoneInput = phoneField(order.customer.customer_phone);
  const parts: string[] = [];
  if (options.credit.length > 0) parts.push(form(sid, 'credit-emi', 'Credit card EMI', `${planTable('credit', options.credit)}${cardFields(false)}`, 'Pay by credit card EMI'));
  if (options.debit.length > 0) parts.push(form(sid, 'debit-emi', 'Debit card EMI (pre-approved)', `${planTable('debit', options.debit)}${cardFields(true)}${phoneInput}`, 'Pay by debit card EMI'));
  if (options.cardless.length > 0) {
    const plain = options.cardless.filter((p) => p.plans.length === 0).map((p) => optionRadio(`cardless|${p.code}`, `${p.label}${p.minAmount ? ` (from INR ${p.minAmount})` : ''}`)).join('\n');
    parts.push(form(sid, 'cardless-emi', 'Cardless EMI', `${plain}${planTable('cardless', options.cardless.filter((p) => p.plans.length > 0))}${phoneInput}`, 'Pay by cardless EMI'));
  }
  if (options.payLater.length > 0) {
    const radios = options.payLater.map((p) => optionRadio(p.value, `${p.label} ("${p.code}")`)).join('\n');
    parts.push(form(sid, 'paylater', 'Pay later', `${radios}${phoneInput}`, 'Pay later'));
  }
  if (options.upi) {
    parts.push(form(sid, 'upi-collect', 'UPI: collect request', '<input type="hidden" name="option" value="upi|collect"><p>UPI id <input name="upi_id" placeholder="name@bank"></p>', 'Send collect request'));
    parts.push(form(sid, 'upi-intent', 'UPI: pay with an app', '<input type="hidden" name="option" value="upi|link">', 'Pay with a UPI app'));
  }
  if (options.netbanking) {
    const code = order.customer.customer_bank_code === null ? '' : String(order.customer.customer_bank_code);
    parts.push(form(sid, 'netbanking', 'Net banking', `<input type="hidden" name="option" value="netbanking"><p>Bank code <input name="netbanking_bank_code" value="${escapeHtml(code)}"></p>`, 'Pay by net banking'));
  }
  return page(`Checkout: order ${order.order_id}`, `<h1>Pay ${escapeHtml(amountText(order.order_amount))}</h1>
<p>Order <span data-testid="order-id">${escapeHtml(order.order_id)}</span></p>
${error ? `<p class="error" data-testid="error">${escapeHtml(error)}</p>` : ''}
${parts.join('\n')}`);
}

/** The bank's, provider's or UPI app's page of a "link" payment: approve or decline (and, for TPV, the paying account). */
export function bankPage(order: OrderRecord, payment: PaymentRecord, summary: string, payers: TestPayer[] | null): string {
  const id = payment.cf_payment_id;
  const payerChoice = payers === null ? '' : `<p>Pay from account <select name="payer_account_number" data-testid="payer-account">
<option value="">default payer</option>
${payers.map((p) => `<option value="${escapeHtml(p.bank_account_number)}">${escapeHtml(p.bank_account_number)} (${escapeHtml(p.ifsc)}${p.bank_code ? `, bank ${p.bank_code}` : ''})</option>`).join('\n')}</select></p>`;
  return page(`Authorise payment ${id}`, `<h1>Authorise ${escapeHtml(amountText(payment.payment_amount))}</h1>
<p data-testid="summary">${escapeHtml(summary)}</p><p>Order ${escapeHtml(order.order_id)}, payment ${id}</p>
<form method="post" action="/_sandbox/pay/${id}">${payerChoice}
<button type="submit" name="outcome" value="approve" data-testid="approve">Approve payment</button>
<button type="submit" name="outcome" value="decline" data-testid="decline">Decline</button></form>`);
}

export function otpPage(payment: PaymentRecord, summary: string, testOtp: string): string {
  return page(`OTP for payment ${payment.cf_payment_id}`, `<h1>Enter the OTP</h1><p>${escapeHtml(summary)}</p>
<form method="post" action="/pg/view/checkout/otp/${payment.cf_payment_id}"><p>OTP <input name="otp" data-testid="otp"></p>
<p class="note">Sandbox test OTP: ${escapeHtml(testOtp)} (any other OTP fails the payment)</p>
<button type="submit" data-testid="submit-otp">Submit OTP</button></form>`);
}

export function resultPage(order: OrderRecord, orderStatus: string, payment: PaymentRecord): string {
  const back = order.order_meta.return_url;
  return page(`Payment ${payment.payment_status}`, `<h1>Payment <span data-testid="payment-status">${escapeHtml(payment.payment_status)}</span></h1>
<p data-testid="payment-message">${escapeHtml(payment.payment_message)}</p>
<p>Order ${escapeHtml(order.order_id)} is <span data-testid="order-status">${escapeHtml(orderStatus)}</span></p>
${back ? `<p><a href="${escapeHtml(back)}" data-testid="return">Return to the merchant</a></p>` : ''}`);
}

export function linkPage(link: StoredLink, status: string, error: string | null): string {
  const remaining = Decimal.max(0, new Decimal(link.link_amount).minus(link.link_amount_paid));
  const payable = status === 'ACTIVE' || status === 'PARTIALLY_PAID';
  const amountInput = link.link_partial_payments
    ? `<p>Amount <input name="amount" value="${remaining.toFixed(2)}" data-testid="amount"> (at least ${escapeHtml(new Decimal(link.link_minimum_partial_amount ?? 0).toFixed(2))})</p>`
    : '';
  return page(`Payment link ${link.link_id}`, `<h1>${escapeHtml(link.link_purpose)}</h1>
<p>Amount ${escapeHtml(amountText(link.link_amount))}, paid ${escapeHtml(amountText(link.link_amount_paid))}; status <span data-testid="link-status">${escapeHtml(status)}</span></p>
${error ? `<p class="error" data-testid="error">${escapeHtml(error)}</p>` : ''}
${payable ? `<form method="post" action="/pg/view/links/${link.cf_link_id}">${amountInput}<button type="submit" data-testid="pay-link">Pay</button></form>` : ''}`);
}
