/** The settlement engine: a paid order's split vendors become eligible, then settle at their schedule's next slot. */
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';
import type { SandboxTimer } from './clock';
import { GatewayError, type SandboxContext } from './http';
import { DEFAULT_SCHEDULE_OPTION, nextSettlementSlot } from './schedule';
import {
  effectiveOrderStatus,
  settlementKey,
  type OrderRecord,
  type PaymentRecord,
  type SandboxState,
  type VendorSettlementRecord,
} from './state';
import { DAY_MS } from '../kit/civil-days';
import { IST, isoIst } from './time';

/** A vendor's settlement reads IN_PROGRESS from this long before its slot until it settles. */
const IN_PROGRESS_WINDOW_MS = 10 * 60 * 1000;

export type ShownSettlementStatus = 'PENDING' | 'IN_PROGRESS' | 'SETTLED';

/** Timers live beside the state (not in it) so that the state stays plain data. */
const timersByState = new WeakMap<SandboxState, Map<string, SandboxTimer>>();

function timersOf(state: SandboxState): Map<string, SandboxTimer> {
  let timers = timersByState.get(state);
  if (!timers) {
    timers = new Map();
    timersByState.set(state, timers);
  }
  return timers;
}

export function cancelSettlementTimers(state: SandboxState): void {
  for (const timer of timersOf(state).values()) timer.cancel();
  timersOf(state).clear();
}

export function shownSettlementStatus(record: VendorSettlementRecord, nowMs: number): ShownSettlementStatus {
  if (record.status === 'SETTLED') return 'SETTLED';
  return nowMs >= Date.parse(record.scheduled_at) - IN_PROGRESS_WINDOW_MS ? 'IN_PROGRESS' : 'PENDING';
}

/** Each split vendor's share: a fixed amount, or a percentage of the order amount rounded half-up to paise. */
export function splitShares(order: OrderRecord): Array<{ vendor_id: string; amount: string }> {
  return order.order_splits.map((split) => ({
    vendor_id: split.vendor_id,
    amount: split.amount !== undefined
      ? new Decimal(split.amount).toFixed(2)
      : new Decimal(order.order_amount).mul(split.percentage ?? 0).div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2),
  }));
}

/** The latest eligibility the merchant's Defer by Days allows (interface 4.5 rule 1): transaction time + that many days. */
export function maxEligibility(state: SandboxState, paymentTimeMs: number): number {
  const days = state.merchant.deferByDays;
  // India keeps a fixed +05:30, so n calendar days are exactly n x 24 hours; luxon only for inputs it would round.
  if (Number.isInteger(paymentTimeMs) && Number.isInteger(days)) return paymentTimeMs + days * DAY_MS;
  return DateTime.fromMillis(paymentTimeMs, { zone: IST }).plus({ days }).toMillis();
}

/** Default eligibility: that maximum (4.5 rule 5), or the transaction time itself when deferral is off. */
export function defaultEligibility(state: SandboxState, paymentTimeMs: number): number {
  return state.merchant.deferredSettlementEnabled ? maxEligibility(state, paymentTimeMs) : paymentTimeMs;
}

/** (Re)computes the vendor's slot from its eligibility and sets the timer that settles it there. */
export function armSettlement(ctx: SandboxContext, record: VendorSettlementRecord): void {
  const vendor = ctx.state.vendors.get(record.vendor_id);
  const option = vendor?.schedule_option ?? DEFAULT_SCHEDULE_OPTION;
  const slot = nextSettlementSlot(option, Date.parse(record.eligibility), ctx.state.merchant.holidays);
  record.scheduled_at = isoIst(slot);
  const key = settlementKey(record.order_id, record.vendor_id);
  const timers = timersOf(ctx.state);
  timers.get(key)?.cancel();
  timers.set(key, ctx.clock.at(slot, () => {
    // The state may have been reset, or the record re-armed, since this timer was set.
    if (ctx.state.settlements.get(key) !== record || record.scheduled_at !== isoIst(slot)) return;
    timers.delete(key);
    settleVendor(ctx, record, slot);
  }));
}

function settleVendor(ctx: SandboxContext, record: VendorSettlementRecord, atMs: number): void {
  if (record.status === 'SETTLED') return;
  record.status = 'SETTLED';
  record.settled_at = isoIst(atMs);
  record.settlement_id = ++ctx.state.counters.settlementId;
  ctx.config.log(`settled vendor ${record.vendor_id} of order ${record.order_id}: ${record.amount} at ${record.settled_at}`);
  const url = ctx.state.merchant.webhookUrl;
  if (url) {
    void ctx.webhooks.send(url, 'VENDOR_SETTLEMENT_SUCCESS', {
      settlement: {
        order_id: record.order_id,
        vendor_id: record.vendor_id,
        settlement_id: record.settlement_id,
        settlement_amount: Number(record.amount),
        settled_at: record.settled_at,
        settlement_eligibility_date: record.eligibility,
      },
    }, true);
  }
}

