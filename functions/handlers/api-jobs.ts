/**
 * Flow: API Gateway HTTP API (payload 2.0) → a route of the work that may run as a job (jobs, exports, previews:
 * definitions/api-routing.ts) → its answer.
 */
import { awsRuntime } from './dependencies';
import * as composition from '../composition/api-jobs';
import { makeRouteHandler, routesOf } from './api-router';
import { collectStreamedBodies } from './streamed-body';
import { JOB_ROUTES } from './routes/jobs';
import { PREVIEW_ROUTES } from './routes/previews';

export const API_JOB_ROUTES = routesOf('apiJobs', [...JOB_ROUTES, ...PREVIEW_ROUTES]);

/** On AWS a streamed body (an export file served locally) is collected, up to Lambda's response limit (see streamed-body.ts). */
export const handler = collectStreamedBodies(makeRouteHandler(API_JOB_ROUTES, awsRuntime('apiJobs', composition)) as Parameters<typeof collectStreamedBodies>[0]);
