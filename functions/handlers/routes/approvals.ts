/**
 * Controls (contract 6.4): who the caller is, and four eyes: list approvals by state, one approval, approve and reject
 * (another person, with a reason).
 */
import { decideApproval, getApproval, listApprovals } from '../../application/approvals/manage-approvals';
import { json, jsonBodyOf, pathParameter } from '../http';
import { callerOf } from '../caller';
import type { ApiRoute } from './route';

const DECISION_EXAMPLE = '{"reason": "checked the delivery proof", "actor": "checker@example.com"}';

export const APPROVAL_ROUTES: ApiRoute[] = [
  {
    method: 'GET',
    path: '/whoami',
    run: async (e) => {
      const { principal, name, authenticated } = callerOf(e);
      return json(200, { principal, name, authenticated });
    },
  },
  {
    method: 'GET',
    path: '/approvals',
    run: async (e, deps) => {
      const q = e.queryStringParameters ?? {};
      return json(200, await listApprovals(await deps(), { state: q.state, limit: q.limit, cursor: q.cursor }));
    },
  },
  { method: 'GET', path: '/approvals/{approvalId}', run: async (e, deps) => json(200, await getApproval(await deps(), pathParameter(e, 'approvalId'))) },
  {
    method: 'POST',
    path: '/approvals/{approvalId}/approve',
    run: async (e, deps) => json(200, await decideApproval(await deps(), pathParameter(e, 'approvalId'), jsonBodyOf(e, DECISION_EXAMPLE), 'approved')),
  },
  {
    method: 'POST',
    path: '/approvals/{approvalId}/reject',
    run: async (e, deps) => json(200, await decideApproval(await deps(), pathParameter(e, 'approvalId'), jsonBodyOf(e, DECISION_EXAMPLE), 'rejected')),
  },
];
