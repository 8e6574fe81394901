/** Orders (POST/GET /pg/orders) with the gateway's validation, and the sandbox control that pays an order. */
import { randomBytes } from 'node:crypto';
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';
import { requirePgAccess } from './auth';
import { GatewayError, fieldError, jsonReply, objectBody, type Router, type SandboxContext, type SandboxRouteModule } from './http';
import { markOrderPaid, newPaymentRecord } from './settlement';
import { effectiveOrderStatus, type CustomerRecord, type OrderRecord, type OrderSplit } from './state';
import { webhookAddress } from './notify-address';
import { IST, isoIst, parseIsoWithOffset } from './time';

export const ORDER_ID_PATTERN = /^[A-Za-z0-9_-]{3,45}$/;
const CUSTOMER_ID_PATTERN = /^[A-Za-z0-9_-]{1,50}$/;
/** Contact and bank-account shapes shared by orders, links and vendors. */
export const PHONE_PATTERN = /^\+?[0-9]{8,15}$/;
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const IFSC_PATTERN = /^[A-Z]{4}0[A-Z0-9]{6}$/;
export const ACCOUNT_PATTERN = /^[A-Za-z0-9]{6,20}$/;
const DEFAULT_EXPIRY_DAYS = 30;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown): boolean => v !== undefined && v !== null;

function randomToken(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(length), (b) => alphabet[b % alphabet.length]).join('');
}

/** A positive amount of at most two decimals (a JSON number), as decimal text. */
export function parseAmount(field: string, value: unknown): Decimal {
  if (!present(value)) throw fieldError(field, 'missing', 'is required. Send a positive amount with at most two decimals', value);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw fieldError(field, 'invalid', 'must be a number. Send a positive amount with at most two decimals, e.g. 10.15', value);
  }
  const amount = new Decimal(String(value));
  if (amount.lte(0) || amount.decimalPlaces() > 2) {
    throw fieldError(field, 'invalid', 'must be greater than zero with at most two decimals. Send e.g. 10.15', value);
  }
  return amount;
}

function optionalText(field: string, value: unknown, max: number, min = 0): string | null {
  if (!present(value)) return null;
  if (typeof value !== 'string' || value.length < min || value.length > max) {
    throw fieldError(field, 'invalid', `must be a string of ${min} to ${max} characters`, value);
  }
  return value;
}

/** An optional absolute http(s) URL (notify and return addresses), or null when absent. */
export function optionalUrl(field: string, value: unknown): string | null {
  const text = optionalText(field, value, 2000);
  return text === null ? null : webhookAddress(field, text, 'must be an absolute http(s) URL');
}

/** The customer fields an order and a payment link check alike: phone, e-mail, name and the TPV bank account. */
export type CustomerContact = Pick<CustomerRecord, 'customer_phone' | 'customer_email' | 'customer_name' | 'customer_bank_account_number' | 'customer_bank_ifsc'>;

/**
 * Validates those fields of a customer_details object (errors name `customer_details.<field>`); under TPV the
 * account number and IFSC are required. customer_id and customer_bank_code are left to the caller: an order requires
 * the id and takes the bank code as an integer, a link takes it as a string (interface 2.2).
 */
