/** Money now, or not at all (contract 6): vendor hold and unhold, manual release of one vendor of one order, retry of a FAILED release. */
import { releaseManually, retryRelease, setVendorHold } from '../../application/releases/manage-releases';
import { json } from '../http';
import { APPROVAL_REQUIRED, ok, ref, responses } from '../schema/openapi-parts';
import { id } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import { HOLD_BODY, RELEASE_BODY, RETRY_BODY, UNHOLD_BODY } from '../schema/release-bodies';
import type { ApiRoute } from './route';

const vendorId = { vendorId: id('vendor_a') };
const orderAndVendor = { orderId: id('order_1001'), vendorId: id('vendor_a') };

export const RELEASE_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'POST', path: '/vendors/{vendorId}/hold', summary: "Hold a vendor's money (nothing sent until unhold); repeating it answers 200 again", params: vendorId,
    body: HOLD_BODY,
    responses: responses({ 200: ok('The hold and how many releases it held.', ref('HoldAnswer')) }, { 400: 'A field is wrong.', 404: 'A vendor Holdback does not know (no policy, hold or order).' }),
    handle: async ({ params, body }, deps) => json(200, await setVendorHold(await deps(), params.vendorId, body, true)),
  }),
  defineRoute({
    method: 'POST', path: '/vendors/{vendorId}/unhold', summary: 'Release a vendor hold; its releases are planned again', params: vendorId,
    body: UNHOLD_BODY,
    responses: responses({ 200: ok('The unhold and how many releases were planned again.', ref('HoldAnswer')), 202: APPROVAL_REQUIRED }, { 400: 'A field is wrong.', 404: 'A vendor Holdback does not know.', 409: 'hold_source: the hold was placed by a stronger source than the one sent (the message names it and what to send).' }),
    handle: async ({ params, body }, deps) => json(200, await setVendorHold(await deps(), params.vendorId, body, false)),
  }),
  defineRoute({
    method: 'POST', path: '/orders/{orderId}/vendors/{vendorId}/release', summary: 'Manual early release of one vendor of one order', params: orderAndVendor,
    body: RELEASE_BODY,
    responses: responses({ 200: ok('The release as planned now.', ref('Release')), 202: APPROVAL_REQUIRED }, { 400: 'A field is wrong: at in the past without confirmPast, or outside the window [transaction time, max eligibility].', 404: 'Unknown order or vendor.', 409: 'invalid_state: the state does not allow a manual release (named in the message).' }),
    handle: async ({ params, body }, deps) => json(200, await releaseManually(await deps(), params.orderId, params.vendorId, body)),
  }),
  defineRoute({
    method: 'POST', path: '/orders/{orderId}/vendors/{vendorId}/retry', summary: 'Retry a FAILED release while its window is open', params: orderAndVendor,
    body: RETRY_BODY,
    responses: responses({ 200: ok('The release as planned now.', ref('Release')) }, { 400: 'A field is wrong.', 404: 'Unknown order or vendor.', 409: 'invalid_state: only a FAILED release with its window open can be retried.' }),
    handle: async ({ params, body }, deps) => json(200, await retryRelease(await deps(), params.orderId, params.vendorId, body)),
  }),
];
