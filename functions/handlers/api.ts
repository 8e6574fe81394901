/**
 * Flow: API Gateway HTTP API (payload 2.0) → one of the changes' routes (settings, policies, previews, holds, releases,
 * imports, four-eyes decisions, and the vendor list, which may ask the gateway; definitions/api-routing.ts) → one use case → JSON answer or `{"error": ...}`.
 */
import { awsRuntime } from './dependencies';
import * as composition from '../composition/api';
import { makeRouteHandler, routesOf } from './api-router';
import { APPROVAL_DECISION_ROUTES } from './routes/approval-decisions';
import { CONFIG_CHANGE_ROUTES } from './routes/config-changes';
import { IMPORT_ROUTES } from './routes/imports';
import { PREVIEW_ROUTES } from './routes/previews';
import { RELEASE_ROUTES } from './routes/releases';
import { VENDOR_LIST_ROUTE } from './routes/vendors';

export const API_ROUTES = routesOf('api', [...CONFIG_CHANGE_ROUTES, ...RELEASE_ROUTES, ...PREVIEW_ROUTES, ...IMPORT_ROUTES, ...APPROVAL_DECISION_ROUTES, VENDOR_LIST_ROUTE]);

export const handler = makeRouteHandler(API_ROUTES, awsRuntime('api', composition));
