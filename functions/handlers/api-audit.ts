/** Flow: API Gateway HTTP API (payload 2.0) → a route of the audit log (definitions/api-routing.ts) → its answer. */
import { awsRuntime } from './dependencies';
import * as composition from '../composition/api-audit';
import { makeRouteHandler, routesOf } from './api-router';
import { collectStreamedBodies } from './streamed-body';
import { AUDIT_ROUTES } from './routes/audit';

export const API_AUDIT_ROUTES = routesOf('apiAudit', AUDIT_ROUTES);

/** On AWS a streamed body (the audit export's JSON lines) is collected, up to Lambda's response limit (see streamed-body.ts). */
export const handler = collectStreamedBodies(makeRouteHandler(API_AUDIT_ROUTES, awsRuntime('apiAudit', composition)) as Parameters<typeof collectStreamedBodies>[0]);
