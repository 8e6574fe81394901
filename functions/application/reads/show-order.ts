/** Use case: one order as finance sees it (GET /orders/{orderId}), every time in the settings' timezone, every state with its reason. */
import type { TransactionTimeSource } from '../../domain/types';
import { NotFoundError } from '../errors';
import { requireId } from '../ids';
import type { Dependencies } from '../ports';
import { inZone } from '../response-times';
import { projectionContext, releaseViewOf, vendorHoldSources, type VendorView } from '../release-views';

export interface OrderView {
  orderId: string;
  /** null for an order known only from events that came before its payment. */
  transactionTime: string | null;
  /** Whose payment time the window counts from: the gateway's payment webhook (trusted) or the marketplace's event. */
  transactionTimeSource: TransactionTimeSource | null;
  maxEligibility: string | null;
  currency: string | null;
  vendors: VendorView[];
}

/**
 * An order whose events came before its payment is shown with transactionTime null and no vendors (it is known, and
 * waits for order.paid); an order nobody sent any event for is a 404.
 */
export async function viewOrder(deps: Dependencies, orderId: string): Promise<OrderView> {
  requireId(orderId, 'orderId');
  // One round trip: the releases of an order that has none (not paid yet, or unknown) are an empty list.
  const [order, releases, settings] = await Promise.all([deps.orders.getOrder(orderId), deps.orders.listReleases(orderId), deps.settings.get()]);
  const holdSources = await vendorHoldSources(deps, releases);
  const zone = settings.timezone;
  if (!order) {
    const events = await deps.orders.listEvents(orderId);
    if (events.length === 0) {
      throw new NotFoundError(`order ${orderId} is unknown: no order event was received for it`);
    }
    return { orderId, transactionTime: null, transactionTimeSource: null, maxEligibility: null, currency: null, vendors: [] };
  }
  const position = new Map(order.vendors.map((v, i) => [v.vendorId, i]));
  releases.sort((a, b) => (position.get(a.vendorId) ?? Infinity) - (position.get(b.vendorId) ?? Infinity));
  return {
    orderId,
    transactionTime: inZone(order.transactionTime, zone),
    transactionTimeSource: order.transactionTimeSource ?? 'marketplace',
    maxEligibility: inZone(order.maxEligibility, zone),
    currency: order.currency,
    vendors: releases.map((r) => releaseViewOf(r, zone, projectionContext(settings, deps.clock.now().ms), holdSources.get(r.vendorId))),
  };
}
