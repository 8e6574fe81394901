/** Flow: API Gateway HTTP API (payload 2.0) → one of the reads (definitions/api-routing.ts) → JSON or CSV answer. */
import { awsRuntime } from './dependencies';
import * as composition from '../composition/api-reads';
import { makeRouteHandler, routesOf } from './api-router';
import { collectStreamedBodies } from './streamed-body';
import { APPROVAL_ROUTES } from './routes/approvals';
import { BASIC_ROUTES } from './routes/basics';
import { OUTCOME_ROUTES } from './routes/outcomes';

export const API_READ_ROUTES = routesOf('apiReads', [...BASIC_ROUTES, ...OUTCOME_ROUTES, ...APPROVAL_ROUTES]);

/** On AWS a streamed body (the outcomes CSV) is collected, up to Lambda's response limit (see streamed-body.ts). */
export const handler = collectStreamedBodies(makeRouteHandler(API_READ_ROUTES, awsRuntime('apiReads', composition)) as Parameters<typeof collectStreamedBodies>[0]);
