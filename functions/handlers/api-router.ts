/**
 * One API function's handler (payload 2.0): its routes (definitions/api-routing.ts says which) → one use case → JSON
 * answer or `{"error": {code, message}}`; a request none of them takes is answered 404 or 405 from the route table.
 */
import middy from '@middy/core';
import httpRouter from '@middy/http-router';
import type { DependencySource } from './dependencies';
import { HttpError, jsonErrors, type ApiEvent, type ApiResult } from './http';
import { handlerDependencies, observed, type HandlerMetrics } from './observability';
import { callerOf } from './schema/caller';
import { methodsOn, routesServedBy, type RouteServer } from '../definitions/api-routing';
import type { ApiRoute } from './routes/route';

/** "No such route" (404) or "not with this method" (405, naming the methods that are). */
export function routeNotFound({ method, path }: { method: string; path: string }): never {
  const allowed = methodsOn(path);
  if (allowed.length > 0 && !allowed.includes(method)) {
    throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
  }
  throw new HttpError(404, 'route_not_found', `no route ${method} ${path}; see GET /openapi.json for every route`);
}

export function makeRouteHandler(routes: readonly ApiRoute[], getDeps: DependencySource, metrics?: HandlerMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  const router = httpRouter<ApiEvent, ApiResult>({
    // Each request's use cases see its caller (contract 6.4): the signed IAM principal, or local:unauthenticated. A
    // route without IAM (`security: []`, the gateway's signed webhook) has no person behind it: no caller.
    routes: routes.map((route) => {
      const unsigned = Array.isArray(route.operation?.security) && (route.operation.security as unknown[]).length === 0;
      return {
        method: route.method,
        path: route.path,
        handler: (event: ApiEvent) => route.run(event, unsigned ? deps : async () => ({ ...(await deps()), caller: callerOf(event) })),
      };
    }),
    notFoundResponse: routeNotFound,
  });
  return middy<ApiEvent, ApiResult>()
    .use(observed(metrics))
    .use(jsonErrors(async () => (await deps()).logger))
    .handler(router);
}

/**
 * Of `candidates` (route files' lists), the routes the table gives `server`, each once; a route of its in the table that
 * none of them defines stops the cold start (and the route table's test) instead of answering 404 on AWS.
 */
export function routesOf(server: RouteServer, candidates: readonly ApiRoute[]): ApiRoute[] {
  const mine = routesServedBy(server);
  const chosen = candidates.filter((route) => mine.some((entry) => entry.method === route.method && entry.path === route.path));
  const missing = mine.filter((entry) => !chosen.some((route) => route.method === entry.method && route.path === entry.path));
  if (missing.length > 0) throw new Error(`the ${server} function is given no code for ${missing.map((e) => `${e.method} ${e.path}`).join(', ')}: import the route's file in its handler (functions/handlers/)`);
  return chosen;
}
