/** The rules of `payment_method` in the sessions (orders pay) request: which methods, plans and customers are accepted. */
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';
import { fieldError } from '../http';
import { IST } from '../time';
import { amountOutsidePlan, plansForAmount, planFor, type Catalogue, type EmiIssuer, type EmiPlan } from './catalogue';

const METHOD_KEYS = ['emi', 'cardless_emi', 'paylater', 'upi', 'netbanking'] as const;
export type MethodKey = (typeof METHOD_KEYS)[number];

/** How the customer completes the payment: at a redirect page (action link) or by OTP at the authenticate endpoint (action post). */
export type Flow = 'redirect' | 'otp';

export interface ChosenMethod {
  key: MethodKey;
  /** `channel` of the response (2.5). */
  channel: 'link' | 'post' | 'collect';
  flow: Flow;
  /** payment_group of the payment record and webhooks. */
  group: string;
  /** The method as stored and shown in webhooks: card numbers masked, no CVV. */
  shown: Record<string, unknown>;
  /** One line for the bank/provider page, e.g. "credit card EMI with iss-01, 3 months at 16% a year". */
  summary: string;
  upiId?: string;
  netbankingBankCode?: number;
  phone?: string;
}

/** What the rules need to know besides the request. */
export interface MethodContext {
  catalogue: Catalogue;
  orderAmount: Decimal;
  tpvEnabled: boolean;
  nowMs: number;
  isPreApproved(phone: string): boolean;
  /** Whether the phone has paid successfully with this pay-later code before (PL-4's new vs repeat rule). */
  hasPaidWithPayLater(code: string, phone: string): boolean;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Digits of a phone, without a leading India country code: "+91 98765-43210" and 9876543210 are one customer. */
export function normalisePhone(value: string | number): string {
  const digits = String(value).replace(/\D/g, '');
  return digits.length === 12 && digits.startsWith('91') ? digits.slice(2) : digits;
}

/** The field's value, or the gateway's "missing" error when it is absent, null or empty. */
function given(obj: Json, field: string, at: string, hint: string): unknown {
  const value = obj[field];
  if (value === undefined || value === null || value === '') throw fieldError(`${at}.${field}`, 'missing', `is required. ${hint}`, '');
  return value;
}

/** A required string field; a `secret` one (card number, CVV) is never echoed in the error. */
function requiredString(obj: Json, field: string, at: string, hint: string, secret = false): string {
  const value = given(obj, field, at, hint);
  if (typeof value !== 'string') throw fieldError(`${at}.${field}`, 'invalid', `must be a string. ${hint}`, secret ? '***' : value);
  return value;
}

/** The catalogue entry of the code the customer sent; each error says why and lists the codes of the family. */
function chosenCode<T>(obj: Json, field: string, at: string, family: Map<string, T>, what: string, unknownWhy: (code: string) => string): T {
  const send = `Send ${what}, one of ${[...family.keys()].map((c) => `"${c}"`).join(', ')}`;
  const code = requiredString(obj, field, at, send);
  const entry = family.get(code);
  if (entry === undefined) throw fieldError(`${at}.${field}`, 'invalid', `${unknownWhy(code)}. ${send}`, code);
  return entry;
}

function phoneOf(obj: Json, at: string, allowNumber: boolean): string {
  const hint = allowNumber ? 'Send the customer\'s 10-digit mobile number' : 'Send the customer\'s 10-digit mobile number as a string';
  const value = given(obj, 'phone', at, hint);
  if (typeof value !== 'string' && !(allowNumber && typeof value === 'number')) throw fieldError(`${at}.phone`, 'invalid', `must be a string. ${hint}`, value);
  const phone = normalisePhone(value);
  if (!/^\d{10}$/.test(phone)) throw fieldError(`${at}.phone`, 'invalid', `is not a 10-digit mobile number. ${hint}`, value);
  return phone;
}

function channelOf(obj: Json, at: string, allowed: string[]): string {
  const list = allowed.map((c) => `"${c}"`).join(' or ');
  const value = given(obj, 'channel', at, `Send ${list}`);
  if (typeof value !== 'string' || !allowed.includes(value)) throw fieldError(`${at}.channel`, 'invalid', `must be ${list}`, value);
  return value;
}

function tenureOf(obj: Json, at: string, issuer: EmiIssuer): EmiPlan {
  const value = obj.emi_tenure;
  const offered = issuer.plans.map((p) => p.tenure).join(', ');
  if (value === undefined || value === null) throw fieldError(`${at}.emi_tenure`, 'missing', `is required. Send a tenure in months that "${issuer.code}" offers: ${offered}`, '');
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fieldError(`${at}.emi_tenure`, 'invalid', `must be an integer number of months. "${issuer.code}" offers ${offered}`, value);
  const plan = planFor(issuer, value);
  if (!plan) throw fieldError(`${at}.emi_tenure`, 'invalid', `tenure ${value} is not offered by "${issuer.code}" for ${issuer.cardType.toLowerCase()} EMI. Send one of ${offered}`, value);
  return plan;
}

function checkPlanAmount(at: string, issuer: EmiIssuer, plan: EmiPlan, ctx: MethodContext): void {
  const outside = amountOutsidePlan(issuer, plan, ctx.orderAmount);
  if (!outside) return;
  const eligible = plansForAmount(issuer, ctx.orderAmount).map((p) => p.tenure);
  const instead = eligible.length > 0 ? `Tenures of "${issuer.code}" open to this amount: ${eligible.join(', ')}` : `No tenure of "${issuer.code}" is open to this amount; choose another issuer or method`;
  throw fieldError(`${at}.emi_tenure`, 'invalid', `order amount ${ctx.orderAmount.toFixed()} is outside the plan: ${outside}. ${instead}`, plan.tenure);
}

function planSummary(issuer: EmiIssuer, plan: EmiPlan): string {
  return `${issuer.cardType.toLowerCase()} EMI with "${issuer.code}", ${plan.tenure} months at ${plan.annualRate}% a year (${plan.type})`;
}

/** Card fields of 2.4: digits, two-digit month and year strings, a CVV; the card must not have expired. */
function checkCard(emi: Json, at: string, nowMs: number): string {
  const number = requiredString(emi, 'card_number', at, 'Send the card number as a string of digits', true);
  if (!/^\d{12,19}$/.test(number)) throw fieldError(`${at}.card_number`, 'invalid', 'must be 12 to 19 digits with no spaces', `${'*'.repeat(Math.max(0, number.length - 4))}${number.slice(-4)}`);
  const mm = requiredString(emi, 'card_expiry_mm', at, 'Send the expiry month as a two-digit string, e.g. "07"');
  if (!/^(0[1-9]|1[0-2])$/.test(mm)) throw fieldError(`${at}.card_expiry_mm`, 'invalid', 'must be a two-digit month string "01" to "12"', mm);
  const yy = requiredString(emi, 'card_expiry_yy', at, 'Send the expiry year as a two-digit string, e.g. "29"');
  if (!/^\d{2}$/.test(yy)) throw fieldError(`${at}.card_expiry_yy`, 'invalid', 'must be a two-digit year string, e.g. "29"', yy);
  const cvv = requiredString(emi, 'card_cvv', at, 'Send the 3- or 4-digit CVV as a string', true);
  if (!/^\d{3,4}$/.test(cvv)) throw fieldError(`${at}.card_cvv`, 'invalid', 'must be 3 or 4 digits', '***');
  const now = DateTime.fromMillis(nowMs, { zone: IST });
  const expiry = DateTime.fromObject({ year: 2000 + Number(yy), month: Number(mm) }, { zone: IST }).endOf('month');
  if (expiry < now) throw fieldError(`${at}.card_expiry_yy`, 'invalid', `the card expired at the end of ${mm}/${yy}. Send a card that has not expired`, yy);
  return `${number.slice(0, 6)}${'X'.repeat(number.length - 10)}${number.slice(-4)}`;
}

function chooseEmi(emi: Json, ctx: MethodContext): ChosenMethod {
  const at = 'payment_method.emi';
  const channel = channelOf(emi, at, ['link', 'post']);
  const debit = channel === 'post';
  const family = debit ? ctx.catalogue.debit : ctx.catalogue.credit;
  const other = debit ? ctx.catalogue.credit : ctx.catalogue.debit;
  const maskedCard = checkCard(emi, at, ctx.nowMs);
  const issuer = chosenCode(emi, 'card_bank_name', at, family, `the exact ${debit ? 'debit' : 'credit'} card EMI issuer code`, (bank) => (other.has(bank)
    ? `"${bank}" offers ${debit ? 'credit' : 'debit'} card EMI only (channel "${debit ? 'link' : 'post'}")`
    : 'is not an exact issuer code (codes are lowercase and compared exactly)'));
  const plan = tenureOf(emi, at, issuer);
  checkPlanAmount(at, issuer, plan, ctx);
  const shown: Json = { channel, card_number: maskedCard, card_bank_name: issuer.code, emi_tenure: plan.tenure, emi_interest: Number(plan.annualRate), card_type: issuer.cardType.toLowerCase() };
  if (!debit) {
    return { key: 'emi', channel: 'link', flow: 'redirect', group: 'credit_card_emi', shown: { emi: shown }, summary: planSummary(issuer, plan) };
  }
  const holder = requiredString(emi, 'card_holder_name', at, 'Send the name printed on the debit card');
  const phone = phoneOf(emi, at, true);
  if (!ctx.isPreApproved(phone)) {
    throw fieldError(`${at}.phone`, 'invalid', `customer ${phone} is not pre-approved for debit card EMI. Use another method, or (sandbox) add the phone with PUT /_sandbox/pre-approved-phones`, emi.phone);
  }
  const emiShown = { ...shown, card_holder_name: holder, phone };
  // An issuer without native OTP (ISS-04) cannot take the OTP at the authenticate endpoint: its customer goes to the bank's page.
  if (!issuer.nativeOtp) {
    return { key: 'emi', channel: 'link', flow: 'redirect', group: 'debit_card_emi', shown: { emi: emiShown }, summary: `${planSummary(issuer, plan)}; authorised on the bank's page (no native OTP)`, phone };
  }
  return { key: 'emi', channel: 'post', flow: 'otp', group: 'debit_card_emi', shown: { emi: emiShown }, summary: planSummary(issuer, plan), phone };
}

function chooseCardless(cardless: Json, ctx: MethodContext): ChosenMethod {
  const at = 'payment_method.cardless_emi';
  const channel = channelOf(cardless, at, ['link']);
  const all = [...ctx.catalogue.cardlessProviders.keys(), ...ctx.catalogue.cardlessPlans.keys()].map((c) => `"${c}"`).join(', ');
  const providerCode = requiredString(cardless, 'provider', at, `Send a cardless EMI provider code, one of ${all}`);
  const phone = phoneOf(cardless, at, false);
  const provider = ctx.catalogue.cardlessProviders.get(providerCode);
  if (provider) {
    if (provider.minAmount !== null && ctx.orderAmount.lt(provider.minAmount)) {
      throw fieldError(`${at}.provider`, 'invalid', `order amount ${ctx.orderAmount.toFixed()} is below the minimum order amount ${provider.minAmount} of cardless EMI provider "${provider.code}". Choose another method`, providerCode);
    }
    return { key: 'cardless_emi', channel: 'link', flow: 'redirect', group: 'cardless_emi', shown: { cardless_emi: { channel, provider: provider.code, phone } }, summary: `cardless EMI with "${provider.code}"`, phone };
  }
  const issuer = ctx.catalogue.cardlessPlans.get(providerCode);
  if (!issuer) throw fieldError(`${at}.provider`, 'invalid', `is not a cardless EMI provider code. Send one of ${all}`, providerCode);
  let plan: EmiPlan;
  if (cardless.emi_tenure === undefined || cardless.emi_tenure === null) {
    // Without a tenure, the amount must fit at least one plan; the customer picks the tenure at the provider's page.
    const open = plansForAmount(issuer, ctx.orderAmount);
    if (open.length === 0) {
      const lowest = issuer.plans.reduce((a, b) => (new Decimal(a.minAmount).lte(b.minAmount) ? a : b));
      const reason = amountOutsidePlan(issuer, lowest, ctx.orderAmount) ?? `no plan of "${issuer.code}" is open to this amount`;
      throw fieldError(`${at}.provider`, 'invalid', `order amount ${ctx.orderAmount.toFixed()} fits no cardless plan of "${issuer.code}": ${reason}. Choose another provider or method`, providerCode);
    }
    plan = open[0];
  } else {
    plan = tenureOf(cardless, at, issuer);
    checkPlanAmount(at, issuer, plan, ctx);
  }
  return {
    key: 'cardless_emi', channel: 'link', flow: 'redirect', group: 'cardless_emi',
    shown: { cardless_emi: { channel, provider: issuer.code, phone, emi_tenure: plan.tenure } },
    summary: planSummary(issuer, plan), phone,
  };
}

function choosePayLater(paylater: Json, ctx: MethodContext): ChosenMethod {
  const at = 'payment_method.paylater';
  channelOf(paylater, at, ['link']);
  const provider = chosenCode(paylater, 'provider', at, ctx.catalogue.payLater, 'a pay-later provider code', () => 'is not a pay-later provider code');
  const phone = phoneOf(paylater, at, false);
  // PL-4 (2.6): a customer who has paid with it before authorises by OTP; a new one is redirected to sign up.
  const otp = provider.newCustomerRedirect && ctx.hasPaidWithPayLater(provider.code, phone);
  const channel = otp ? 'post' : 'link';
  const who = provider.newCustomerRedirect ? (otp ? ' (repeat customer: OTP)' : ' (new customer: redirect)') : '';
  return {
    key: 'paylater', channel, flow: otp ? 'otp' : 'redirect', group: 'pay_later',
    shown: { paylater: { channel, provider: provider.code, phone } }, summary: `pay later with "${provider.code}"${who}`, phone,
  };
}

function chooseUpi(upi: Json): ChosenMethod {
  const at = 'payment_method.upi';
  const channel = channelOf(upi, at, ['collect', 'link']);
  if (channel === 'link') {
    if (upi.upi_id !== undefined && upi.upi_id !== null) throw fieldError(`${at}.upi_id`, 'invalid', 'must be left out with channel "link" (UPI intent: the customer picks the app). Send channel "collect" to collect from a UPI id', upi.upi_id);
    return { key: 'upi', channel: 'link', flow: 'redirect', group: 'upi', shown: { upi: { channel: 'link' } }, summary: 'UPI intent (the customer pays from a UPI app)' };
  }
  const upiId = requiredString(upi, 'upi_id', at, 'Send the customer\'s UPI id, e.g. "name@bank", with channel "collect"');
  if (!/^[A-Za-z0-9._-]{2,256}@[A-Za-z][A-Za-z0-9.-]{1,64}$/.test(upiId)) throw fieldError(`${at}.upi_id`, 'invalid', 'is not a UPI id. Send one such as "name@bank"', upiId);
  return { key: 'upi', channel: 'collect', flow: 'redirect', group: 'upi', shown: { upi: { channel: 'collect', upi_id: upiId } }, summary: `UPI collect request to ${upiId}`, upiId };
}

function chooseNetbanking(nb: Json): ChosenMethod {
  const at = 'payment_method.netbanking';
  const channel = channelOf(nb, at, ['link']);
  const code = given(nb, 'netbanking_bank_code', at, 'Send the bank code as an integer');
  if (typeof code !== 'number' || !Number.isInteger(code) || code <= 0) throw fieldError(`${at}.netbanking_bank_code`, 'invalid', 'must be a positive integer bank code', code);
  return { key: 'netbanking', channel: 'link', flow: 'redirect', group: 'net_banking', shown: { netbanking: { channel, netbanking_bank_code: code } }, summary: `net banking with bank ${code}`, netbankingBankCode: code };
}

/** Validates `payment_method` (exactly one key) against the catalogue and the customer; throws the gateway's field error. */
export function choosePaymentMethod(paymentMethod: unknown, ctx: MethodContext): ChosenMethod {
  const keys = METHOD_KEYS.map((k) => `"${k}"`).join(', ');
  if (paymentMethod === undefined || paymentMethod === null) throw fieldError('payment_method', 'missing', `is required. Send an object with exactly one of ${keys}`, '');
  if (!isObject(paymentMethod)) throw fieldError('payment_method', 'invalid', `must be an object with exactly one of ${keys}`, paymentMethod);
  const present = Object.keys(paymentMethod);
  const unknown = present.filter((k) => !(METHOD_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) throw fieldError('payment_method', 'invalid', `key ${unknown.map((k) => `"${k}"`).join(', ')} is not supported here. Send exactly one of ${keys}`, present);
  if (present.length !== 1) throw fieldError('payment_method', 'invalid', `must hold exactly one method, ${present.length === 0 ? 'none' : present.length} given. Send exactly one of ${keys}`, present);
  const key = present[0] as MethodKey;
  const inner = paymentMethod[key];
  if (!isObject(inner)) throw fieldError(`payment_method.${key}`, 'invalid', 'must be an object (see the interface, section 2.4)', inner);
  if (ctx.tpvEnabled && key !== 'upi' && key !== 'netbanking') {
    // TPV verifies that the money comes from the customer's bank account (1.4): only UPI and net banking can show that.
    throw fieldError(`payment_method.${key}`, 'invalid', 'is not accepted while the bank account check (TPV) is enabled for this merchant: the paying bank account cannot be verified. Send "upi" or "netbanking"', key);
  }
  switch (key) {
    case 'emi': return chooseEmi(inner, ctx);
    case 'cardless_emi': return chooseCardless(inner, ctx);
    case 'paylater': return choosePayLater(inner, ctx);
    case 'upi': return chooseUpi(inner);
    case 'netbanking': return chooseNetbanking(inner);
  }
}
