/** Marketplace order events (contract section 2): validation into OrderEvent, deterministic keys, own times. */
import Decimal from './decimal';
import { DateTime } from 'luxon';
import {
  MAX_AMOUNT, MAX_NESTING_DEPTH, MAX_VENDORS_PER_ORDER, ValidationError, amountBoundsProblem, instantBoundsIssue, isRecord, nestingIssue, type ValidationIssue,
} from './errors';
import { canonicalJson } from './audit/audit-records';
import { Instant } from './instant';
import { sha256Hex } from './digest';
import type { DisputeResolution, OrderEvent, OrderEventType, TransactionTimeSource } from './types';

/** The gateway's order id rule, used for vendor ids too. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{3,45}$/;
const ID_EXPECTED = '3 to 45 characters of A-Z, a-z, 0-9, "_" or "-", e.g. "order_1001"';
const AMOUNT_EXPECTED = 'a positive amount with at most two decimals, e.g. 1250.50';
const AMOUNT_RANGE_EXPECTED = `a positive amount with at most two decimals, at most ${MAX_AMOUNT}, e.g. 1250.50`;
/** An amount's text longer than this is refused before it is read as a number. */
const AMOUNT_MAX_CHARS = 24;

const TIME_FIELD: Record<OrderEventType, string> = {
  'order.paid': 'transactionTime',
  'order.delivered': 'deliveredAt',
  'order.dispute_opened': 'openedAt',
  'order.dispute_closed': 'closedAt',
  'order.cancelled': 'cancelledAt',
};
const EVENT_TYPES = Object.keys(TIME_FIELD) as OrderEventType[];
const RESOLUTIONS: DisputeResolution[] = ['merchant_won', 'customer_won'];

export function isValidId(id: unknown): boolean {
  return typeof id === 'string' && ID_PATTERN.test(id);
}

