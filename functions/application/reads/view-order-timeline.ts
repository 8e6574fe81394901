/** Use case: an order's whole story (GET /orders/{orderId}/timeline): events received and the order's audit records, in time order. */
import { eventTime } from '../../domain/order-events';
import { streamOf } from '../../domain/audit/audit-records';
import { NotFoundError } from '../errors';
import { requireId } from '../ids';
import type { Dependencies } from '../ports';
import { inZone } from '../response-times';

export interface TimelineItem {
  /** In the settings' timezone. */
  at: string;
  /** `event_received`, or the audit record's kind (`planned`, `gateway_attempt`, `webhook_received`, `manual_release`...). */
  kind: string;
  vendorId?: string;
  actor?: string;
  /** Who proved to be the actor (contract 6.4): an IAM principal ARN on AWS, `local:unauthenticated` locally. */
  principal?: string;
  detail: Record<string, unknown>;
  /** The audit record's place in the order's stream; absent for a received event (kept with the order, not the log). */
  sequence?: number;
}

export interface OrderTimeline {
  orderId: string;
  items: TimelineItem[];
}

/**
 * Events come from the order's stored events (each once, however often it was delivered; the payment from the order
 * record), the rest from the order's audit stream (which keeps no received events). Sorted by time; at the same
 * instant an event comes before what it caused, and records keep their stream's order.
 */
export async function viewOrderTimeline(deps: Dependencies, orderId: string): Promise<OrderTimeline> {
  requireId(orderId, 'orderId');
  const [order, events, records, settings] = await Promise.all([
    deps.orders.getOrder(orderId),
    deps.orders.listEvents(orderId),
    deps.auditArchive.streamRecords(streamOf({ orderId })),
    deps.settings.get(),
  ]);
  if (!order && events.length === 0 && records.length === 0) {
    throw new NotFoundError(`order ${orderId} is unknown: no order event was received for it and the audit log has nothing about it`);
  }
  const zone = settings.timezone;
  const timed: { ms: number; item: TimelineItem }[] = [];
  for (const stored of events) {
    const { type, orderId: _orderId, ...fields } = stored.event;
    timed.push({
      ms: stored.receivedAt.ms,
      item: {
        at: inZone(stored.receivedAt, zone),
        kind: 'event_received',
        detail: { type, eventTime: inZone(eventTime(stored.event), zone), ...fields },
      },
    });
  }
  if (order && !events.some((e) => e.event.type === 'order.paid')) {
    // The payment is kept as the order record itself, not as a stored event.
    timed.push({
      ms: order.recordedAt.ms,
      item: {
        at: inZone(order.recordedAt, zone),
        kind: 'event_received',
        detail: {
          type: 'order.paid',
          eventTime: inZone(order.transactionTime, zone),
          transactionTime: inZone(order.transactionTime, zone),
          vendors: order.vendors,
          currency: order.currency,
          maxEligibility: inZone(order.maxEligibility, zone),
          deferByDays: order.deferByDays,
          ...(order.transactionTimeSource ? { transactionTimeSource: order.transactionTimeSource } : {}),
        },
      },
    });
  }
  for (const record of records) {
    timed.push({
      ms: Date.parse(record.at),
      item: {
        at: inZone(record.at, zone),
        kind: record.kind,
        ...(record.vendorId ? { vendorId: record.vendorId } : {}),
        ...(record.actor ? { actor: record.actor } : {}),
        ...(record.principal ? { principal: record.principal } : {}),
        detail: record.detail,
        sequence: record.sequence,
      },
    });
  }
  // Array.prototype.sort is stable: events (pushed first) stay before records at the same instant.
  timed.sort((a, b) => (Number.isNaN(a.ms) ? 0 : a.ms) - (Number.isNaN(b.ms) ? 0 : b.ms));
  return { orderId, items: timed.map((t) => t.item) };
}
