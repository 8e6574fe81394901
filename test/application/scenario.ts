/** The order of the gateway's documented example (2 Dec 2022, 4:00 PM, Defer by Days 15) as events and policies for use-case tests. */
import { handleOrderEvent } from '../../functions/application/releases/handle-order-event';
import { putPolicy } from '../../functions/application/config/manage-policies';
import type { ReleaseRule, VendorRelease } from '../../functions/domain/types';
import type { FakeWorld } from '../fakes/dependencies';

export const ORDER = 'order_1001';
export const VENDOR = 'vendor_a';
export const TRANSACTION_TIME = '2022-12-02T16:00:00+05:30';

export const paid = (orderId = ORDER, vendors = [{ vendorId: VENDOR, amount: '1250.50' }]) =>
  ({ orderId, transactionTime: TRANSACTION_TIME, vendors, currency: 'INR' });

/** One order event through its use case, then whatever it enqueued through the release function (the queue's consumer). */
export async function send(world: FakeWorld, detailType: string, detail: unknown) {
  const result = await handleOrderEvent(world.deps, detailType, detail, { id: null, source: 'marketplace.orders' });
  await world.deliverQueued();
  return result;
}

export async function usePolicy(world: FakeWorld, release: ReleaseRule, vendorId = VENDOR, scheduleOption = 1) {
  return putPolicy(world.deps, vendorId, { scheduleOption, release, actor: 'finance@example.com', reason: 'test policy' });
}

export async function release(world: FakeWorld, orderId = ORDER, vendorId = VENDOR): Promise<VendorRelease> {
  const r = await world.orders.getRelease(orderId, vendorId);
  if (!r) throw new Error(`no release for ${orderId}/${vendorId}`);
  return r;
}
