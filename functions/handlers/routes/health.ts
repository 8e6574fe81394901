/** GET /health: liveness, served by the pages function (definitions/api-routing.ts) with no dependency at all. */
import { json } from '../http';
import { ok, responses } from '../schema/openapi-parts';
import { defineRoute } from '../schema/route-schema';

export const HEALTH_ROUTE = defineRoute({
  method: 'GET', path: '/health', summary: 'Liveness',
  responses: responses({ 200: ok('Up.', { type: 'object', required: ['status'], properties: { status: { const: 'ok' } }, additionalProperties: false }) }),
  handle: async () => json(200, { status: 'ok' }),
});
