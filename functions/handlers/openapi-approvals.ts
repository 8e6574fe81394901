/** The OpenAPI parts of four eyes (contract 6.4): the `approvals` setting, the Approval, and the approvals' routes. */

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
const instant = (description: string): Json => ({ type: 'string', format: 'date-time', description: `${description} ISO 8601 with the settings' timezone offset.` });
const error = (description: string): Json => ({ description, content: { 'application/json': { schema: ref('Error') } } });
const ok = (description: string, schema: Json): Json => ({ description, content: { 'application/json': { schema } } });
const APPROVAL_ID: Json = { name: 'approvalId', in: 'path', required: true, schema: { type: 'string', pattern: '^ap_[0-9a-z]{9}[0-9a-f]{12}$' }, example: 'ap_0lq2x8k9ab1c2d3e4f5a6' };
const CHANGES = ['manualRelease', 'overrideRelease', 'unhold', 'policyChange', 'settingsChange'];
const STATES = ['pending', 'approved', 'rejected', 'expired'];

const rule: Json = {
  type: 'object',
  additionalProperties: false,
  properties: {
    above: {
      type: 'object',
      description: 'Per ISO 4217 currency, a decimal text: only a change moving more than this needs a second person. A currency not named here always needs one (the control fails closed). Not allowed on settingsChange.',
      additionalProperties: { type: 'string', pattern: '^\\d{1,15}(\\.\\d{1,4})?$' },
      propertyNames: { pattern: '^[A-Z]{3}$' },
      example: { INR: '50000.00' },
    },
  },
};

export const APPROVAL_SCHEMAS: Record<string, Json> = {
  ApprovalRules: {
    type: 'object',
    additionalProperties: false,
    description: 'Which changes need a second person (contract 6.4). `{}` for a change: always; `{"above": {...}}`: above an amount per currency; a change not named: never. manualRelease: a manual release (its release amount); overrideRelease: a manual release of a HELD release with override (else manualRelease covers it); unhold: the vendor\'s open releases; policyChange: a policy PUT with applyTo "open_orders" (the vendor\'s open releases); settingsChange: any settings PUT that changes something (no amount).',
    properties: Object.fromEntries(CHANGES.map((c) => [c, rule])),
    example: { manualRelease: { above: { INR: '50000.00' } }, overrideRelease: {}, unhold: {}, policyChange: {}, settingsChange: {} },
  },
  ApprovalParty: { type: 'object', required: ['actor', 'principal'], properties: { actor: { type: 'string' }, principal: { type: 'string', description: 'The IAM principal ARN on AWS; "local:unauthenticated" locally.' } } },
  Approval: {
    type: 'object',
    required: ['approvalId', 'change', 'state', 'request', 'requestedBy', 'reason', 'createdAt', 'expiresAt'],
    properties: {
      approvalId: { type: 'string' },
      change: { type: 'string', enum: CHANGES },
      state: { type: 'string', enum: STATES, description: 'A pending approval past expiresAt reads expired (and is written so).' },
      request: { type: 'object', description: 'What was asked, replayed as it is when approved.', properties: { method: { type: 'string' }, path: { type: 'string' }, params: { type: 'object' }, body: { type: 'object' } } },
      orderId: nullable({ type: 'string' }),
      vendorId: nullable({ type: 'string' }),
      requestedBy: ref('ApprovalParty'),
      reason: { type: 'string', description: "The request's own reason." },
      moves: nullable({ type: 'array', items: { type: 'object', required: ['currency', 'amount'], properties: { currency: { type: 'string' }, amount: { type: 'string', description: 'Decimal text.' }, count: { type: 'integer' } } } }),
      basis: { type: 'object', description: 'What must still hold when it is approved (a version, a release state, a hold time); else 409 preview_stale.' },
      createdAt: instant('When it was asked for.'),
      expiresAt: instant('24 hours after createdAt.'),
      decidedBy: nullable(ref('ApprovalParty')),
      decidedAt: nullable(instant('When it was approved, rejected or expired.')),
      decisionReason: nullable({ type: 'string' }),
      applied: nullable({ type: 'object', properties: { at: instant('When it was applied.'), ok: { type: 'boolean' }, error: nullable({ type: 'string' }) } }),
    },
  },
  DecisionInput: {
    type: 'object',
    required: ['reason'],
    additionalProperties: false,
    properties: { reason: { type: 'string', maxLength: 500 }, actor: { type: 'string', description: 'Locally required (who decides, unauthenticated); on AWS optional and, if sent, must name the signed principal.' } },
  },
};

