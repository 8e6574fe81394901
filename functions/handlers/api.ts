/** Flow: API Gateway HTTP API (payload 2.0) → route → one use case → JSON answer or `{"error": {code, message}}`. */
import middy from '@middy/core';
import httpRouter from '@middy/http-router';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/api';
import { HttpError, jsonErrors, type ApiEvent, type ApiResult } from './http';
import { ROUTES } from './routes';
import { lambdaMetrics, handlerDependencies, observed, type HandlerMetrics } from './observability';
import { collectStreamedBodies } from './streamed-body';
import { callerOf } from './caller';

/** Every route of contract section 6 (routes/index.ts: each area keeps its routes in its own file under routes/). */
export { ROUTES };

/** The same patterns the router uses, to tell "no such route" (404) from "not with this method" (405). */
const PATTERNS = ROUTES.map((r) => ({ method: r.method, regex: new RegExp(`^${r.path.replace(/\{[^/]+\}/g, '[^/]+')}/?$`) }));

function routeNotFound({ method, path }: { method: string; path: string }): never {
  const allowed = [...new Set(PATTERNS.filter((p) => p.regex.test(path)).map((p) => p.method))];
  if (allowed.length > 0) {
    throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
  }
  throw new HttpError(404, 'route_not_found', `no route ${method} ${path}; see GET /openapi.json for every route`);
}

export function makeApiHandler(getDeps: DependencySource, metrics?: HandlerMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  const router = httpRouter<ApiEvent, ApiResult>({
    // Each request's use cases see its caller (contract 6.4): the signed IAM principal, or local:unauthenticated. A
    // route without IAM (`security: []`, the gateway's signed webhook) has no person behind it: no caller.
    routes: ROUTES.map((route) => {
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

/** On AWS a streamed body (the outcomes CSV) is collected, up to Lambda's response limit (see streamed-body.ts). */
export const handler = collectStreamedBodies(makeApiHandler(awsRuntime('api', composition), lambdaMetrics()) as Parameters<typeof collectStreamedBodies>[0]);