export function parseCustomerContact(value: Record<string, unknown>, tpv: boolean): CustomerContact {
  const f = (name: string): string => `customer_details.${name}`;
  const phone = value.customer_phone;
  if (!present(phone)) throw fieldError(f('customer_phone'), 'missing', 'is required. Send the customer phone number, e.g. 9999999999', phone);
  if (typeof phone !== 'string' || !PHONE_PATTERN.test(phone)) {
    throw fieldError(f('customer_phone'), 'invalid', 'must be a phone number of 8 to 15 digits (an optional leading +)', phone);
  }
  const email = optionalText(f('customer_email'), value.customer_email, 100);
  if (email !== null && !EMAIL_PATTERN.test(email)) throw fieldError(f('customer_email'), 'invalid', 'must be an e-mail address like name@example.com', email);
  const name = optionalText(f('customer_name'), value.customer_name, 100);

  const account = value.customer_bank_account_number;
  const ifsc = value.customer_bank_ifsc;
  if (tpv && !present(account)) {
    throw fieldError(f('customer_bank_account_number'), 'missing', 'is required for bank account verification (TPV). Send the customer account number', account);
  }
  if (tpv && !present(ifsc)) {
    throw fieldError(f('customer_bank_ifsc'), 'missing', 'is required for bank account verification (TPV). Send the branch IFSC, e.g. SBIN0001234', ifsc);
  }
  if (present(account) && (typeof account !== 'string' || !ACCOUNT_PATTERN.test(account))) {
    throw fieldError(f('customer_bank_account_number'), 'invalid', 'must be 6 to 20 letters or digits', account);
  }
  if (present(ifsc) && (typeof ifsc !== 'string' || !IFSC_PATTERN.test(ifsc))) {
    throw fieldError(f('customer_bank_ifsc'), 'invalid', 'must be 11 characters: four capital letters, a zero, then six letters or digits, e.g. SBIN0001234', ifsc);
  }
  return {
    customer_name: name,
    customer_email: email,
    customer_phone: phone,
    customer_bank_account_number: (account as string | undefined) ?? null,
    customer_bank_ifsc: (ifsc as string | undefined) ?? null,
  };
}

function parseCustomer(value: unknown, tpv: boolean): CustomerRecord {
  if (!present(value)) throw fieldError('customer_details', 'missing', 'is required. Send customer_id and customer_phone at least', value);
  if (!isObject(value)) throw fieldError('customer_details', 'invalid', 'must be an object with customer_id and customer_phone', value);
  const id = value.customer_id;
  if (!present(id)) throw fieldError('customer_details.customer_id', 'missing', 'is required. Send your id of the customer', id);
  if (typeof id !== 'string' || !CUSTOMER_ID_PATTERN.test(id)) {
    throw fieldError('customer_details.customer_id', 'invalid', 'must be 1 to 50 characters of letters, digits, _ or -', id);
  }
  const contact = parseCustomerContact(value, tpv);
  const code = value.customer_bank_code;
  if (present(code) && (typeof code !== 'number' || !Number.isInteger(code) || code <= 0)) {
    throw fieldError('customer_details.customer_bank_code', 'invalid', 'must be a positive integer bank code, e.g. 3044', code);
  }
  return { customer_id: id, ...contact, customer_bank_code: (code as number | undefined) ?? null };
}

function splitsError(index: number, reason: string, value: unknown): GatewayError {
  return new GatewayError(400, 'order_splits_invalid', `order_splits[${index}]: ${reason}. Value received: ${JSON.stringify(value)}`);
}

