/** An order record and its releases as the use cases store them, for the tests of the orders table and its indexes. */
import { DateTime } from 'luxon';
import type { OrderRecord, VendorRelease } from '../../functions/domain/types';
import { at } from '../times';

export function order(orderId: string, transactionTime: string, vendorIds: string[]): OrderRecord {
  return {
    orderId, transactionTime: at(transactionTime), maxEligibility: at(DateTime.fromISO(transactionTime, { setZone: true }).plus({ days: 15 }).toISO({ suppressMilliseconds: true })!),
    deferByDays: 15, currency: 'INR', vendors: vendorIds.map((vendorId) => ({ vendorId, amount: '100.50' })), recordedAt: at(transactionTime),
  };
}

export function release(o: OrderRecord, vendorId: string, overrides: Partial<VendorRelease> = {}): VendorRelease {
  return {
    orderId: o.orderId, vendorId, amount: '100.50', state: 'SCHEDULED', policyVersion: 1, rule: { kind: 'after_payment', delay: 'P3D' },
    scheduleOption: 1, transactionTime: o.transactionTime, maxEligibility: o.maxEligibility,
    targetEligibility: at('2022-12-05T16:00:00+05:30'), sendAt: at('2022-12-05T15:00:00+05:30'), releaseKey: 'rel-1', appliedEligibility: null,
    predictedSettlement: null, clamp: null, attempts: [], reason: null, settledAt: null, version: 1, updatedAt: o.transactionTime,
    ...overrides,
  };
}
