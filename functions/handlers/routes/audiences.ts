/**
 * Who may call each API route on AWS: the CDK stack turns this into the finance and auditor managed policies, and a
 * test checks that every route of the API has an audience here (so a new route cannot be left out or left open).
 */

/**
 * `read`: finance, auditors and checkers; `finance`: changes money or configuration; `approve`: decides another
 * person's pending change (four eyes, contract 6.4); `audit`: auditors' proofs; `gateway`: the gateway's signed
 * webhook (no IAM).
 */
export type Audience = 'read' | 'finance' | 'approve' | 'audit' | 'gateway';

/** Method and path as in routes/*.ts (`{name}` parameters). */
export const ROUTE_AUDIENCES: { method: string; path: string; audience: Audience }[] = [
  { method: 'GET', path: '/health', audience: 'read' },
  { method: 'GET', path: '/openapi.json', audience: 'read' },
  { method: 'GET', path: '/console', audience: 'read' },
  { method: 'GET', path: '/console/{asset}', audience: 'read' },
  { method: 'GET', path: '/settings', audience: 'read' },
  { method: 'GET', path: '/settings/history', audience: 'read' },
  { method: 'GET', path: '/vendors', audience: 'read' },
  { method: 'GET', path: '/vendors/{vendorId}/policy', audience: 'read' },
  { method: 'GET', path: '/vendors/{vendorId}/policy/history', audience: 'read' },
  { method: 'GET', path: '/vendors/{vendorId}/forecast', audience: 'read' },
  { method: 'GET', path: '/orders/{orderId}', audience: 'read' },
  { method: 'GET', path: '/orders/{orderId}/timeline', audience: 'read' },
  { method: 'GET', path: '/outcomes', audience: 'read' },
  { method: 'GET', path: '/forecast', audience: 'read' },
  { method: 'GET', path: '/alerts/held-settling', audience: 'read' },
  { method: 'GET', path: '/reports/prediction-accuracy', audience: 'read' },
  { method: 'GET', path: '/rejected-events', audience: 'read' },
  { method: 'POST', path: '/predictions', audience: 'read' },
  { method: 'GET', path: '/jobs', audience: 'read' },
  { method: 'GET', path: '/jobs/{jobId}', audience: 'read' },
  // Exports are reads of any size: finance and auditors alike (what they hold is what GET /outcomes and /audit/export show).
  { method: 'POST', path: '/exports', audience: 'read' },
  { method: 'GET', path: '/exports/{file}', audience: 'read' },
  // Stopping bulk work in progress is a change (a hold's or an apply's job stops half-way): finance only.
  { method: 'POST', path: '/jobs/{jobId}/cancel', audience: 'finance' },
  { method: 'PUT', path: '/settings', audience: 'finance' },
  { method: 'POST', path: '/settings/preview', audience: 'finance' },
  { method: 'PUT', path: '/vendors/{vendorId}/policy', audience: 'finance' },
  { method: 'POST', path: '/vendors/{vendorId}/policy/preview', audience: 'finance' },
  { method: 'POST', path: '/vendors/{vendorId}/hold', audience: 'finance' },
  { method: 'POST', path: '/vendors/{vendorId}/unhold', audience: 'finance' },
  { method: 'POST', path: '/orders/{orderId}/vendors/{vendorId}/release', audience: 'finance' },
  { method: 'POST', path: '/orders/{orderId}/vendors/{vendorId}/retry', audience: 'finance' },
  { method: 'POST', path: '/policies/import', audience: 'finance' },
  { method: 'GET', path: '/whoami', audience: 'read' },
  { method: 'GET', path: '/approvals', audience: 'read' },
  { method: 'GET', path: '/approvals/{approvalId}', audience: 'read' },
  { method: 'POST', path: '/approvals/{approvalId}/approve', audience: 'approve' },
  { method: 'POST', path: '/approvals/{approvalId}/reject', audience: 'approve' },
  { method: 'GET', path: '/audit/verify', audience: 'audit' },
  { method: 'POST', path: '/audit/verifications', audience: 'audit' },
  { method: 'GET', path: '/audit/export', audience: 'audit' },
  { method: 'GET', path: '/audit/public-key', audience: 'audit' },
  { method: 'GET', path: '/audit/public-keys', audience: 'audit' },
  { method: 'GET', path: '/audit/checkpoints', audience: 'audit' },
  { method: 'GET', path: '/audit/proof', audience: 'audit' },
  { method: 'POST', path: '/webhooks/gateway', audience: 'gateway' },
];

/**
 * The managed policies' audiences: finance reads and changes; auditors read and prove; checkers read and approve or
 * reject others' pending changes and change nothing themselves; none does another's part. (A finance user may also
 * hold the checker policy: the requester of a change still never approves it, as the API checks the principal.)
 */
export const ROLE_AUDIENCES = {
  finance: ['read', 'finance'],
  auditor: ['read', 'audit'],
  checker: ['read', 'approve'],
} as const satisfies Record<string, Audience[]>;
