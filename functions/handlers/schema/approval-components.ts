/** The OpenAPI components of the controls (contract 6.4): the `approvals` setting, the Approval, its decision, the 202. */
import { APPROVAL_CHANGES, APPROVAL_STATES } from '../../domain/approvals';
import { instant, nullable, ok, ref, type Json } from './openapi-parts';

const CHANGES = [...APPROVAL_CHANGES];
const STATES = [...APPROVAL_STATES];

const rule: Json = {
  type: 'object',
  additionalProperties: false,
  properties: {
    above: {
      type: 'object',
      description: 'Per ISO 4217 currency, a decimal text: only a change moving more than this needs a second person. A currency not named here always needs one (the control fails closed).',
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
    description: 'Which changes need a second person (contract 6.4). `{}` for a change: always; `{"above": {...}}`: above an amount per currency; a change not named: never. manualRelease: a manual release (its release amount); overrideRelease: a manual release of a HELD release with override (else manualRelease covers it); unhold: the vendor\'s open releases; policyChange: a policy PUT with applyTo "open_orders" (the vendor\'s open releases); settingsChange: any settings PUT that changes something (every vendor\'s open releases).',
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
      moves: nullable({ type: 'array', items: { type: 'object', required: ['currency', 'amount'], properties: { currency: { type: 'string' }, amount: { type: 'string', description: 'Decimal text.' }, count: { type: 'integer' }, atLeast: { type: 'boolean', description: 'Present and true when the change covers more open releases than its request reads (a fixed number, whatever the size): the amount and count are of those read, a lower bound, and the change needs approval whatever its rule\'s amount (a control fails closed).' } } } }),
      basis: { type: 'object', description: 'What must still hold when it is approved (a version, a release state, a hold time); else 409 preview_stale.' },
      createdAt: instant('When it was asked for.'),
      expiresAt: instant('24 hours after createdAt.'),
      decidedBy: nullable(ref('ApprovalParty')),
      decidedAt: nullable(instant('When it was approved, rejected or expired.')),
      decisionReason: nullable({ type: 'string' }),
      applied: nullable({ type: 'object', properties: { at: instant('When it was applied.'), ok: { type: 'boolean' }, error: nullable({ type: 'string' }) } }),
    },
  },
};

/** The 202 every change that may need a second person answers. */
