/** Every route of contract section 6, each area's in its own file, and the OpenAPI document built from their schemas. */
import { openApiDocument } from '../schema/openapi-document';
import { APPROVAL_ROUTES } from './approvals';
import { APPROVAL_DECISION_ROUTES } from './approval-decisions';
import { AUDIT_ROUTES } from './audit';
import { BASIC_ROUTES } from './basics';
import { CONFIG_CHANGE_ROUTES } from './config-changes';
import { CONSOLE_ROUTES } from './console';
import { GATEWAY_WEBHOOK_ROUTE } from './gateway-webhook';
import { IMPORT_ROUTES } from './imports';
import { JOB_ROUTES } from './jobs';
import { openApiRoute } from './openapi';
import { FORECAST_ROUTES, OUTCOMES_ROUTE } from './outcomes';
import { VENDOR_LIST_ROUTE } from './vendors';
import { PREVIEW_ROUTES } from './previews';
import { RELEASE_ROUTES } from './releases';
import type { ApiRoute } from './route';

export const ROUTES: ApiRoute[] = [
  ...BASIC_ROUTES,
  ...CONFIG_CHANGE_ROUTES,
  // Its own file: the webhooks function serves it (definitions/api-routing.ts), and the others carry none of its code.
  GATEWAY_WEBHOOK_ROUTE,
  ...AUDIT_ROUTES,
  ...CONSOLE_ROUTES,
  ...RELEASE_ROUTES,
  ...PREVIEW_ROUTES,
  ...IMPORT_ROUTES,
  OUTCOMES_ROUTE,
  VENDOR_LIST_ROUTE,
  ...FORECAST_ROUTES,
  ...JOB_ROUTES,
  ...APPROVAL_ROUTES,
  ...APPROVAL_DECISION_ROUTES,
  // Serves the document of every route listed here, itself included.
  openApiRoute(() => OPENAPI_DOCUMENT),
];

/** The OpenAPI 3.1 document, generated from the routes' schemas (served at GET /openapi.json). */
export const OPENAPI_DOCUMENT = openApiDocument(ROUTES);
