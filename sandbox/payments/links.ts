/** Payment links (4.4, 2.10): validation of the create request, the stored link and the response of 2.10. */
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';
import { fieldError, GatewayError, type SandboxContext } from '../http';
import { optionalUrl, parseAmount, parseCustomerContact, type CustomerContact } from '../orders';
import type { LinkRecord } from '../state';
import { IST, isoIst, parseIsoWithOffset } from '../time';

const LINK_ID_PATTERN = /^[A-Za-z0-9_-]{1,50}$/;
const DEFAULT_EXPIRY_DAYS = 30;
/** The TPV fields a link carries, in customer_details of the request and link_notes of the response. */
export const TPV_NOTE_KEYS = ['customer_bank_account_number', 'customer_bank_code', 'customer_bank_ifsc'] as const;

export type LinkStatus = 'ACTIVE' | 'PARTIALLY_PAID' | 'PAID' | 'EXPIRED';

/** A link as stored: the fields of the 2.10 response plus what paying it needs. */
export interface StoredLink {
  cf_link_id: number;
  link_id: string;
  link_status: LinkStatus;
  link_currency: string;
  link_amount: number;
  link_amount_paid: number;
  link_partial_payments: boolean;
  link_minimum_partial_amount: number | null;
  link_purpose: string;
  link_created_at: string;
  customer_details: { customer_name: string | null; country_code: string; customer_phone: string; customer_email: string | null };
  link_meta: { payment_methods: string; upi_intent: 'true' | 'false'; notify_url?: string; return_url?: string };
  link_url: string;
  link_expiry_time: string;
  link_notes: Record<string, string>;
  link_auto_reminders: boolean;
  link_notify: { send_email: boolean; send_sms: boolean };
  /** The customer as an order needs it (TPV account included). */
  payer: CustomerContact & { customer_bank_code: number | null };
  /** Orders created from the link page, oldest first. */
  order_ids: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const present = (v: unknown): boolean => v !== undefined && v !== null;

function text(field: string, value: unknown, max: number, required: boolean): string | null {
  if (!present(value) || value === '') {
    if (required) throw fieldError(field, 'missing', `is required. Send a string of 1 to ${max} characters`, value ?? '');
    return null;
  }
  if (typeof value !== 'string') throw fieldError(field, 'invalid', `must be a string of 1 to ${max} characters`, value);
  if (value.length > max) throw fieldError(field, 'invalid', `must be at most ${max} characters (${value.length} given)`, `${value.slice(0, 60)}…`);
  return value;
}

function flag(field: string, value: unknown): boolean {
  if (!present(value)) return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw fieldError(field, 'invalid', 'must be true or false', value);
}

/** customer_details of 2.10: the fields an order checks too (orders.ts), and the bank code as a string (2.2). */
function customer(value: unknown, tpv: boolean): StoredLink['payer'] {
  if (!present(value)) throw fieldError('customer_details', 'missing', 'is required. Send at least customer_phone', '');
  if (!isObject(value)) throw fieldError('customer_details', 'invalid', 'must be an object with at least customer_phone', value);
  const contact = parseCustomerContact(value, tpv);
  const codeText = value.customer_bank_code;
  let code: number | null = null;
  if (present(codeText) && codeText !== '') {
    // A string in the link request (2.2), an integer in the order made from it.
    if (typeof codeText !== 'string' || !/^[1-9]\d{0,9}$/.test(codeText)) throw fieldError('customer_details.customer_bank_code', 'invalid', 'must be the bank code as a string of digits, e.g. "3044"', codeText);
    code = Number(codeText);
  }
  return { ...contact, customer_bank_code: code };
}

function notes(value: unknown): Record<string, string> {
  if (!present(value)) return {};
  if (!isObject(value)) throw fieldError('link_notes', 'invalid', 'must be an object of string values', value);
  const out: Record<string, string> = {};
  for (const [key, note] of Object.entries(value)) {
    if (typeof note !== 'string') throw fieldError(`link_notes.${key}`, 'invalid', 'must be a string', note);
    out[key] = note;
  }
  return out;
}

/** The link's current status: an unpaid link past its expiry reads EXPIRED. */
export function linkStatus(link: StoredLink, nowMs: number): LinkStatus {
  if ((link.link_status === 'ACTIVE' || link.link_status === 'PARTIALLY_PAID') && nowMs > Date.parse(link.link_expiry_time)) return 'EXPIRED';
  return link.link_status;
}

function linkPageUrl(ctx: SandboxContext, cfLinkId: number): string {
  return `${ctx.config.baseUrl}/pg/view/links/${cfLinkId}`;
}

/** Validates a create request (API, or a CSV row turned into one) and stores the link; errors name the field. */
export function createLink(ctx: SandboxContext, body: Record<string, unknown>): StoredLink {
  const now = ctx.clock.nowMs();
  const linkId = text('link_id', body.link_id, 50, true) as string;
  if (!LINK_ID_PATTERN.test(linkId)) throw fieldError('link_id', 'invalid', 'must be 1 to 50 characters of letters, digits, _ or -', linkId);
  const amount = parseAmount('link_amount', body.link_amount);
  if (!present(body.link_currency)) throw fieldError('link_currency', 'missing', 'is required. Send INR', '');
  if (body.link_currency !== 'INR') throw fieldError('link_currency', 'invalid', 'only INR is enabled. Send INR', body.link_currency);
  const purpose = text('link_purpose', body.link_purpose, 500, true) as string;
  const payer = customer(body.customer_details, ctx.state.merchant.tpvEnabled);
  const partial = flag('link_partial_payments', body.link_partial_payments);
  let minimumPartial: Decimal | null = null;
  if (present(body.link_minimum_partial_amount)) {
    if (!partial) throw fieldError('link_minimum_partial_amount', 'invalid', 'applies only to partial payments. Send link_partial_payments: true, or leave this out', body.link_minimum_partial_amount);
    minimumPartial = parseAmount('link_minimum_partial_amount', body.link_minimum_partial_amount);
    if (minimumPartial.gt(amount)) throw fieldError('link_minimum_partial_amount', 'invalid', `must not exceed link_amount ${amount.toFixed(2)}`, body.link_minimum_partial_amount);
  }
  let expiry = DateTime.fromMillis(now, { zone: IST }).plus({ days: DEFAULT_EXPIRY_DAYS }).toMillis();
  if (present(body.link_expiry_time) && body.link_expiry_time !== '') {
    const given = parseIsoWithOffset(body.link_expiry_time);
    if (given === null) throw fieldError('link_expiry_time', 'invalid', 'must be an ISO 8601 time with an offset, e.g. 2022-12-31T23:59:59+05:30', body.link_expiry_time);
    if (given <= now) throw fieldError('link_expiry_time', 'invalid', 'must be in the future', body.link_expiry_time);
    expiry = given;
  }
  const notify = body.link_notify;
  if (present(notify) && !isObject(notify)) throw fieldError('link_notify', 'invalid', 'must be an object {send_sms, send_email}', notify);
  const meta = body.link_meta;
  if (present(meta) && !isObject(meta)) throw fieldError('link_meta', 'invalid', 'must be an object {notify_url, return_url, upi_intent, payment_methods}', meta);
  const metaObj = (meta ?? {}) as Record<string, unknown>;
  const notifyUrl = optionalUrl('link_meta.notify_url', metaObj.notify_url);
  const returnUrl = optionalUrl('link_meta.return_url', metaObj.return_url);
  const paymentMethods = text('link_meta.payment_methods', metaObj.payment_methods, 200, false) ?? '';
  const linkNotes = notes(body.link_notes);
  // 2.10: for TPV the notes carry the bank fields of the customer.
  if (payer.customer_bank_account_number !== null) linkNotes.customer_bank_account_number = payer.customer_bank_account_number;
  if (payer.customer_bank_code !== null) linkNotes.customer_bank_code = String(payer.customer_bank_code);
  if (payer.customer_bank_ifsc !== null) linkNotes.customer_bank_ifsc = payer.customer_bank_ifsc;
  if (ctx.state.links.has(linkId)) throw new GatewayError(409, 'link_already_exists', `link_id: a link with this id already exists. Send a new link_id. Value received: ${linkId}`);

  const cfLinkId = ++ctx.state.counters.cfLinkId;
  const nationalPhone = payer.customer_phone.replace(/^\+91(?=\d{10}$)/, '');
  const link: StoredLink = {
    cf_link_id: cfLinkId,
    link_id: linkId,
    link_status: 'ACTIVE',
    link_currency: 'INR',
    link_amount: amount.toNumber(),
    link_amount_paid: 0,
    link_partial_payments: partial,
    link_minimum_partial_amount: minimumPartial === null ? null : minimumPartial.toNumber(),
    link_purpose: purpose,
    link_created_at: isoIst(now),
    customer_details: { customer_name: payer.customer_name, country_code: '+91', customer_phone: nationalPhone, customer_email: payer.customer_email },
    link_meta: {
      payment_methods: paymentMethods,
      upi_intent: flag('link_meta.upi_intent', metaObj.upi_intent) ? 'true' : 'false',
      ...(notifyUrl ? { notify_url: notifyUrl } : {}),
      ...(returnUrl ? { return_url: returnUrl } : {}),
    },
    link_url: linkPageUrl(ctx, cfLinkId),
    link_expiry_time: isoIst(expiry),
    link_notes: linkNotes,
    link_auto_reminders: flag('link_auto_reminders', body.link_auto_reminders),
    link_notify: {
      send_email: flag('link_notify.send_email', (notify as Record<string, unknown> | undefined)?.send_email),
      send_sms: flag('link_notify.send_sms', (notify as Record<string, unknown> | undefined)?.send_sms),
    },
    payer,
    order_ids: [],
  };
  ctx.state.links.set(linkId, link as unknown as LinkRecord);
  ctx.state.linksByCfId.set(cfLinkId, linkId);
  return link;
}

/** The 2.10 response: every field of the stored link except what paying it needs. */
export function linkResponse(link: StoredLink, nowMs: number): Record<string, unknown> {
  const { payer: _payer, order_ids: _orders, ...shown } = link;
  return { ...shown, link_status: linkStatus(link, nowMs) };
}

export function findLink(ctx: SandboxContext, linkId: string): StoredLink {
  if (!LINK_ID_PATTERN.test(linkId)) throw fieldError('link_id', 'invalid', 'must be 1 to 50 characters of letters, digits, _ or -', linkId.slice(0, 60));
  const link = ctx.state.links.get(linkId);
  if (!link) throw new GatewayError(404, 'link_not_found', `link_id: no payment link with this id. Value received: ${linkId}`);
  return link as unknown as StoredLink;
}

export function findLinkByCfId(ctx: SandboxContext, cfLinkId: string): StoredLink {
  const linkId = /^\d{1,15}$/.test(cfLinkId) ? ctx.state.linksByCfId.get(Number(cfLinkId)) : undefined;
  const link = linkId === undefined ? undefined : ctx.state.links.get(linkId);
  if (link) return link as unknown as StoredLink;
  throw new GatewayError(404, 'link_not_found', `cf_link_id: no payment link with this id. Value received: ${cfLinkId.slice(0, 20)}`);
}