/** The one id check of a path, a body or a gateway URL: the gateway's id rule, before the id reaches a key or a URL. */
export function requireId(value: unknown, field: string): string {
  if (!isValidId(value)) {
    throw new ValidationError([{ field, problem: `is ${JSON.stringify(value) ?? 'missing'}, not a valid id`, expected: '3 to 45 characters of A-Z, a-z, 0-9, "_" and "-"' }]);
  }
  return value as string;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** Collects issues while reading fields, so one rejection names every bad field. */
class DetailReader {
  readonly issues: ValidationIssue[] = [];

  /** `nowMs`: Holdback's clock, the upper bound of an event's own time (null: no upper bound). */
  constructor(private readonly detail: Record<string, unknown>, private readonly nowMs: number | null = null) {}

  private add(field: string, problem: string, expected: string): null {
    this.issues.push({ field: `detail.${field}`, problem, expected });
    return null;
  }

  id(value: unknown, field: string): string | null {
    if (value === undefined) return this.add(field, 'is missing', ID_EXPECTED);
    return isValidId(value) ? (value as string) : this.add(field, `is ${shown(value)}`, ID_EXPECTED);
  }

  /** The instant as given (its own offset; its stored text has milliseconds only when it has any). */
  instant(field: string): Instant | null {
    try {
      const at = Instant.parse(this.detail[field], `detail.${field}`);
      const outOfBounds = instantBoundsIssue(at, `detail.${field}`, this.nowMs);
      if (outOfBounds) {
        this.issues.push(outOfBounds);
        return null;
      }
      return at;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      this.issues.push(...error.issues);
      return null;
    }
  }

  amount(value: unknown, field: string): string | null {
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : null;
    if (text === null) return this.add(field, value === undefined ? 'is missing' : `is ${shown(value)}, not an amount`, AMOUNT_EXPECTED);
    if (text.length > AMOUNT_MAX_CHARS) return this.add(field, `has ${text.length} characters, more digits than any amount`, AMOUNT_RANGE_EXPECTED);
    if (!/^\d+(\.\d+)?$/.test(text)) return this.add(field, `is ${shown(value)}, not a plain decimal amount`, AMOUNT_EXPECTED);
    const amount = new Decimal(text);
    if (amount.decimalPlaces() > 2) return this.add(field, `has ${amount.decimalPlaces()} decimals`, AMOUNT_EXPECTED);
    if (amount.lte(0)) return this.add(field, `is ${shown(value)}, not positive`, AMOUNT_EXPECTED);
    const tooLarge = amountBoundsProblem(amount);
    if (tooLarge) return this.add(field, tooLarge, AMOUNT_RANGE_EXPECTED);
    return amount.toFixed(2);
  }

  vendors(): { vendorId: string; amount: string }[] | null {
    const value = this.detail.vendors;
    const expected = 'a non-empty list of {vendorId, amount}, e.g. [{"vendorId": "vendor_a", "amount": "1250.50"}]';
    if (!Array.isArray(value) || value.length === 0) {
      return this.add('vendors', value === undefined ? 'is missing' : `is ${shown(value)}, not a non-empty list`, expected);
    }
    if (value.length > MAX_VENDORS_PER_ORDER) return this.add('vendors', `has ${value.length} vendors`, `at most ${MAX_VENDORS_PER_ORDER} vendors in one order`);
    const seen = new Set<string>();
    const vendors = value.map((v, i) => {
      if (!isRecord(v)) return this.add(`vendors[${i}]`, `is ${shown(v)}, not an object`, expected);
      const vendorId = this.id(v.vendorId, `vendors[${i}].vendorId`);
      const amount = this.amount(v.amount, `vendors[${i}].amount`);
      if (vendorId && seen.has(vendorId)) this.add(`vendors[${i}].vendorId`, `repeats "${vendorId}"`, 'each vendor once per order');
      if (vendorId) seen.add(vendorId);
      return vendorId && amount ? { vendorId, amount } : null;
    });
    return vendors.every((v) => v !== null) ? (vendors as { vendorId: string; amount: string }[]) : null;
  }

  /** `undefined` when absent (every vendor of the order). */
  vendorIds(): string[] | undefined | null {
    const value = this.detail.vendorIds;
    if (value === undefined) return undefined;
    const expected = 'a non-empty list of distinct vendor ids, or no vendorIds at all for every vendor of the order';
    if (!Array.isArray(value) || value.length === 0) return this.add('vendorIds', `is ${shown(value)}, not a non-empty list`, expected);
    if (value.length > MAX_VENDORS_PER_ORDER) return this.add('vendorIds', `has ${value.length} vendor ids`, `at most ${MAX_VENDORS_PER_ORDER} vendor ids, the most an order has`);
    const ids = value.map((v, i) => this.id(v, `vendorIds[${i}]`));
    ids.forEach((id, i) => {
      if (id && ids.indexOf(id) !== i) this.add(`vendorIds[${i}]`, `repeats "${id}"`, expected);
    });
    return ids.every((id) => id !== null) && new Set(ids).size === ids.length ? (ids as string[]) : null;
  }

  /** Who tells the payment's time (Holdback's gateway webhook says "gateway"); undefined when absent. */
  transactionTimeSource(): TransactionTimeSource | undefined | null {
    const value = this.detail.transactionTimeSource;
    if (value === undefined || value === 'gateway' || value === 'marketplace') return value;
    return this.add('transactionTimeSource', `is ${shown(value)}`, '"marketplace" (the default) or "gateway" (Holdback\'s own gateway webhook receiver)');
  }

  currency(): string | null {
    const value = this.detail.currency;
    if (value === undefined) return 'INR';
    return typeof value === 'string' && /^[A-Z]{3}$/.test(value) ? value : this.add('currency', `is ${shown(value)}`, 'a three-letter ISO 4217 code such as "INR" (the default)');
  }

  resolution(): DisputeResolution | null {
    const value = this.detail.resolution;
    return RESOLUTIONS.includes(value as DisputeResolution)
      ? (value as DisputeResolution)
      : this.add('resolution', value === undefined ? 'is missing' : `is ${shown(value)}`, '"merchant_won" or "customer_won"');
  }
}

/**
 * Validates an event's detail-type and detail into an OrderEvent, or throws a ValidationError naming every bad field.
 * Fields the contract does not define are ignored (a marketplace may send more than Holdback reads). With `now`
 * (Holdback's clock), the event's own time must also lie at most a day after it (README "Bounds").
 */
export function parseOrderEvent(detailType: unknown, detail: unknown, now?: Instant | null): OrderEvent {
  // Depth first: nothing below may walk a detail nested deeper than this (see MAX_NESTING_DEPTH).
  const tooDeep = nestingIssue(detail, 'detail', `{"orderId": "order_1001", ...} (an order event needs 3 levels, at most ${MAX_NESTING_DEPTH})`);
  if (tooDeep) throw new ValidationError([tooDeep]);
  if (typeof detailType !== 'string' || !(EVENT_TYPES as string[]).includes(detailType)) {
    throw new ValidationError([{ field: 'detail-type', problem: `is ${shown(detailType)}, not an order event`, expected: `one of ${EVENT_TYPES.join(', ')}` }]);
  }
  if (!isRecord(detail)) {
    throw new ValidationError([{ field: 'detail', problem: `is ${shown(detail)}, not a JSON object`, expected: `the detail of ${detailType} (contract section 2)` }]);
  }
  const type = detailType as OrderEventType;
  const read = new DetailReader(detail, now ? now.ms : null);
  const orderId = read.id(detail.orderId, 'orderId');
  const time = read.instant(TIME_FIELD[type]);
  let event: OrderEvent | null = null;
  if (type === 'order.paid') {
    const vendors = read.vendors();
    const currency = read.currency();
    const source = read.transactionTimeSource();
    if (orderId && time && vendors && currency && source !== null) {
      event = { type, orderId, transactionTime: time, vendors, currency, ...(source ? { transactionTimeSource: source } : {}) };
    }
  } else {
    const vendorIds = read.vendorIds();
    const scope = vendorIds ? { vendorIds } : {};
    if (orderId && time && vendorIds !== null) {
      if (type === 'order.delivered') event = { type, orderId, deliveredAt: time, ...scope };
      else if (type === 'order.dispute_opened') event = { type, orderId, openedAt: time, ...scope };
      else if (type === 'order.cancelled') event = { type, orderId, cancelledAt: time, ...scope };
      else {
        const resolution = read.resolution();
        if (resolution) event = { type, orderId, closedAt: time, resolution, ...scope };
      }
    }
  }
  if (read.issues.length || !event) throw new ValidationError(read.issues);
  return event;
}

/** The instant the event happened (its own time, not its arrival). */
export function eventTime(event: OrderEvent): Instant {
  switch (event.type) {
    case 'order.paid': return event.transactionTime;
    case 'order.delivered': return event.deliveredAt;
    case 'order.dispute_opened': return event.openedAt;
    case 'order.dispute_closed': return event.closedAt;
    case 'order.cancelled': return event.cancelledAt;
  }
}

/** The same facts written differently made one value: instants as UTC, id lists sorted (its RFC 8785 text is hashed). */
function normalised(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => normalised(v));
    return key === 'vendorIds' ? items.sort() : items;
  }
  if (value instanceof Instant) return utcText(value);
  if (isRecord(value)) return Object.fromEntries(Object.keys(value).map((k) => [k, normalised(value[k], k)]));
  if (typeof value === 'string' && (Object.values(TIME_FIELD) as string[]).includes(key)) {
    return DateTime.fromISO(value, { setZone: true }).toUTC().toISO();
  }
  return value;
}

