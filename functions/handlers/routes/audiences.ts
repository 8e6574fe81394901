/**
 * Who may call each API route on AWS: the CDK stack turns this into the finance and auditor managed policies, and a
 * test checks that every route of the API has an audience here (so a new route cannot be left out or left open).
 */

import { API_ROUTE_TABLE, type Audience } from '../../definitions/api-routing';

export type { Audience };

/** Method and path as in routes/*.ts (`{name}` parameters), from the route table (definitions/api-routing.ts). */
export const ROUTE_AUDIENCES: { method: string; path: string; audience: Audience }[] = API_ROUTE_TABLE.map(({ method, path, audience }) => ({ method, path, audience }));

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
