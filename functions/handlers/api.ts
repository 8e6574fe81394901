/**
 * Flow: API Gateway HTTP API (payload 2.0) → one of the changes' routes (settings, policies, previews, holds, releases,
 * imports, four-eyes decisions; definitions/api-routing.ts) → one use case → JSON answer or `{"error": ...}`.
 */
import { awsRuntime } from './dependencies';
import * as composition from '../composition/api';
import { makeRouteHandler, routesOf } from './api-router';
import { APPROVAL_ROUTES } from './routes/approvals';
import { BASIC_ROUTES } from './routes/basics';
import { IMPORT_ROUTES } from './routes/imports';
import { PREVIEW_ROUTES } from './routes/previews';
import { RELEASE_ROUTES } from './routes/releases';

export const API_ROUTES = routesOf('api', [...BASIC_ROUTES, ...RELEASE_ROUTES, ...PREVIEW_ROUTES, ...IMPORT_ROUTES, ...APPROVAL_ROUTES]);

export const handler = makeRouteHandler(API_ROUTES, awsRuntime('api', composition));