/** The `data` of payment webhooks (PAYMENT_SUCCESS_WEBHOOK, PAYMENT_FAILED_WEBHOOK, ...). */
export function paymentWebhookData(order: OrderRecord, payment: PaymentRecord): unknown {
  return {
    order: {
      order_id: order.order_id,
      order_amount: Number(order.order_amount),
      order_currency: order.order_currency,
      order_tags: order.order_tags,
    },
    payment: {
      cf_payment_id: payment.cf_payment_id,
      payment_status: payment.payment_status,
      payment_amount: Number(payment.payment_amount),
      payment_currency: payment.payment_currency,
      payment_message: payment.payment_message,
      payment_time: payment.payment_time,
      bank_reference: payment.bank_reference,
      auth_id: payment.auth_id,
      payment_method: payment.payment_method,
      payment_group: payment.payment_group,
    },
    customer_details: {
      customer_name: order.customer.customer_name,
      customer_id: order.customer.customer_id,
      customer_email: order.customer.customer_email,
      customer_phone: order.customer.customer_phone,
    },
  };
}

/** Posts a payment webhook to the order's notify_url, else to the merchant's webhook URL; no-op when neither is set. */
export function sendPaymentWebhook(ctx: SandboxContext, order: OrderRecord, payment: PaymentRecord, type: string): void {
  const url = order.order_meta.notify_url ?? ctx.state.merchant.webhookUrl;
  if (url) void ctx.webhooks.send(url, type, paymentWebhookData(order, payment), order.order_meta.notify_url === null);
}

/**
 * A successful payment: the order becomes PAID at the payment's time (to the second), each split vendor gets its
 * settlement record (eligibility = payment time + Defer by Days) and its timer, and PAYMENT_SUCCESS_WEBHOOK is sent.
 * The payment is stored (if not already) and listed on the order. Throws 400 order_not_payable unless ACTIVE.
 */
export function markOrderPaid(ctx: SandboxContext, order: OrderRecord, payment: PaymentRecord): void {
  const status = effectiveOrderStatus(order, ctx.clock.nowMs());
  if (status !== 'ACTIVE') {
    throw new GatewayError(400, 'order_not_payable', `order_id: order is ${status} and cannot be paid again. Value received: ${order.order_id}`);
  }
  const paidMs = Math.floor(Date.parse(payment.payment_time) / 1000) * 1000;
  payment.payment_status = 'SUCCESS';
  payment.payment_time = isoIst(paidMs);
  ctx.state.payments.set(payment.cf_payment_id, payment);
  if (!order.payments.includes(payment.cf_payment_id)) order.payments.push(payment.cf_payment_id);
  order.status = 'PAID';
  order.payment_time = payment.payment_time;

  const eligibility = isoIst(defaultEligibility(ctx.state, paidMs));
  for (const share of splitShares(order)) {
    const record: VendorSettlementRecord = {
      order_id: order.order_id,
      vendor_id: share.vendor_id,
      amount: share.amount,
      eligibility,
      scheduled_at: eligibility,
      status: 'PENDING',
      settled_at: null,
      settlement_id: null,
      eligibility_updates: 0,
    };
    ctx.state.settlements.set(settlementKey(order.order_id, share.vendor_id), record);
    armSettlement(ctx, record);
  }
  ctx.config.log(`order ${order.order_id} paid at ${order.payment_time}`);
  sendPaymentWebhook(ctx, order, payment, 'PAYMENT_SUCCESS_WEBHOOK');
}

/** A new payment record with the defaults of a successful payment; the payments engineer may build their own. */
export function newPaymentRecord(ctx: SandboxContext, order: OrderRecord, fields: Partial<PaymentRecord> = {}): PaymentRecord {
  return {
    cf_payment_id: ++ctx.state.counters.cfPaymentId,
    order_id: order.order_id,
    payment_amount: order.order_amount,
    payment_currency: order.order_currency,
    payment_status: 'SUCCESS',
    payment_message: 'Transaction successful',
    payment_time: isoIst(ctx.clock.nowMs()),
    payment_completion_time: isoIst(ctx.clock.nowMs()),
    payment_group: 'upi',
    payment_method: { upi: { channel: 'collect', upi_id: 'sandbox@upi' } },
    bank_reference: String(100000000 + ctx.state.counters.cfPaymentId % 900000000),
    auth_id: null,
    extensions: {},
    ...fields,
  };
}
