/**
 * Flow: API Gateway HTTP API (payload 2.0) → the console's page and assets, the OpenAPI document, the liveness check,
 * or (the catch-all route) a request no route matches, answered 404 or 405 from the route table. It reads no table and
 * loads no AWS client: the document is the file its bundling wrote (bin/build-openapi.ts), not every route's code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dependencies } from '../application/ports';
import { Instant } from '../domain/instant';
import { LambdaLogger } from '../adapters/logging/powertools-logger';
import { SecretScrubber } from '../adapters/secrets/gateway-credentials';
import { BUILT_OPENAPI_FILE } from '../definitions/openapi-build';
import { routeEntryOf } from '../definitions/api-routing';
import { makeRouteHandler } from './api-router';
import { HttpError, json, type ApiEvent, type ApiResult } from './http';
import { CONSOLE_ROUTES } from './routes/console';
import { HEALTH_ROUTE } from './routes/health';
import { openApiRoute } from './routes/openapi';
import type { ApiRoute } from './routes/route';

/** The pages' routes, the OpenAPI document given (locally the one the routes make; on AWS the built file). */
export function pagesRoutes(document: () => unknown): ApiRoute[] {
  return [HEALTH_ROUTE, ...CONSOLE_ROUTES, openApiRoute(document)];
}

let built: unknown = null;
/** The document written beside this bundle at synth time, read at its first request. */
function builtOpenApiDocument(): unknown {
  if (built === null) {
    try {
      built = JSON.parse(readFileSync(join(__dirname, BUILT_OPENAPI_FILE), 'utf8'));
    } catch (error) {
      throw new HttpError(503, 'openapi_unavailable', `this runtime carries no built OpenAPI document (${error instanceof Error ? error.message.split('\n')[0] : 'unreadable'}); the stack's bundling writes it (bin/build-openapi.ts), locally \`npm start\` serves it`);
    }
  }
  return built;
}

/** All the pages use of Dependencies: the clock (`GET /console/clock`) and the logger (errors). */
export function pagesDependencies(): Dependencies {
  return { clock: { now: () => Instant.now() }, logger: new LambdaLogger(new SecretScrubber()) } as Partial<Dependencies> as Dependencies;
}

/**
 * A route's path sent with a trailing slash: the HTTP API matches routes exactly, so on AWS it reaches the catch-all
 * (here), while the local API (which matches the route table with an optional slash) serves it. Both must answer alike,
 * so it is sent on to the route without the slash, method, body and query kept (308 Permanent Redirect), and says so.
 */
export function trailingSlashRedirect(event: Pick<ApiEvent, 'rawPath' | 'rawQueryString' | 'requestContext'>): ApiResult | undefined {
  const method = event.requestContext?.http?.method ?? '';
  const path = event.rawPath ?? '';
  if (path.length < 2 || !path.endsWith('/') || !routeEntryOf(method, path)) return undefined;
  const canonical = path.replace(/\/+$/, '');
  const location = event.rawQueryString ? `${canonical}?${event.rawQueryString}` : canonical;
  return json(308, { error: { code: 'trailing_slash', message: `${method} ${path} is served at ${canonical}, without the trailing slash: send the request there (this answer's location)` } }, { location });
}

const routed = makeRouteHandler(pagesRoutes(builtOpenApiDocument), pagesDependencies);

export const handler = async (event: ApiEvent, context: Parameters<typeof routed>[1]): Promise<ApiResult> =>
  trailingSlashRedirect(event) ?? routed(event, context);
