/**
 * Controls (contract 6.4): who the caller is, and four eyes: list approvals by state, one approval, approve and reject
 * (another person, with a reason).
 */
import { APPROVAL_STATES } from '../../domain/approvals';
import { approvalLimit, approvalsList, decideApproval, getApproval, listApprovals, requireApprovalId, type ApprovalReplays } from '../../application/approvals/manage-approvals';
import { decodeCursor } from '../../application/cursor';
import { putPolicy } from '../../application/config/manage-policies';
import { updateSettings } from '../../application/config/manage-settings';
import { releaseManually, setVendorHold } from '../../application/releases/manage-releases';
import { json } from '../http';
import { callerOf } from '../caller';
import { nullable, ok, page, ref, responses, type Json } from '../schema/openapi-parts';
import { oneOf, parsed } from '../schema/params';
import { objectBody, readBody, textField, type Field } from '../../application/body-schema';
import { HOLD_BODY, RELEASE_BODY, UNHOLD_BODY } from '../schema/release-bodies';
import { POLICY_BODY, SETTINGS_BODY } from '../schema/config-bodies';
import { defineRoute, exampleText } from '../schema/route-schema';
import type { ApiRoute } from './route';

const DECISION_EXAMPLE = { reason: 'checked the delivery proof', actor: 'checker@example.com' };
/** The longest reason or actor a decision keeps. */
const DECISION_TEXT_LIMIT = 500;
const DECISION_HINT = exampleText(DECISION_EXAMPLE);

/** A text of 1 to DECISION_TEXT_LIMIT characters, trimmed; `expected` says what it is for. */
function decisionText(expected: string, schema: Json, required: boolean): Field<string> {
  return textField({ limit: DECISION_TEXT_LIMIT, expected, schema, required, absent: null, cut: 60 });
}

/** The body of approve and reject: who decides (locally; on AWS the signed principal, filled in before) and why. */
const DECISION_BODY = objectBody({
  fields: {
    actor: decisionText(`who decides, e.g. ${DECISION_HINT}`, {
      description: 'Locally required (who decides, unauthenticated); on AWS optional and, if sent, must name the signed principal.',
    }, false),
    reason: decisionText(`why you decide so, e.g. ${DECISION_HINT}`, {}, true),
  },
  example: DECISION_EXAMPLE,
  notObject: `a JSON object, e.g. ${DECISION_HINT}`,
  unknownMember: 'only reason (and actor, which on AWS is your signed principal)',
});
const APPROVAL_ID = parsed('The approvalId of a 202 answer or of GET /approvals.', { type: 'string', pattern: '^ap_[0-9a-z]{9}[0-9a-f]{12}$' }, (value = '') => requireApprovalId(value), { example: 'ap_0lq2x8k9ab1c2d3e4f5a6' });

/** An approved change is applied through the use case its request would have run, its stored body read by the same schema. */
const REPLAYS: ApprovalReplays = {
  releaseManually: (deps, orderId, vendorId, body) => releaseManually(deps, orderId, vendorId, readBody(RELEASE_BODY, body)),
  setVendorHold: (deps, vendorId, body, held) => setVendorHold(deps, vendorId, readBody(held ? HOLD_BODY : UNHOLD_BODY, body), held),
  putPolicy: (deps, vendorId, body) => putPolicy(deps, vendorId, readBody(POLICY_BODY, body)),
  updateSettings: (deps, body) => updateSettings(deps, readBody(SETTINGS_BODY, body)),
};

function decision(verb: 'approve' | 'reject'): ApiRoute {
  return defineRoute({
    method: 'POST',
    path: `/approvals/{approvalId}/${verb}`,
    summary: verb === 'approve' ? 'Approve another person\'s pending change: it is applied exactly as asked' : 'Reject another person\'s pending change: nothing changes',
    params: { approvalId: APPROVAL_ID },
    body: DECISION_BODY,
    responses: responses(
      { 200: ok(verb === 'approve' ? 'The approval (approved, applied) and what the change answered.' : 'The approval (rejected).', { type: 'object', required: ['approval'], properties: { approval: ref('Approval'), result: {} } }) },
      {
        400: 'reason (or actor, locally) missing or wrong, or not an approval id; the message names it.',
        403: 'own_approval: the requester can never decide their own change; actor_not_caller: actor names someone else than the signed principal.',
        404: 'No such approval.',
        409: verb === 'approve'
          ? 'invalid_state: the approval is expired, approved or rejected (named in the message); preview_stale: what it was based on moved (a version, a release state), or the change no longer applies.'
          : 'invalid_state: the approval is expired, approved or rejected (named in the message).',
      },
    ),
    handle: async ({ params, body }, deps) => json(200, await decideApproval(await deps(), params.approvalId, body, verb === 'approve' ? 'approved' : 'rejected', REPLAYS)),
  });
}

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
  decision('approve'),
  decision('reject'),
];
