/** The payment told twice (issue 9.6): the gateway's payment webhook and the marketplace's order.paid for one order. */
import Decimal from './decimal';
import type { ValidationIssue } from './errors';
import type { OrderEvent, OrderRecord, TransactionTimeSource } from './types';

type PaidEvent = Extract<OrderEvent, { type: 'order.paid' }>;

export type SecondPayment =
  /** The same payment (a duplicate, or the other source's account of it): nothing to change. */
  | { kind: 'same' }
  /** The same payment, and this is the gateway's time, which the window counts from: the record takes it. */
  | { kind: 'adopt_gateway_time' }
  /** Another payment under the same order id: refused, naming the first field that differs. */
  | { kind: 'conflict'; issue: ValidationIssue };

const sourceOf = (source: TransactionTimeSource | undefined): TransactionTimeSource => source ?? 'marketplace';

/**
 * Compares a second order.paid with the recorded order. Vendors, amounts and currency must agree. The times must agree
 * too when both come from the same source; the gateway's payment webhook and the marketplace's event describe one
 * payment in two clocks (they differ by milliseconds or more), so between sources the gateway's time is kept.
 */
export function compareSecondPayment(order: OrderRecord, event: PaidEvent): SecondPayment {
  const conflict = (field: string, problem: string): SecondPayment => ({
    kind: 'conflict',
    issue: {
      field,
      problem: `${problem}: ${order.orderId} was already paid at ${order.transactionTime} (told by the ${sourceOf(order.transactionTimeSource)}) with other details; the first order.paid is kept`,
      expected: 'the same order.paid again (a duplicate is fine) or a new orderId for a different order',
    },
  });
  if (order.currency !== event.currency) return conflict('detail.currency', `is ${event.currency}, not ${order.currency}`);
  const recorded = new Map(order.vendors.map((v) => [v.vendorId, v.amount]));
  for (const [i, vendor] of event.vendors.entries()) {
    const amount = recorded.get(vendor.vendorId);
    if (amount === undefined) return conflict(`detail.vendors[${i}].vendorId`, `names ${vendor.vendorId}, not a vendor of the recorded payment (${[...recorded.keys()].join(', ')})`);
    if (!new Decimal(amount).equals(vendor.amount)) return conflict(`detail.vendors[${i}].amount`, `is ${vendor.amount} for ${vendor.vendorId}, not ${amount}`);
  }
  if (event.vendors.length !== order.vendors.length) {
    const missing = order.vendors.filter((v) => !event.vendors.some((e) => e.vendorId === v.vendorId)).map((v) => v.vendorId);
    return conflict('detail.vendors', `leaves out ${missing.join(', ')}`);
  }
  const recordedSource = sourceOf(order.transactionTimeSource);
  const eventSource = sourceOf(event.transactionTimeSource);
  // The gateway's account replaces the marketplace's even when the stored times agree: the order then says so.
  if (recordedSource === 'marketplace' && eventSource === 'gateway') return { kind: 'adopt_gateway_time' };
  // Stored times keep whole seconds: a time that rounds to the stored one is the same time.
  const same = Math.floor(order.transactionTime.ms / 1000)
    === Math.floor(event.transactionTime.ms / 1000);
  if (same || recordedSource !== eventSource) return { kind: 'same' };
  return conflict('detail.transactionTime', `is ${event.transactionTime}, not ${order.transactionTime}`);
}
