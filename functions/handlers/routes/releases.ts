/** Money now, or not at all (contract 6): vendor hold and unhold, manual release of one vendor of one order, retry of a FAILED release. */
import { releaseManually, retryRelease, setVendorHold } from '../../application/releases/manage-releases';
import { json, jsonBodyOf, pathParameter } from '../http';
import type { ApiRoute } from './route';

const HOLD_EXAMPLE = '{"actor": "risk@example.com", "reason": "fraud review"}';
const RELEASE_EXAMPLE = '{"actor": "finance@example.com", "reason": "goods received", "at": "2022-12-06T09:00:00+05:30"}';
const RETRY_EXAMPLE = '{"actor": "ops@example.com", "reason": "gateway recovered"}';

export const RELEASE_ROUTES: ApiRoute[] = [
  {
    method: 'POST',
    path: '/vendors/{vendorId}/hold',
    run: async (e, deps) => json(200, await setVendorHold(await deps(), pathParameter(e, 'vendorId'), jsonBodyOf(e, HOLD_EXAMPLE), true)),
  },
  {
    method: 'POST',
    path: '/vendors/{vendorId}/unhold',
    run: async (e, deps) => json(200, await setVendorHold(await deps(), pathParameter(e, 'vendorId'), jsonBodyOf(e, HOLD_EXAMPLE), false)),
  },
  {
    method: 'POST',
    path: '/orders/{orderId}/vendors/{vendorId}/release',
    run: async (e, deps) => json(200, await releaseManually(await deps(), pathParameter(e, 'orderId'), pathParameter(e, 'vendorId'), jsonBodyOf(e, RELEASE_EXAMPLE))),
  },
  {
    method: 'POST',
    path: '/orders/{orderId}/vendors/{vendorId}/retry',
    run: async (e, deps) => json(200, await retryRelease(await deps(), pathParameter(e, 'orderId'), pathParameter(e, 'vendorId'), jsonBodyOf(e, RETRY_EXAMPLE))),
  },
];
