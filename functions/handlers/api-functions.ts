/**
 * The whole HTTP API in one handler, for the embedded default and the tests: each request answered by the handler of
 * the function that serves its route on AWS (definitions/api-routing.ts), with the same routes and the given
 * dependencies; a request no route matches goes where the HTTP API's catch-all sends it (404 or 405). Never bundled.
 */
import type { Context } from 'aws-lambda';
import { routeEntryOf, UNROUTED_FUNCTION, type RouteServer } from '../definitions/api-routing';
import type { DependencySource } from './dependencies';
import type { ApiEvent, ApiResult } from './http';
import type { HandlerMetrics } from './observability';
import { makeRouteHandler } from './api-router';
import { API_ROUTES } from './api';
import { API_READ_ROUTES } from './api-reads';
import { API_AUDIT_ROUTES } from './api-audit';
import { API_JOB_ROUTES } from './api-jobs';
import { API_VENDOR_ROUTES } from './api-vendors';
import { pagesRoutes } from './api-pages';
import { makeWebhookHandler } from './webhooks';
import { OPENAPI_DOCUMENT, ROUTES } from './routes';

/** Every route of contract section 6 (routes/index.ts). */
export { ROUTES, OPENAPI_DOCUMENT };

export type ApiHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

export function makeApiHandler(getDeps: DependencySource, metrics?: HandlerMetrics): ApiHandler {
  const handlers: Record<RouteServer, ApiHandler> = {
    api: makeRouteHandler(API_ROUTES, getDeps, metrics),
    apiReads: makeRouteHandler(API_READ_ROUTES, getDeps, metrics),
    apiJobs: makeRouteHandler(API_JOB_ROUTES, getDeps, metrics),
    apiAudit: makeRouteHandler(API_AUDIT_ROUTES, getDeps, metrics),
    apiVendors: makeRouteHandler(API_VENDOR_ROUTES, getDeps, metrics),
    apiPages: makeRouteHandler(pagesRoutes(() => OPENAPI_DOCUMENT), getDeps, metrics),
    webhooks: makeWebhookHandler(getDeps, metrics),
  };
  return (event, context) => {
    const entry = routeEntryOf(event.requestContext?.http?.method ?? '', event.rawPath ?? '');
    return handlers[entry?.serves ?? UNROUTED_FUNCTION](event, context);
  };
}
