/**
 * Flow: API Gateway HTTP API (payload 2.0) → one of the changes' routes (settings, policies, holds, releases, four-eyes
 * decisions; definitions/api-routing.ts) → one use case → JSON answer or `{"error": ...}`.
 */
import { awsRuntime } from './dependencies';
import * as composition from '../composition/api';
import { makeRouteHandler, routesOf } from './api-router';
import { APPROVAL_DECISION_ROUTES } from './routes/approval-decisions';
import { CONFIG_CHANGE_ROUTES } from './routes/config-changes';
import { RELEASE_ROUTES } from './routes/releases';

export const API_ROUTES = routesOf('api', [...CONFIG_CHANGE_ROUTES, ...RELEASE_ROUTES, ...APPROVAL_DECISION_ROUTES]);

export const handler = makeRouteHandler(API_ROUTES, awsRuntime('api', composition));
