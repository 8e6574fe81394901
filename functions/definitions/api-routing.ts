/**
 * The HTTP API's route table, the one place that says which Lambda function serves each route of contract section 6
 * and who may call it: the CDK stack gives each function its routes on the HTTP API (lib/holdback-api.ts) and turns the
 * audiences into the managed policies; the embedded default answers each route through the function that serves it
 * on AWS (functions/handlers/api-functions.ts); and a test fails if a route has no function or two.
 */

/**
 * `read`: finance, auditors and checkers; `finance`: changes money or configuration; `approve`: decides another
 * person's pending change (four eyes, contract 6.4); `audit`: auditors' proofs; `gateway`: the gateway's signed
 * webhook (no IAM).
 */
export type Audience = 'read' | 'finance' | 'approve' | 'audit' | 'gateway';

/**
 * The API's functions, each bundling only its routes' code and clients (README "Cold starts"): `api` the changes
 * (settings, policies, holds, releases, four-eyes decisions: Scheduler, SQS, the gateway's reads); `apiReads` the other
 * reads (DynamoDB alone); `apiJobs` the work that may run as a job: jobs, exports and previews (a preview beyond one
 * answer is a job; SQS); `apiAudit` the audit log (S3, KMS, and SQS for a verification job); `apiVendors` the vendors
 * at large: their list (which may ask the gateway) and the policy CSV import (csv-parse, a fifth of the changes'
 * bundle before it moved here); `apiPages` the console, the OpenAPI document (built at synth time) and every request
 * no route matches (404 or 405, from this table). The gateway's signed webhook is the webhooks function's, on the API
 * as on its URL.
 */
export const API_FUNCTIONS = ['api', 'apiReads', 'apiJobs', 'apiAudit', 'apiVendors', 'apiPages'] as const;
export type ApiFunction = (typeof API_FUNCTIONS)[number];
/** What serves a route: one of the API's functions, or the webhooks function (the gateway's webhook route). */
export type RouteServer = ApiFunction | 'webhooks';
/** The function the HTTP API's catch-all route (`ANY /{proxy+}`) reaches: it answers 404 or 405 from this table. */
export const UNROUTED_FUNCTION: ApiFunction = 'apiPages';

export interface RouteEntry {
  /** Method and path as in functions/handlers/routes/*.ts (`{name}` parameters). */
  method: string;
  path: string;
  audience: Audience;
  serves: RouteServer;
}

export const API_ROUTE_TABLE: readonly RouteEntry[] = [
  { method: 'GET', path: '/health', audience: 'read', serves: 'apiPages' },
  { method: 'GET', path: '/openapi.json', audience: 'read', serves: 'apiPages' },
  { method: 'GET', path: '/console', audience: 'read', serves: 'apiPages' },
  { method: 'GET', path: '/console/{asset}', audience: 'read', serves: 'apiPages' },
  { method: 'GET', path: '/settings', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/settings/history', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/vendors', audience: 'read', serves: 'apiVendors' },
  { method: 'GET', path: '/vendors/{vendorId}/policy', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/vendors/{vendorId}/policy/history', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/vendors/{vendorId}/forecast', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/orders/{orderId}', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/orders/{orderId}/timeline', audience: 'read', serves: 'apiAudit' },
  { method: 'GET', path: '/outcomes', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/forecast', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/alerts/held-settling', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/reports/prediction-accuracy', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/rejected-events', audience: 'read', serves: 'apiReads' },
  { method: 'POST', path: '/predictions', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/jobs', audience: 'read', serves: 'apiJobs' },
  { method: 'GET', path: '/jobs/{jobId}', audience: 'read', serves: 'apiJobs' },
  // Exports are reads of any size: finance and auditors alike (what they hold is what GET /outcomes and /audit/export show).
  { method: 'POST', path: '/exports', audience: 'read', serves: 'apiJobs' },
  { method: 'GET', path: '/exports/{file}', audience: 'read', serves: 'apiJobs' },
  // Stopping bulk work in progress is a change (a hold's or an apply's job stops half-way): finance only.
  { method: 'POST', path: '/jobs/{jobId}/cancel', audience: 'finance', serves: 'apiJobs' },
  { method: 'PUT', path: '/settings', audience: 'finance', serves: 'api' },
  { method: 'POST', path: '/settings/preview', audience: 'finance', serves: 'apiJobs' },
  { method: 'PUT', path: '/vendors/{vendorId}/policy', audience: 'finance', serves: 'api' },
  { method: 'POST', path: '/vendors/{vendorId}/policy/preview', audience: 'finance', serves: 'apiJobs' },
  { method: 'POST', path: '/vendors/{vendorId}/hold', audience: 'finance', serves: 'api' },
  { method: 'POST', path: '/vendors/{vendorId}/unhold', audience: 'finance', serves: 'api' },
  { method: 'POST', path: '/orders/{orderId}/vendors/{vendorId}/release', audience: 'finance', serves: 'api' },
  { method: 'POST', path: '/orders/{orderId}/vendors/{vendorId}/retry', audience: 'finance', serves: 'api' },
  { method: 'POST', path: '/policies/import', audience: 'finance', serves: 'apiVendors' },
  { method: 'GET', path: '/whoami', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/approvals', audience: 'read', serves: 'apiReads' },
  { method: 'GET', path: '/approvals/{approvalId}', audience: 'read', serves: 'apiReads' },
  { method: 'POST', path: '/approvals/{approvalId}/approve', audience: 'approve', serves: 'api' },
  { method: 'POST', path: '/approvals/{approvalId}/reject', audience: 'approve', serves: 'api' },
  { method: 'GET', path: '/audit/verify', audience: 'audit', serves: 'apiAudit' },
  { method: 'POST', path: '/audit/verifications', audience: 'audit', serves: 'apiAudit' },
  { method: 'GET', path: '/audit/export', audience: 'audit', serves: 'apiAudit' },
  { method: 'GET', path: '/audit/public-key', audience: 'audit', serves: 'apiAudit' },
  { method: 'GET', path: '/audit/public-keys', audience: 'audit', serves: 'apiAudit' },
  { method: 'GET', path: '/audit/checkpoints', audience: 'audit', serves: 'apiAudit' },
  { method: 'GET', path: '/audit/proof', audience: 'audit', serves: 'apiAudit' },
  { method: 'POST', path: '/webhooks/gateway', audience: 'gateway', serves: 'webhooks' },
];

/** A route's path as a pattern: `{name}` one segment, an optional trailing slash (as the router matches it). */
function patternOf(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{[^/]+\}/g, '[^/]+')}/?$`);
}

const PATTERNS = API_ROUTE_TABLE.map((entry) => ({ entry, regex: patternOf(entry.path) }));

/** The table's entry of a request (method and path as sent), or undefined: no route (404) or not this method (405). */
export function routeEntryOf(method: string, path: string): RouteEntry | undefined {
  return PATTERNS.find((p) => p.entry.method === method && p.regex.test(path))?.entry;
}

/** The methods some route answers on `path`, for a 405's `allow`; empty: no route there at all (404). */
export function methodsOn(path: string): string[] {
  return [...new Set(PATTERNS.filter((p) => p.regex.test(path)).map((p) => p.entry.method))];
}

/** The routes `server` serves, in the table's order. */
export function routesServedBy(server: RouteServer): RouteEntry[] {
  return API_ROUTE_TABLE.filter((entry) => entry.serves === server);
}
