/** GET /openapi.json: the OpenAPI document of every route. */
import { json } from '../http';
import { ok, responses } from '../schema/openapi-parts';
import { defineRoute } from '../schema/route-schema';
import type { ApiRoute } from './route';

/** The route serving `document()` (given by the route list, which the document describes). */
export function openApiRoute(document: () => unknown): ApiRoute {
  return defineRoute({
    method: 'GET', path: '/openapi.json', summary: 'This document',
    responses: responses({ 200: ok('OpenAPI 3.1.', { type: 'object' }) }),
    handle: async () => json(200, document()),
  });
}
