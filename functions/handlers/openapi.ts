/**
 * The OpenAPI 3.1 document of Holdback's whole API (contract section 6), served at GET /openapi.json. It is generated:
 * each route's operation comes from the same schema that reads its requests (routes/*.ts with schema/route-schema.ts),
 * the shared shapes from schema/components.ts.
 */
export { OPENAPI_DOCUMENT } from './routes';