/** Static split: existing ACTIVE vendors, each once, all by amount (sum ≤ order) or all by percentage (sum ≤ 100). */
function parseSplits(ctx: SandboxContext, value: unknown, orderAmount: Decimal): OrderSplit[] {
  if (!present(value)) return [];
  if (!Array.isArray(value)) throw fieldError('order_splits', 'invalid', 'must be an array of {vendor_id, amount | percentage}', value);
  const seen = new Set<string>();
  let byAmount: boolean | null = null;
  let total = new Decimal(0);
  const splits = value.map((entry, i): OrderSplit => {
    if (!isObject(entry)) throw splitsError(i, 'must be an object {vendor_id, amount | percentage}', entry);
    const vendorId = entry.vendor_id;
    if (typeof vendorId !== 'string' || vendorId === '') throw splitsError(i, 'vendor_id is required', entry);
    const vendor = ctx.state.vendors.get(vendorId);
    if (!vendor) throw splitsError(i, `vendor ${vendorId} does not exist. Create it with POST /pg/easy-split/vendors first`, entry);
    if (vendor.status !== 'ACTIVE') throw splitsError(i, `vendor ${vendorId} is ${vendor.status}, only ACTIVE vendors can receive splits`, entry);
    if (seen.has(vendorId)) throw splitsError(i, `vendor ${vendorId} appears twice. Send one entry per vendor`, entry);
    seen.add(vendorId);
    const hasAmount = present(entry.amount);
    if (hasAmount === present(entry.percentage)) throw splitsError(i, 'send exactly one of amount and percentage', entry);
    if (byAmount !== null && byAmount !== hasAmount) throw splitsError(i, 'all entries must split by amount, or all by percentage', entry);
    byAmount = hasAmount;
    const share = parseAmount(`order_splits[${i}].${hasAmount ? 'amount' : 'percentage'}`, hasAmount ? entry.amount : entry.percentage);
    total = total.plus(share);
    return hasAmount ? { vendor_id: vendorId, amount: share.toNumber() } : { vendor_id: vendorId, percentage: share.toNumber() };
  });
  if (byAmount === true && total.gt(orderAmount)) {
    throw fieldError('order_splits', 'invalid', `split amounts add up to ${total.toFixed(2)}, more than the order amount ${orderAmount.toFixed(2)}`, value);
  }
  if (byAmount === false && total.gt(100)) {
    throw fieldError('order_splits', 'invalid', `split percentages add up to ${total.toString()}, more than 100`, value);
  }
  return splits;
}

