/**
 * The Settings component (contract section 4), in a file of its own: PUT /settings' body reads and documents each
 * member from it (config-bodies.ts) without carrying every other component of the document (components.ts).
 */
import { instant, ref, type Json } from './openapi-parts';

export const SETTINGS_COMPONENT: Json = {
  type: 'object',
  description: 'Contract section 4. PUT takes a full or partial body, merged over the current settings.',
  properties: {
    deferByDays: { type: 'integer', minimum: 0, maximum: 365, description: "Mirror of the gateway dashboard's Defer by Days, in days." },
    timezone: { type: 'string', example: 'Asia/Kolkata', description: 'IANA zone of the times in answers.' },
    defaultScheduleOption: { type: 'integer', description: "Schedule option of vendors without a policy (the gateway's ids 1-9, 11-16)." },
    holidays: { type: 'array', items: { type: 'string', format: 'date' }, description: 'Bank holidays, India-time days.' },
    settlementDays: { type: 'string', enum: ['working', 'calendar'] },
    releaseLead: { type: 'string', example: 'PT1H', description: 'ISO 8601 duration: how long before its target a release is sent.' },
    retryBudget: { type: 'string', example: 'P1D', description: 'ISO 8601 duration (PT0S..P365D): how long "Order ID does not exist" is retried, from its first such answer.' },
    riskWindow: { type: 'string', example: 'P7D', description: 'ISO 8601 duration (PT0S..P365D), default P7D: how long after delivery (after payment when no delivery is known) an order can still be refunded or disputed; money released early is exposure until then (contract 6.4).' },
    holdWarning: { type: 'string', example: 'P2D', description: 'ISO 8601 duration (PT0S..P365D), default P2D: held money the gateway settles anyway within this long is an alert (contract 6.4).' },
    approvals: ref('ApprovalRules'),
    version: { type: 'integer', description: 'PUT: the version you read (409 version_conflict when stale).' },
    previewId: { type: 'string', description: 'PUT: applies only if what that settings preview showed still holds, else 409 preview_stale.' },
    actor: { type: 'string' },
    reason: { type: 'string' },
    at: instant('When this version was saved.'),
  },
  additionalProperties: false,
};
