/**
 * Flow: API Gateway HTTP API (payload 2.0) → a route of the vendors at large (the vendor list, which may ask the
 * gateway; the policy CSV import: definitions/api-routing.ts) → one use case → JSON answer or `{"error": ...}`.
 */
import { awsRuntime } from './dependencies';
import * as composition from '../composition/api-vendors';
import { makeRouteHandler, routesOf } from './api-router';
import { IMPORT_ROUTES } from './routes/imports';
import { VENDOR_LIST_ROUTE } from './routes/vendors';

export const API_VENDOR_ROUTES = routesOf('apiVendors', [VENDOR_LIST_ROUTE, ...IMPORT_ROUTES]);

export const handler = makeRouteHandler(API_VENDOR_ROUTES, awsRuntime('apiVendors', composition));
