/** Use case: one order as finance sees it (GET /orders/{orderId}), every time in the settings' timezone. */
import type { ReleaseState } from '../domain/types';
import { NotFoundError } from './errors';
import { requireId } from './ids';
import type { Dependencies } from './ports';
import { inZone } from './response-times';

export interface OrderView {
  orderId: string;
  /** null for an order known only from events that came before its payment. */
  transactionTime: string | null;
  maxEligibility: string | null;
  vendors: {
    vendorId: string;
    state: ReleaseState;
    policyVersion: number;
    targetEligibility: string | null;
    appliedEligibility: string | null;
    predictedSettlement: string | null;
    attempts: { at: string; request: string; status: string; subCode: string | null; message: string }[];
  }[];
}

/**
 * An order whose events came before its payment is shown with transactionTime null and no vendors (it is known, and
 * waits for order.paid); an order nobody sent any event for is a 404.
 */
export async function viewOrder(deps: Dependencies, orderId: string): Promise<OrderView> {
  requireId(orderId, 'orderId');
  const [order, settings] = await Promise.all([deps.orders.getOrder(orderId), deps.settings.get()]);
  const zone = settings.timezone;
  if (!order) {
    const events = await deps.orders.listEvents(orderId);
    if (events.length === 0) {
      throw new NotFoundError(`order ${orderId} is unknown: no order event was received for it`);
    }
    return { orderId, transactionTime: null, maxEligibility: null, vendors: [] };
  }
  const releases = await deps.orders.listReleases(orderId);
  const position = new Map(order.vendors.map((v, i) => [v.vendorId, i]));
  releases.sort((a, b) => (position.get(a.vendorId) ?? Infinity) - (position.get(b.vendorId) ?? Infinity));
  return {
    orderId,
    transactionTime: inZone(order.transactionTime, zone),
    maxEligibility: inZone(order.maxEligibility, zone),
    vendors: releases.map((r) => ({
      vendorId: r.vendorId,
      state: r.state,
      policyVersion: r.policyVersion,
      targetEligibility: inZone(r.targetEligibility, zone),
      appliedEligibility: inZone(r.appliedEligibility, zone),
      predictedSettlement: inZone(r.predictedSettlement, zone),
      attempts: r.attempts.map((a) => ({ at: inZone(a.at, zone), request: a.request, status: a.status, subCode: a.subCode, message: a.message })),
    })),
  };
}
