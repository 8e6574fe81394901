/**
 * GET /vendors: the vendors Holdback knows, each with its policy and hold, and with `checkGateway=true` the gateway's
 * own schedule option for each: served by the function that holds the gateway's credentials (definitions/api-routing.ts).
 */
import { VENDOR_CURSOR_LIST, VENDOR_LIMIT, listVendors } from '../../application/reads/read-vendors';
import { json } from '../http';
import { ok, page, ref, responses } from '../schema/openapi-parts';
import { count, cursor, flag } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import type { ApiRoute } from './route';

export const VENDOR_LIST_ROUTE: ApiRoute = defineRoute({
  method: 'GET', path: '/vendors', summary: 'Vendors Holdback knows, with policy version and hold',
  query: { limit: count(VENDOR_LIMIT.min, VENDOR_LIMIT.max, VENDOR_LIMIT.default, 'Page size.'), cursor: cursor(VENDOR_CURSOR_LIST), checkGateway: flag(false, "true: ask the gateway for each vendor's schedule option too.") },
  responses: responses({ 200: ok('A page.', page('items', ref('VendorSummary'))) }, { 400: 'Bad limit, cursor or checkGateway.' }),
  handle: async ({ query }, deps) => json(200, await listVendors(await deps(), { limit: query.limit, after: query.cursor, checkGateway: query.checkGateway })),
});
