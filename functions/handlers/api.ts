/** Flow: API Gateway HTTP API (payload 2.0) → route → one use case → JSON answer or `{"error": {code, message}}`. */
import { GATEWAY_WEBHOOK_PATH } from '../routing';
import middy from '@middy/core';
import httpRouter, { type Method } from '@middy/http-router';
import { handleGatewayWebhook } from '../application/handle-gateway-webhook';
import { listRejectedEvents } from '../application/list-rejected-events';
import { getPolicy, policyHistory, putPolicy } from '../application/manage-policies';
import { getSettings, settingsHistory, updateSettings } from '../application/manage-settings';
import { predictSettlementAt } from '../application/predict-settlement';
import { viewOrder } from '../application/view-order';
import type { Dependencies } from '../application/ports';
import { lazyDependencies, runtimeDependencies, type DependencySource } from './dependencies';
import { HttpError, json, jsonBodyOf, jsonErrors, pathParameter, rawBodyOf, type ApiEvent, type ApiResult } from './http';

interface ApiRoute {
  method: Exclude<Method, 'ANY'>;
  path: string;
  run: (event: ApiEvent, deps: () => Promise<Dependencies>) => Promise<ApiResult>;
}

const POLICY_EXAMPLE = '{"scheduleOption": 1, "release": {"kind": "after_delivery", "delay": "P2D"}, "actor": "finance@example.com", "reason": "trusted vendor"}';

/** The routes of contract section 6 that exist so far. */
const ROUTES: ApiRoute[] = [
  { method: 'GET', path: '/health', run: async () => json(200, { status: 'ok' }) },
  { method: 'GET', path: '/settings', run: async (_e, deps) => json(200, await getSettings(await deps())) },
  { method: 'PUT', path: '/settings', run: async (e, deps) => json(200, await updateSettings(await deps(), jsonBodyOf(e, '{"deferByDays": 15}'))) },
  { method: 'GET', path: '/settings/history', run: async (_e, deps) => json(200, { versions: await settingsHistory(await deps()) }) },
  { method: 'GET', path: '/vendors/{vendorId}/policy', run: async (e, deps) => json(200, await getPolicy(await deps(), pathParameter(e, 'vendorId'))) },
  {
    method: 'PUT',
    path: '/vendors/{vendorId}/policy',
    run: async (e, deps) => json(200, await putPolicy(await deps(), pathParameter(e, 'vendorId'), jsonBodyOf(e, POLICY_EXAMPLE))),
  },
  {
    method: 'GET',
    path: '/vendors/{vendorId}/policy/history',
    run: async (e, deps) => {
      const vendorId = pathParameter(e, 'vendorId');
      return json(200, { vendorId, versions: await policyHistory(await deps(), vendorId) });
    },
  },
  { method: 'GET', path: '/orders/{orderId}', run: async (e, deps) => json(200, await viewOrder(await deps(), pathParameter(e, 'orderId'))) },
  {
    method: 'POST',
    path: '/predictions',
    run: async (e, deps) => json(200, await predictSettlementAt(await deps(), jsonBodyOf(e, '{"eligibility": "2022-12-06 09:00:00", "scheduleOption": 1}'))),
  },
  {
    method: 'GET',
    path: '/rejected-events',
    run: async (e, deps) => json(200, { rejectedEvents: await listRejectedEvents(await deps(), e.queryStringParameters?.limit) }),
  },
  {
    method: 'POST',
    path: GATEWAY_WEBHOOK_PATH,
    run: async (e, deps) => {
      const result = await handleGatewayWebhook(await deps(), { headers: lowerCased(e.headers), rawBody: rawBodyOf(e) });
      return json(200, result);
    },
  },
];

/** The same patterns the router uses, to tell "no such route" (404) from "not with this method" (405). */
const PATTERNS = ROUTES.map((r) => ({ method: r.method, regex: new RegExp(`^${r.path.replace(/\{[^/]+\}/g, '[^/]+')}/?$`) }));

function routeNotFound({ method, path }: { method: string; path: string }): never {
  const allowed = [...new Set(PATTERNS.filter((p) => p.regex.test(path)).map((p) => p.method))];
  if (allowed.length > 0) {
    throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
  }
  throw new HttpError(404, 'route_not_found', `no route ${method} ${path}; see the API routes in the README`);
}

export function makeApiHandler(getDeps: DependencySource) {
  const deps = lazyDependencies(getDeps);
  const router = httpRouter<ApiEvent, ApiResult>({
    routes: ROUTES.map((route) => ({ method: route.method, path: route.path, handler: (event: ApiEvent) => route.run(event, deps) })),
    notFoundResponse: routeNotFound,
  });
  return middy<ApiEvent, ApiResult>()
    .use(jsonErrors(async () => (await deps()).logger))
    .handler(router);
}

function lowerCased(headers: ApiEvent['headers']): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

export const handler = makeApiHandler(runtimeDependencies);