function parseTags(value: unknown): Record<string, string> | null {
  if (!present(value)) return null;
  if (!isObject(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw fieldError('order_tags', 'invalid', 'must be an object of string values', value);
  }
  return value as Record<string, string>;
}

function parseMeta(value: unknown): OrderRecord['order_meta'] {
  if (!present(value)) return { return_url: null, notify_url: null, payment_methods: null };
  if (!isObject(value)) throw fieldError('order_meta', 'invalid', 'must be an object {return_url, notify_url, payment_methods}', value);
  return {
    return_url: optionalUrl('order_meta.return_url', value.return_url),
    notify_url: optionalUrl('order_meta.notify_url', value.notify_url),
    payment_methods: optionalText('order_meta.payment_methods', value.payment_methods, 500),
  };
}

/** Validates a create-order body and stores the order (POST /pg/orders; payment links' checkout reuses it). */
export function createOrder(ctx: SandboxContext, body: Record<string, unknown>): OrderRecord {
  const now = ctx.clock.nowMs();
  let orderId = body.order_id;
  if (!present(orderId)) orderId = `order_${randomToken(30)}`;
  if (typeof orderId !== 'string' || !ORDER_ID_PATTERN.test(orderId)) {
    throw fieldError('order_id', 'invalid', 'must be 3 to 45 characters of letters, digits, _ or -', orderId);
  }
  const amount = parseAmount('order_amount', body.order_amount);
  const currency = body.order_currency;
  if (!present(currency)) throw fieldError('order_currency', 'missing', 'is required. Send INR', currency);
  if (currency !== 'INR') throw fieldError('order_currency', 'invalid', 'only INR is enabled. Send INR', currency);
  const customer = parseCustomer(body.customer_details, ctx.state.merchant.tpvEnabled);
  const splits = parseSplits(ctx, body.order_splits, amount);
  const meta = parseMeta(body.order_meta);
  const note = optionalText('order_note', body.order_note, 200, 3);
  const tags = parseTags(body.order_tags);
  let expiry = DateTime.fromMillis(now, { zone: IST }).plus({ days: DEFAULT_EXPIRY_DAYS }).toMillis();
  if (present(body.order_expiry_time)) {
    const given = parseIsoWithOffset(body.order_expiry_time);
    if (given === null) throw fieldError('order_expiry_time', 'invalid', 'must be an ISO 8601 time with an offset, e.g. 2021-07-02T10:20:12+05:30', body.order_expiry_time);
    if (given <= now) throw fieldError('order_expiry_time', 'invalid', 'must be in the future', body.order_expiry_time);
    expiry = given;
  }
  if (ctx.state.orders.has(orderId)) {
    throw new GatewayError(409, 'order_already_exists', `order_id: an order with this id already exists. Send a new order_id. Value received: ${orderId}`);
  }
  const order: OrderRecord = {
    cf_order_id: ++ctx.state.counters.cfOrderId,
    order_id: orderId,
    order_amount: amount.toFixed(2),
    order_currency: 'INR',
    customer,
    order_meta: meta,
    order_note: note,
    order_tags: tags,
    order_splits: splits,
    order_expiry_time: isoIst(expiry),
    created_at: isoIst(now),
    payment_session_id: `session_${randomToken(96)}`,
    status: 'ACTIVE',
    payments: [],
    payment_time: null,
    extensions: {},
  };
  ctx.state.orders.set(orderId, order);
  ctx.state.sessions.set(order.payment_session_id, orderId);
  return order;
}

/** The order as the gateway shows it (2022-09-01 OrdersEntity): bank fields are never echoed. */
function orderResponse(ctx: SandboxContext, order: OrderRecord): Record<string, unknown> {
  const base = `${ctx.config.baseUrl}/pg/orders/${encodeURIComponent(order.order_id)}`;
  return {
    cf_order_id: order.cf_order_id,
    created_at: order.created_at,
    customer_details: {
      customer_id: order.customer.customer_id,
      customer_name: order.customer.customer_name,
      customer_email: order.customer.customer_email,
      customer_phone: order.customer.customer_phone,
    },
    entity: 'order',
    order_amount: Number(order.order_amount),
    order_currency: order.order_currency,
    order_expiry_time: order.order_expiry_time,
    order_id: order.order_id,
    order_meta: order.order_meta,
    order_note: order.order_note,
    order_splits: order.order_splits,
    order_status: effectiveOrderStatus(order, ctx.clock.nowMs()),
    order_tags: order.order_tags,
    payment_session_id: order.payment_session_id,
    payments: { url: `${base}/payments` },
    refunds: { url: `${base}/refunds` },
    settlements: { url: `${base}/settlements` },
    terminal_data: null,
  };
}

/** The order or 404 order_not_found. */
export function findOrder(ctx: SandboxContext, orderId: string): OrderRecord {
  const order = ctx.state.orders.get(orderId);
  if (!order) throw new GatewayError(404, 'order_not_found', `order_id: no order with this id. Value received: ${orderId}`);
  return order;
}

export const registerOrders: SandboxRouteModule = (router: Router, ctx: SandboxContext) => {
  router.post('/pg/orders', (req) => {
    requirePgAccess(req, ctx);
    return jsonReply(200, orderResponse(ctx, createOrder(ctx, objectBody(req))));
  });

  router.get('/pg/orders/:order_id', (req) => {
    requirePgAccess(req, ctx);
    return jsonReply(200, orderResponse(ctx, findOrder(ctx, req.params.order_id)));
  });

  router.post('/_sandbox/orders/:order_id/pay', (req) => {
    const order = findOrder(ctx, req.params.order_id);
    const body = req.body === undefined ? {} : objectBody(req);
    let paidAt = ctx.clock.nowMs();
    if (present(body.payment_time)) {
      const given = parseIsoWithOffset(body.payment_time);
      if (given === null) throw fieldError('payment_time', 'invalid', 'must be an ISO 8601 time with an offset, e.g. 2022-12-02T16:00:00+05:30', body.payment_time);
      paidAt = given;
    }
    const payment = newPaymentRecord(ctx, order, { payment_time: isoIst(paidAt), payment_completion_time: isoIst(paidAt) });
    markOrderPaid(ctx, order, payment);
    return jsonReply(200, { order: orderResponse(ctx, order), payment: { cf_payment_id: payment.cf_payment_id, payment_status: payment.payment_status, payment_time: payment.payment_time } });
  });
};