/** luxon's toUTC().toISO() of an instant ("2022-12-02T10:30:00.000Z"), which Date writes alike for years 0 to 9999. */
function utcText(at: Instant): string {
  const date = new Date(at.ms);
  const year = date.getUTCFullYear();
  return Number.isInteger(at.ms) && year >= 0 && year <= 9999 ? date.toISOString() : at.toDateTime().toUTC().toISO() as string;
}

function canonical(value: unknown): string {
  return canonicalJson(normalised(value));
}

/** Deterministic: the type plus a hash of the canonical detail, so the same event sent three times has one key. */
export function eventKey(event: OrderEvent): string {
  return `${event.type}#${sha256Hex(canonical(event)).slice(0, 32)}`;
}

/**
 * The vendors an event's `vendorIds` names that the order does not have: such an event cannot concern anyone, so it
 * is refused (and listed) rather than applied to the vendors it does name or silently ignored.
 */
export function vendorsOutsideOrder(event: OrderEvent, orderVendorIds: readonly string[]): string[] {
  if (event.type === 'order.paid' || !event.vendorIds) return [];
  return event.vendorIds.filter((id) => !orderVendorIds.includes(id));
}

/** The issue naming the vendors of `vendorsOutsideOrder` (empty: none). */
export function vendorsOutsideOrderIssues(event: OrderEvent, orderVendorIds: readonly string[]): ValidationIssue[] {
  const outside = vendorsOutsideOrder(event, orderVendorIds);
  if (outside.length === 0) return [];
  return [{
    field: 'detail.vendorIds',
    problem: `names ${outside.map((id) => `"${id}"`).join(', ')}, not a vendor of order ${event.orderId}`,
    expected: `only vendors of the order (${orderVendorIds.join(', ')}), or no vendorIds for every vendor`,
  }];
}

