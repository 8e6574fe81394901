/** Four eyes' decisions (contract 6.4): approve or reject another person's pending change, with a reason; an approval applies the change. */
import { decideApproval, type ApprovalReplays } from '../../application/approvals/manage-approvals';
import { putPolicy } from '../../application/config/manage-policies';
import { updateSettings } from '../../application/config/manage-settings';
import { releaseManually, setVendorHold } from '../../application/releases/manage-releases';
import { json } from '../http';
import { ok, ref, responses, type Json } from '../schema/openapi-parts';
import { objectBody, readBody, textField, type Field } from '../../application/body-schema';
import { HOLD_BODY, RELEASE_BODY, UNHOLD_BODY } from '../schema/release-bodies';
import { POLICY_BODY, SETTINGS_BODY } from '../schema/config-bodies';
import { defineRoute, exampleText } from '../schema/route-schema';
import { APPROVAL_ID } from './approvals';
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

export const APPROVAL_DECISION_ROUTES: ApiRoute[] = [decision('approve'), decision('reject')];
