/** The OpenAPI 3.1 document of Holdback's whole API (contract section 6): each route's operation, from its schema, and the shared components. */
import type { ApiRoute } from '../routes/route';
import { COMPONENTS } from './components';
import type { Json } from './openapi-parts';

/** Paths use API Gateway's `{name}` parameters, as the router does; a route without an operation is left out (and the OpenAPI test names it). */
export function openApiDocument(routes: readonly ApiRoute[]) {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    if (route.operation) (paths[route.path] ??= {})[route.method.toLowerCase()] = route.operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Holdback API',
      version: '1.0.0',
      description: "Holdback turns the gateway's per-order vendor settlement-eligibility PUT into a policy engine. JSON in and out; "
        + 'errors are `{"error": {"code", "message"}}` naming the field and what to send. Times are ISO 8601 with the settings\' '
        + 'timezone offset; amounts are decimal text. Locally at http://127.0.0.1:4000; on AWS an HTTP API with IAM (SigV4) '
        + 'authorisation on every route; the gateway\'s signed webhooks go to the stack output `WebhookUrl` instead.',
    },
    servers: [{ url: 'http://127.0.0.1:4000', description: 'The embedded default (npm start)' }],
    security: [{ sigv4: [] }],
    paths,
    components: {
      schemas: COMPONENTS,
      securitySchemes: { sigv4: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'AWS SigV4, service execute-api (IAM authorisation of the HTTP API).' } },
    },
  } as const;
}
