/** The facts about one vendor's share of an order, folded from the order's events in the order of their own times. */
import { Instant } from '../instant';
import { eventKey, eventTime } from '../order-events';
import type { DisputeResolution, OrderEvent, OrderEventType } from '../types';

export interface VendorFacts {
  /** The latest delivery (by its own time). */
  deliveredAt: Instant | null;
  disputeOpen: boolean;
  /** Once a customer won a dispute it stays customer_won: a later dispute cannot restore an early release. */
  lastResolution: DisputeResolution | null;
  /** The earliest cancellation. */
  cancelledAt: Instant | null;
}

// Events at the same instant fold in this order, so a dispute opened and closed in one instant ends closed.
const SAME_TIME_RANK: Record<OrderEventType, number> = {
  'order.paid': 0, 'order.delivered': 1, 'order.dispute_opened': 2, 'order.dispute_closed': 3, 'order.cancelled': 4,
};

/** Whether a follow-up event (delivery, dispute, cancellation) is about this vendor; the payment itself adds no fact. */
function concerns(event: OrderEvent, vendorId: string): boolean {
  if (event.type === 'order.paid') return false;
  return !event.vendorIds || event.vendorIds.includes(vendorId);
}

/**
 * The facts about one vendor, folded in the order of the events' own times (not arrival order), so out-of-order and
 * duplicated deliveries of the same events give the same facts.
 */
export function vendorFacts(events: OrderEvent[], vendorId: string): VendorFacts {
  const unique = new Map<string, { event: OrderEvent; at: Instant }>();
  for (const event of events) {
    if (!concerns(event, vendorId)) continue;
    unique.set(eventKey(event), { event, at: Instant.parse(eventTime(event), 'eventTime') });
  }
  const ordered = [...unique.entries()].sort(([keyA, a], [keyB, b]) =>
    a.at.ms - b.at.ms || SAME_TIME_RANK[a.event.type] - SAME_TIME_RANK[b.event.type] || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0));
  const facts: VendorFacts = { deliveredAt: null, disputeOpen: false, lastResolution: null, cancelledAt: null };
  for (const [, { event, at }] of ordered) {
    switch (event.type) {
      case 'order.delivered': facts.deliveredAt = at; break;
      case 'order.dispute_opened': facts.disputeOpen = true; break;
      case 'order.dispute_closed':
        facts.disputeOpen = false;
        if (facts.lastResolution !== 'customer_won') facts.lastResolution = event.resolution;
        break;
      case 'order.cancelled': facts.cancelledAt ??= at; break;
      default: break;
    }
  }
  return facts;
}
