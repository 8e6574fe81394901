/**
 * Controls (contract 6.4): who the caller is, and four eyes: list approvals by state, one approval (the decisions,
 * approve and reject, are in approval-decisions.ts: they apply the changes, which the reads' function does not carry).
 */
import { APPROVAL_STATES } from '../../domain/approvals';
import { approvalLimit, approvalsList, getApproval, listApprovals, requireApprovalId } from '../../application/approvals/manage-approvals';
import { decodeCursor } from '../../application/cursor';
import { json } from '../http';
import { callerOf } from '../schema/caller';
import { nullable, ok, page, ref, responses } from '../schema/openapi-parts';
import { oneOf, parsed } from '../schema/params';
import { defineRoute } from '../schema/route-schema';
import type { ApiRoute } from './route';

/** An approval's id in a path. */
export const APPROVAL_ID = parsed('The approvalId of a 202 answer or of GET /approvals.', { type: 'string', pattern: '^ap_[0-9a-z]{9}[0-9a-f]{12}$' }, (value = '') => requireApprovalId(value), { example: 'ap_0lq2x8k9ab1c2d3e4f5a6' });

export const APPROVAL_ROUTES: ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/whoami',
    summary: 'Who the API takes the caller to be (contract 6.4 "Who")',
    responses: responses({
      200: ok('On AWS the IAM principal of the SigV4 signature; locally nobody is signed in: "local:unauthenticated", and the body\'s actor stands in.', {
        type: 'object', required: ['principal', 'name', 'authenticated'],
        properties: {
          principal: { type: 'string', example: 'arn:aws:sts::123456789012:assumed-role/HoldbackFinance/maker@example.com' },
          name: nullable({ type: 'string', description: 'The session or user name a body actor must equal (case aside); null locally.' }),
          authenticated: { type: 'boolean' },
        },
      }),
    }),
    handle: async ({ event }) => {
      const { principal, name, authenticated } = callerOf(event);
      return json(200, { principal, name, authenticated });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/approvals',
    summary: 'Approvals of one state, newest first (four eyes, contract 6.4)',
    // Limit and cursor pass on as sent once read (a cursor belongs to its state's list); the use case takes them so.
    query: {
      state: oneOf(APPROVAL_STATES, 'One state.', 'pending'),
      limit: parsed('Page size, 1 to 200.', { type: 'integer', minimum: 1, maximum: 200, default: 50 }, (value) => {
        approvalLimit(value);
        return value;
      }),
      cursor: parsed('From nextCursor of the previous page.', { type: 'string' }, (value, _name, sent) => {
        const state = sent.state ?? 'pending';
        if ((APPROVAL_STATES as readonly string[]).includes(state)) decodeCursor(value, approvalsList(state));
        return value;
      }),
    },
    strictQuery: true,
    responses: responses({ 200: ok('A page.', page('items', ref('Approval'))) }, { 400: 'A parameter is wrong; the message names it.' }),
    handle: async ({ query }, deps) => json(200, await listApprovals(await deps(), { state: query.state, limit: query.limit, cursor: query.cursor })),
  }),
  defineRoute({
    method: 'GET',
    path: '/approvals/{approvalId}',
    summary: 'One approval',
    params: { approvalId: APPROVAL_ID },
    responses: responses({ 200: ok('The approval.', ref('Approval')) }, { 400: 'Not an approval id.', 404: 'No such approval.' }),
    handle: async ({ params }, deps) => json(200, await getApproval(await deps(), params.approvalId)),
  }),
];