/** One vendor's share of a gateway order as the gateway sent it: a fixed amount or a percentage of order_amount. */
export interface GatewaySplitShare {
  amount: unknown;
  percentage: unknown;
}

function decimalText(value: unknown): Decimal | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Decimal(String(value));
  if (typeof value === 'string' && value.length <= AMOUNT_MAX_CHARS && /^\d+(\.\d+)?$/.test(value.trim())) return new Decimal(value.trim());
  return null;
}

/**
 * The gateway's rules for a split, checked on a signed webhook before it becomes an order.paid: amounts and the order
 * amount have at most two decimals (nothing is rounded), and the shares add up to no
 * more than order_amount (fixed amounts) or 100 (percentages). Less is allowed: the merchant keeps the rest, as at
 * the gateway (and its sandbox), which refuses only a split above the order.
 */
export function gatewaySplitIssues(field: string, orderAmount: unknown, splits: readonly GatewaySplitShare[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const total = decimalText(orderAmount);
  if (orderAmount !== undefined && orderAmount !== null && (total === null || total.decimalPlaces() > 2 || amountBoundsProblem(total))) {
    issues.push({ field: `${field}.order_amount`, problem: `is ${shown(orderAmount)}`, expected: AMOUNT_RANGE_EXPECTED });
  }
  let amounts = new Decimal(0);
  let percentages = new Decimal(0);
  splits.forEach((split, i) => {
    for (const key of ['amount', 'percentage'] as const) {
      const value = split[key];
      if (value === undefined || value === null) continue;
      const share = decimalText(value);
      // A percentage may have more decimals: the gateway rounds the share it gives to two (e.g. 33.335% of 100).
      if (share === null || (key === 'amount' && share.decimalPlaces() > 2)) {
        issues.push({ field: `${field}[${i}].${key}`, problem: `is ${shown(value)}, ${share ? `${share.decimalPlaces()} decimals` : 'not a plain decimal'}`, expected: key === 'amount' ? AMOUNT_EXPECTED : 'a percentage of order_amount, e.g. 12.5' });
      } else if (key === 'amount') {
        amounts = amounts.plus(share);
      } else {
        percentages = percentages.plus(share);
      }
    }
  });
  const shares = total ? amounts.plus(total.mul(percentages).div(100)) : amounts;
  if (total && shares.gt(total)) {
    issues.push({ field, problem: `split shares add up to ${shares.toFixed(2)}, more than order_amount ${total.toFixed(2)}`, expected: 'shares that add up to at most order_amount (the merchant keeps the rest)' });
  } else if (percentages.gt(100)) {
    issues.push({ field, problem: `split percentages add up to ${percentages.toFixed()}, more than 100`, expected: 'percentages that add up to at most 100' });
  }
  return issues;
}