/** The 202 every change that may need a second person answers. */
export const APPROVAL_REQUIRED: Json = ok('Four eyes (contract 6.4): the settings\' approvals name this change, so nothing changed; it waits as a pending approval for another person.', { type: 'object', required: ['approval'], properties: { approval: ref('Approval') } });

const withErrors = (success: Record<string, Json>, refusals: Record<string, string>): Json => ({
  ...success,
  ...Object.fromEntries(Object.entries(refusals).map(([status, why]) => [status, error(why)])),
  500: error('A fault of Holdback; the details are in its log, never in the answer.'),
});

const decision = (verb: 'approve' | 'reject'): Json => ({
  summary: verb === 'approve' ? 'Approve another person\'s pending change: it is applied exactly as asked' : 'Reject another person\'s pending change: nothing changes',
  parameters: [APPROVAL_ID],
  requestBody: { required: true, content: { 'application/json': { schema: ref('DecisionInput'), example: { reason: 'checked the delivery proof', actor: 'checker@example.com' } } } },
  responses: withErrors(
    { 200: ok(verb === 'approve' ? 'The approval (approved, applied) and what the change answered.' : 'The approval (rejected).', { type: 'object', required: ['approval'], properties: { approval: ref('Approval'), result: {} } }) },
    {
      400: 'reason (or actor, locally) missing or wrong; the message names it.',
      403: 'own_approval: the requester can never decide their own change; actor_not_caller: actor names someone else than the signed principal.',
      404: 'No such approval.',
      409: verb === 'approve'
        ? 'invalid_state: the approval is expired, approved or rejected (named in the message); preview_stale: what it was based on moved (a version, a release state), or the change no longer applies.'
        : 'invalid_state: the approval is expired, approved or rejected (named in the message).',
    },
  ),
});

export const APPROVAL_PATHS: Record<string, Record<string, Json>> = {
  '/whoami': {
    get: {
      summary: 'Who the API takes the caller to be (contract 6.4 "Who")',
      responses: withErrors({
        200: ok('On AWS the IAM principal of the SigV4 signature; locally nobody is signed in: "local:unauthenticated", and the body\'s actor stands in.', {
          type: 'object', required: ['principal', 'name', 'authenticated'],
          properties: { principal: { type: 'string', example: 'arn:aws:sts::123456789012:assumed-role/HoldbackFinance/maker@example.com' }, name: nullable({ type: 'string', description: 'The session or user name a body actor must equal (case aside); null locally.' }), authenticated: { type: 'boolean' } },
        }),
      }, {}),
    },
  },
  '/approvals': {
    get: {
      summary: 'Approvals of one state, newest first (four eyes, contract 6.4)',
      parameters: [
        { name: 'state', in: 'query', required: false, schema: { type: 'string', enum: STATES, default: 'pending' } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'From nextCursor of the previous page.' },
      ],
      responses: withErrors({ 200: ok('A page.', { type: 'object', required: ['items', 'nextCursor'], properties: { items: { type: 'array', items: ref('Approval') }, nextCursor: nullable({ type: 'string' }) } }) }, { 400: 'A parameter is wrong; the message names it.' }),
    },
  },
  '/approvals/{approvalId}': {
    get: { summary: 'One approval', parameters: [APPROVAL_ID], responses: withErrors({ 200: ok('The approval.', ref('Approval')) }, { 400: 'Not an approval id.', 404: 'No such approval.' }) },
  },
  '/approvals/{approvalId}/approve': { post: decision('approve') },
  '/approvals/{approvalId}/reject': { post: decision('reject') },
};
