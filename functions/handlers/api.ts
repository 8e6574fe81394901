/** Flow: API Gateway HTTP API (payload 2.0) → route → one use case → JSON answer or `{"error": {code, message}}`. */
import middy from '@middy/core';
import httpRouter from '@middy/http-router';
import { nonSendingRuntimeDependencies, type DependencySource } from './dependencies';
import { HttpError, jsonErrors, type ApiEvent, type ApiResult } from './http';
import { AUDIT_ROUTES } from './routes/audit';
import { BASIC_ROUTES } from './routes/basics';
import { CONSOLE_ROUTES } from './routes/console';
import { RELEASE_ROUTES } from './routes/releases';
import { PREVIEW_ROUTES } from './routes/previews';
import { IMPORT_ROUTES } from './routes/imports';
import { OUTCOME_ROUTES } from './routes/outcomes';
import { JOB_ROUTES } from './routes/jobs';
import { OPENAPI_ROUTES } from './routes/openapi';
import type { ApiRoute } from './routes/route';
import { lambdaMetrics, handlerDependencies, observed } from './observability';
import type { PowertoolsReleaseMetrics } from '../adapters/metrics/powertools-metrics';
import { collectStreamedBodies } from './streamed-body';
import { callerOf } from './caller';
import { APPROVAL_ROUTES } from './routes/approvals';

/** Every route of contract section 6; each area keeps its routes in its own file under routes/. */
export const ROUTES: ApiRoute[] = [
  ...BASIC_ROUTES,
  ...AUDIT_ROUTES,
  ...CONSOLE_ROUTES,
  ...RELEASE_ROUTES,
  ...PREVIEW_ROUTES,
  ...IMPORT_ROUTES,
  ...OUTCOME_ROUTES,
  ...JOB_ROUTES,
  ...APPROVAL_ROUTES,
  ...OPENAPI_ROUTES,
];

/** The same patterns the router uses, to tell "no such route" (404) from "not with this method" (405). */
const PATTERNS = ROUTES.map((r) => ({ method: r.method, regex: new RegExp(`^${r.path.replace(/\{[^/]+\}/g, '[^/]+')}/?$`) }));

function routeNotFound({ method, path }: { method: string; path: string }): never {
  const allowed = [...new Set(PATTERNS.filter((p) => p.regex.test(path)).map((p) => p.method))];
  if (allowed.length > 0) {
    throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
  }
  throw new HttpError(404, 'route_not_found', `no route ${method} ${path}; see GET /openapi.json for every route`);
}

export function makeApiHandler(getDeps: DependencySource, metrics?: PowertoolsReleaseMetrics) {
  const deps = handlerDependencies(getDeps, metrics);
  const router = httpRouter<ApiEvent, ApiResult>({
    // Each request's use cases see its caller (contract 6.4): the signed IAM principal, or local:unauthenticated.
    routes: ROUTES.map((route) => ({
      method: route.method,
      path: route.path,
      handler: (event: ApiEvent) => route.run(event, async () => ({ ...(await deps()), caller: callerOf(event) })),
    })),
    notFoundResponse: routeNotFound,
  });
  return middy<ApiEvent, ApiResult>()
    .use(observed(deps, metrics))
    .use(jsonErrors(async () => (await deps()).logger))
    .handler(router);
}

/** On AWS a streamed body (the outcomes CSV) is collected, up to Lambda's response limit (see streamed-body.ts). */
export const handler = collectStreamedBodies(makeApiHandler(nonSendingRuntimeDependencies, lambdaMetrics()) as Parameters<typeof collectStreamedBodies>[0]);
