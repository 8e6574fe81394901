/** The OpenAPI components: every answer and body shape the routes name by `$ref` (contract section 6). */
import { JOB_KINDS } from '../../application/ports';
import { HEX64, ID, decimal, instant, nullable, object, ref, type Json } from './openapi-parts';
import { APPROVAL_SCHEMAS } from './approval-components';
import { SETTINGS_COMPONENT } from './settings-component';

export const COMPONENTS: Record<string, Json> = {
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', example: 'validation_error' },
          message: { type: 'string', description: 'What was wrong and what to send instead.' },
          issues: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, problem: { type: 'string' }, expected: { type: 'string' } } } },
        },
      },
    },
  },
  Settings: SETTINGS_COMPONENT,
  ReleaseRule: {
    oneOf: [
      { type: 'object', required: ['kind'], properties: { kind: { const: 'at_max' } } },
      { type: 'object', required: ['kind'], properties: { kind: { const: 'immediate' } } },
      { type: 'object', required: ['kind', 'delay'], properties: { kind: { const: 'after_payment' }, delay: { type: 'string', example: 'P3D' } } },
      { type: 'object', required: ['kind', 'delay'], properties: { kind: { const: 'after_delivery' }, delay: { type: 'string', example: 'P2D' } } },
    ],
  },
  MaxExposure: {
    type: 'object', description: 'Contract 6.4: the most early-released money at risk at once, per currency, as decimal text; an early release that would pass it waits (WAITING, exposure_cap). Absent: no cap.',
    additionalProperties: { type: 'string', pattern: '^\\d{1,10}(\\.\\d{1,2})?$' }, example: { INR: '50000.00' },
  },
  Policy: {
    type: 'object',
    required: ['vendorId', 'version', 'scheduleOption', 'release', 'actor', 'reason', 'at'],
    properties: {
      vendorId: ID, version: { type: 'integer', description: '0: no stored policy (the default applies).' },
      scheduleOption: { type: 'integer' }, release: ref('ReleaseRule'), actor: { type: 'string' }, reason: { type: 'string' },
      at: nullable(instant('When this version was saved.')),
      maxExposure: ref('MaxExposure'),
      warnings: { type: 'array', description: 'PUT: what was accepted but looks wrong, e.g. a maxExposure in a currency the vendor has no money in.', items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } } },
    },
    additionalProperties: true,
  },
  Attempt: {
    type: 'object',
    properties: {
      at: instant('When the PUT was sent.'), request: { type: 'string', example: '2022-12-06 09:00:00', description: 'The eligibility sent, gateway form, India time.' },
      status: { type: 'string', description: 'The answer\'s status (`OK`, `ERROR`), a transport label (`TIMEOUT`, `NETWORK`, `RATE_LIMITED`), `SENT` (recorded before the PUT left, no answer yet) or `NO_ANSWER` (its sender was lost).' },
      subCode: nullable({ type: 'string' }), message: { type: 'string' },
      confirmedFromRecon: {
        type: 'object', required: ['at', 'eligibility'],
        description: 'Present when the answer never came (or was a 5xx) and the gateway\'s order recon, read at `at`, held the date sent: the PUT was applied (status `OK`).',
        properties: { at: instant('When the order recon was read.'), eligibility: instant('The eligibility the recon held.') },
      },
    },
  },
  Release: {
    type: 'object',
    required: ['vendorId', 'state', 'policyVersion', 'targetEligibility', 'appliedEligibility', 'predictedSettlement', 'attempts'],
    properties: {
      vendorId: ID,
      state: { type: 'string', enum: ['PLANNED', 'SCHEDULED', 'WAITING', 'HELD', 'APPLYING', 'APPLIED', 'AT_MAX', 'CANCELLED', 'FAILED', 'SETTLED'] },
      policyVersion: { type: 'integer' },
      targetEligibility: nullable(instant('The eligibility Holdback aims for, clamped into the window.')),
      appliedEligibility: nullable(instant('The eligibility the gateway accepted.')),
      predictedSettlement: nullable(instant("When the vendor is paid, from its schedule option and the bank's working days.")),
      attempts: { type: 'array', items: ref('Attempt') },
      amount: decimal("The vendor's share."),
      rule: ref('ReleaseRule'),
      reason: nullable({ type: 'string', description: 'Why it is in its state.' }),
      waitReason: nullable({ type: 'string', enum: ['exposure_cap'], description: 'WAITING under the policy\'s maxExposure (the figures are in reason); claimed again at sendAt (a risk window closes, or max eligibility).' }),
      holdSource: nullable({ type: 'string', enum: ['dispute', 'risk', 'finance', 'vendor_request'], description: 'HELD: who holds it (dispute for an open dispute, the vendor hold\'s source otherwise).' }),
      settlesAnywayAt: nullable(instant('HELD or WAITING: when the gateway settles it anyway (the settlement after its max eligibility), whatever Holdback holds.')),
      scheduleOption: { type: 'integer', description: "The vendor's schedule option the prediction uses." },
      holdReason: nullable({ type: 'string', enum: ['dispute', 'vendor_hold'], description: 'HELD by an open dispute or a vendor hold.' }),
      clamp: nullable({
        type: 'object',
        required: ['requested', 'clampedTo', 'reason'],
        description: 'The rule asked for an eligibility outside the window; the one kept instead.',
        properties: { requested: { type: 'string', format: 'date-time' }, clampedTo: { type: 'string', format: 'date-time' }, reason: { type: 'string', enum: ['before_transaction', 'after_max_eligibility', 'in_the_past'] } },
      }),
      plannedSendAt: nullable(instant('When the PUT is planned (target minus releaseLead).')),
      sendAt: nullable(instant('The pending send or retry; while APPLYING, the deadline after which the sweep sends again.')),
      sends: { type: 'integer', minimum: 0, description: 'Eligibility PUTs sent so far (the last attempts are listed in attempts).' },
      manual: nullable({
        type: 'object',
        required: ['actor', 'reason', 'at', 'override', 'requestedAt'],
        description: 'The manual release that planned it, if any.',
        properties: { actor: { type: 'string' }, reason: { type: 'string' }, at: nullable(instant('The eligibility asked for (null: as soon as the gateway accepts).')), override: { type: 'boolean' }, requestedAt: instant('When it was asked for.') },
      }),
      settledAt: nullable(instant('When the gateway reported the settlement.')),
      settledFrom: nullable({
        type: 'object',
        required: ['state', 'appliedEligibility', 'predictedSettlement'],
        description: 'What the release was before it settled (e.g. AT_MAX: the gateway settled at its default date).',
        properties: { state: { type: 'string' }, appliedEligibility: nullable(instant('Before settling.')), predictedSettlement: nullable(instant('Before settling.')) },
      }),
      projectedSettlement: nullable(instant('Where the money lands by the one projection the forecast and previews use: the predicted settlement once applied, else where it settles if nothing changes (PLANNED/SCHEDULED at their target, WAITING/HELD/AT_MAX/FAILED at their max eligibility); null when cancelled or settled.')),
      settlementProjected: { type: 'boolean', description: 'true: projectedSettlement is a projection (not yet sent); false: firm (applied) or none.' },
    },
    additionalProperties: true,
  },
  Order: {
    type: 'object',
    required: ['orderId', 'transactionTime', 'maxEligibility', 'vendors'],
    properties: {
      orderId: ID,
      transactionTime: nullable(instant('The payment time (null until order.paid arrives).')),
      transactionTimeSource: nullable({ type: 'string', enum: ['gateway', 'marketplace'], description: "Whose payment time the window counts from: the gateway's payment webhook (trusted) or the marketplace's order.paid." }),
      maxEligibility: nullable(instant('Transaction time + Defer by Days.')),
      currency: nullable({ type: 'string', example: 'INR' }),
      vendors: { type: 'array', items: ref('Release') },
    },
    additionalProperties: false,
  },
  Outcome: {
    allOf: [ref('Release'), {
      type: 'object',
      required: ['orderId', 'currency', 'transactionTime', 'maxEligibility', 'settlementMismatch'],
      properties: {
        orderId: ID, currency: { type: 'string', example: 'INR' }, transactionTime: instant('Payment time.'), maxEligibility: instant('Window end.'),
        settlementMismatch: nullable({
          type: 'object',
          description: "The gateway's settlement report disagreed with the prediction (null: it agreed, or none yet).",
          properties: {
            predicted: instant('The predicted settlement.'), settledAt: instant('When the gateway settled.'),
            differenceMinutes: { type: 'integer', description: 'settledAt minus predicted, in minutes (negative: earlier).' }, message: { type: 'string' },
          },
        }),
      },
    }],
  },
  PreviewDay: {
    type: 'object',
    required: ['date', 'currency', 'current', 'candidate'],
    properties: {
      date: { type: 'string', format: 'date', description: 'India-time day of predicted settlement.' },
      currency: { type: 'string', example: 'INR', description: 'One entry per day and currency: amounts of two currencies are never added.' },
      current: ref('CountAmount'), candidate: ref('CountAmount'),
    },
  },
  CountAmount: { type: 'object', required: ['count', 'amount'], properties: { count: { type: 'integer' }, amount: decimal('Sum.') } },
  Preview: {
    type: 'object',
    required: ['previewId', 'expiresAt', 'fromVersion', 'covered', 'moved', 'omitted', 'releases', 'perDay'],
    properties: {
      previewId: { type: 'string', description: 'Send it with the PUT to apply the change only if this still holds.' },
      expiresAt: instant('Until when a PUT may name previewId.'),
      vendorId: ID,
      fromVersion: { type: 'integer', description: 'The policy or settings version the preview starts from.' },
      applyTo: { type: 'string', enum: ['new_orders', 'open_orders'], description: 'Policy preview: as in the body.' },
      refused: { type: 'integer', description: "Settings preview: releases whose current target the gateway would refuse under the candidate." },
      capStopped: { type: 'array', description: "Policy preview (contract 6.4): the candidate's early releases its maxExposure would stop, in send order; they would wait (exposure_cap) until exposure falls or max eligibility comes. The first of them: at most `limit` and 1,000 in an answer, 100 in a job's result; capStoppedCount counts all.", items: { type: 'object', required: ['orderId', 'vendorId', 'currency', 'amount', 'message'], properties: { orderId: ID, vendorId: ID, currency: { type: 'string' }, amount: decimal('The release.'), message: { type: 'string', description: 'The figures: exposure then, the cap, this amount, the currency.' } } } },
      capStoppedCount: { type: 'integer', description: 'Policy preview: every early release the cap would stop, listed or not.' },
      capStoppedOmitted: { type: 'integer', description: 'Policy preview: cap stops left out of capStopped by its bound.' },
      covered: { type: 'integer', description: 'Unsent releases the preview looked at.' },
      moved: { type: 'integer', description: 'Of those, how many the candidate moves (a dropped release is not moved).' },
      dropped: { type: 'integer', description: 'Of those, how many the candidate drops: their order was cancelled, nothing will be sent, they land on no day.' },
      omitted: { type: 'integer', description: 'Releases left out of `releases` by `limit` (perDay still counts them).' },
      releases: {
        type: 'array',
        items: {
          type: 'object',
          required: ['orderId', 'vendorId', 'state', 'amount', 'current', 'candidate', 'moves', 'refusal'],
          properties: {
            orderId: ID, vendorId: ID, state: { type: 'string' }, amount: decimal("The vendor's share."),
            currency: nullable({ type: 'string', example: 'INR' }), moves: { type: 'boolean' }, dropped: { type: 'boolean', description: 'The candidate drops it (its order was cancelled).' }, refusal: nullable({ type: 'string', description: 'Why the gateway would refuse it under the candidate.' }),
            current: { type: 'object', properties: { targetEligibility: nullable(instant('Now.')), predictedSettlement: nullable(instant('Now.')) } },
            candidate: { type: 'object', properties: { targetEligibility: nullable(instant('Under the change.')), predictedSettlement: nullable(instant('Under the change.')) } },
          },
          additionalProperties: true,
        },
      },
      perDay: { type: 'array', items: ref('PreviewDay') },
    },
    additionalProperties: true,
  },
  ForecastDay: {
    type: 'object',
    required: ['date', 'currency', 'firm', 'projected'],
    properties: {
      date: { type: 'string', format: 'date', description: 'India-time day of settlement.' }, currency: { type: 'string', example: 'INR' },
      firm: { ...ref('CountAmount'), description: 'Applied at the gateway.' }, projected: { ...ref('CountAmount'), description: 'Planned, not yet sent, at their predicted settlement.' },
    },
    additionalProperties: true,
  },
  Forecast: {
    type: 'object',
    required: ['from', 'to', 'vendorId', 'days'],
    properties: {
      from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' }, vendorId: nullable(ID),
      days: { type: 'array', items: ref('ForecastDay'), description: 'Every day of the range (empty ones with zeros), per currency.' },
    },
  },
  VendorSummary: {
    type: 'object',
    required: ['vendorId', 'policyVersion', 'scheduleOption', 'release', 'held', 'hold', 'open'],
    properties: {
      vendorId: ID, policyVersion: { type: 'integer', description: '0: no stored policy (the default applies).' }, scheduleOption: { type: 'integer' }, release: ref('ReleaseRule'),
      held: { type: 'boolean' },
      hold: nullable({ type: 'object', properties: { held: { type: 'boolean' }, source: ref('HoldSource'), actor: { type: 'string' }, reason: { type: 'string' }, at: instant('Of the last hold or unhold.') } }),
      open: { type: 'array', items: { type: 'object', properties: { currency: { type: 'string' }, count: { type: 'integer' }, amount: decimal('Not yet settled or cancelled.') } } },
      exposure: {
        type: 'array', description: 'Contract 6.4, per currency: money released before max eligibility whose order can still be refunded or disputed (riskWindow), the cap, and how it falls day by day.',
        items: {
          type: 'object', required: ['currency', 'amount', 'count', 'maxExposure', 'exceededBy', 'nextCloseAt', 'forecast'],
          properties: {
            currency: { type: 'string' }, amount: decimal('Exposure now.'), count: { type: 'integer', description: 'Early releases still in their risk window.' },
            maxExposure: nullable(decimal('The policy\'s cap in this currency; null: none.')), exceededBy: nullable(decimal('How far exposure is above the cap (no new early release goes until it falls).')),
            nextCloseAt: nullable(instant('When the next risk window closes.')),
            forecast: { type: 'array', items: { type: 'object', required: ['date', 'amount', 'closing'], properties: { date: { type: 'string', format: 'date', description: 'A day in the settings\' timezone.' }, amount: decimal('Exposure left at the end of the day.'), closing: decimal('Money whose risk window closes that day.') } } },
          },
        },
      },
      gateway: {
        type: 'object', description: 'Only with checkGateway=true.', required: ['answer', 'scheduleOption', 'policyDisagrees', 'message'],
        properties: {
          answer: { type: 'string', enum: ['agrees', 'disagrees', 'vendor_not_found', 'error'], description: 'vendor_not_found: the gateway does not know the vendor (a warning, never "agrees").' },
          scheduleOption: nullable({ type: 'integer' }), policyDisagrees: { type: 'boolean' }, message: { type: 'string', description: 'The comparison in words.' }, error: { type: 'string' },
        },
      },
    },
  },
  TimelineItem: {
    type: 'object',
    required: ['at', 'kind', 'detail'],
    properties: {
      at: instant('When it happened.'),
      kind: { type: 'string', example: 'gateway_attempt', description: '`event_received`, or the audit record kind (`planned`, `gateway_attempt`, `webhook_received`, `manual_release`...).' },
      vendorId: ID, actor: { type: 'string' },
      principal: { type: 'string', description: 'Who proved to be the actor (contract 6.4): the IAM principal ARN on AWS, "local:unauthenticated" locally; absent for events and jobs.' },
      detail: { type: 'object', additionalProperties: true },
      sequence: { type: 'integer', description: "The audit record's place in the order's stream (absent for a received event)." },
    },
  },
  Job: object(
    'Bulk work in progress or done (contract 6.3). It survives a restart, a crash or a function timeout and carries on; work done twice changes nothing twice.',
    ['jobId', 'kind', 'state', 'total', 'done', 'failed', 'actor', 'createdAt', 'finishedAt', 'error', 'result'],
    {
      jobId: { type: 'string', pattern: '^job_[0-9]{13}_[0-9a-z]{10}$', example: 'job_1669975200000_k3v9x0q2m1' },
      kind: { type: 'string', enum: [...JOB_KINDS] },
      state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] },
      total: { type: 'integer', minimum: 0, description: 'Items found so far (releases, or rows of an export); final once the job ended.' },
      done: { type: 'integer', minimum: 0 }, failed: { type: 'integer', minimum: 0, description: 'Items that failed; each of the first 100 is named in failures.' },
      actor: { type: 'string' }, createdAt: instant('When the job was started.'), finishedAt: nullable(instant('When it ended.')),
      error: nullable({ type: 'string', description: 'Why the job failed (state failed).' }),
      result: { description: 'An export: {url, expiresAt, rows, bytes, sha256}, the link valid at least an hour. A preview that became a job: the preview. An audit verification (audit_verify): the answer of GET /audit/verify. Otherwise null.', oneOf: [{ type: 'null' }, ref('ExportResult'), ref('Preview'), ref('AuditVerification')] },
      params: { type: 'object', description: 'What the job works on, e.g. {vendorId, reason}, or an export\'s filters.' },
      failures: { type: 'array', items: { type: 'object', required: ['orderId', 'vendorId', 'reason'], properties: { orderId: ID, vendorId: ID, reason: { type: 'string' } } } },
    },
    { additionalProperties: false },
  ),
  ExportResult: {
    type: 'object',
    required: ['url', 'expiresAt', 'rows', 'bytes', 'sha256'],
    properties: {
      url: { type: 'string', description: 'The download link: on AWS a pre-signed S3 URL, locally GET /exports/{file}?token= of this API.' },
      expiresAt: { type: 'string', format: 'date-time' }, rows: { type: 'integer', minimum: 0 }, bytes: { type: 'integer', minimum: 0 },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the file, lowercase hex.' },
    },
  },
  ImportAnswer: {
    type: 'object',
    required: ['dryRun', 'importId', 'rows', 'valid', 'errors', 'moreErrors'],
    properties: {
      dryRun: { type: 'boolean' }, importId: { type: 'string', description: 'SHA-256 of the file: the same file is the same import.' },
      rows: { type: 'integer' }, valid: { type: 'integer' },
      moreErrors: { type: 'integer', minimum: 0, description: 'Errors found beyond the first 1,000 listed in errors.' },
      errors: { type: 'array', maxItems: 1000, description: 'The first 1,000 errors by line; a cell is quoted up to 200 characters, then an ellipsis and its full length.', items: { type: 'object', required: ['line', 'field', 'message'], properties: { line: { type: 'integer', description: 'The header is line 1.' }, field: { type: 'string' }, message: { type: 'string' } } } },
      applied: { type: 'boolean', description: 'Apply only: false when the same file had been applied already.' },
      appliedAt: nullable(instant('Apply only: when the file was applied.')),
      policies: { type: 'array', description: 'Apply only: the versions written.', items: { type: 'object', properties: { vendorId: ID, version: { type: 'integer' } } } },
      job: { type: 'null', description: 'Apply only: null. The versions apply to new orders; no per-release work remains.' },
    },
  },
  AuditVerification: {
    type: 'object',
    required: ['ok', 'records', 'streams', 'checkpoints', 'firstBroken', 'unsignedRecords'],
    properties: {
      ok: { type: 'boolean' }, records: { type: 'integer' }, streams: { type: 'integer' }, checkpoints: { type: 'integer' },
      firstBroken: nullable({ type: 'object', required: ['stream', 'sequence', 'reason'], properties: { stream: { type: 'string' }, sequence: { type: 'integer' }, reason: { type: 'string' } } }),
      unsignedRecords: { type: 'integer', description: 'Chained records after the last checkpoint of their stream (not yet signed).' },
    },
  },
  AuditRecord: object(
    'One audit record exactly as stored (docs/audit-log.md): `hash` is the SHA-256 of the RFC 8785 form of every other member.',
    ['stream', 'sequence', 'prevHash', 'kind', 'at', 'actor', 'orderId', 'vendorId', 'detail', 'recordedAt', 'hash'],
    {
      stream: { type: 'string', example: 'order#order_1' }, sequence: { type: 'integer', minimum: 1 }, prevHash: HEX64, kind: { type: 'string' },
      at: { type: 'string' }, actor: nullable({ type: 'string' }), orderId: nullable({ type: 'string' }), vendorId: nullable({ type: 'string' }),
      detail: { type: 'object', additionalProperties: true }, recordedAt: { type: 'string', format: 'date-time' }, hash: HEX64,
    },
  ),
  AuditCheckpoint: {
    type: 'object',
    description: 'A signed checkpoint (docs/audit-log.md): `hash` covers the RFC 8785 form of every member but `hash` and `signature`; a checkpoint without `version` was written before roots (version 1).',
    required: ['number', 'previousHash', 'heads', 'keyId', 'algorithm', 'hash', 'signature'],
    properties: {
      version: { type: 'integer', enum: [2] }, number: { type: 'integer', minimum: 1 }, at: { type: 'string', format: 'date-time' }, coveredUntil: { type: 'string', format: 'date-time' },
      previousHash: HEX64,
      heads: { type: 'array', description: 'Sorted by stream in UTF-8 byte order.', items: { type: 'object', required: ['stream', 'sequence', 'hash'], properties: { stream: { type: 'string' }, sequence: { type: 'integer' }, hash: HEX64 } } },
      root: { ...HEX64, description: 'RFC 9162 Merkle tree hash over the heads.' },
      keyId: { type: 'string' }, algorithm: { type: 'string', enum: ['Ed25519', 'ECDSA_SHA_256'] }, hash: HEX64, signature: { type: 'string', description: 'Base64.' },
    },
  },
  AuditPublicKey: {
    type: 'object',
    required: ['keyId', 'algorithm', 'publicKeyPem', 'from', 'to'],
    properties: {
      keyId: { type: 'string' }, algorithm: { type: 'string', enum: ['Ed25519', 'ECDSA_SHA_256'] }, publicKeyPem: { type: 'string', description: 'SPKI, PEM.' },
      from: nullable({ type: 'string', format: 'date-time', description: 'Put in service (null: not known).' }), to: nullable({ type: 'string', format: 'date-time', description: 'Retired (null: in service).' }),
    },
  },
  AuditProof: {
    type: 'object',
    required: ['stream', 'records', 'checkpoint', 'leafIndex', 'treeSize', 'path', 'pending'],
    properties: {
      stream: { type: 'string' },
      records: { type: 'array', items: ref('AuditRecord'), description: 'Every record of the stream up to the head the checkpoint signed.' },
      checkpoint: nullable({ ...ref('AuditCheckpoint') }),
      leafIndex: nullable({ type: 'integer', description: "The head's place among the checkpoint's heads (0-based)." }),
      treeSize: nullable({ type: 'integer', description: "The checkpoint's number of heads." }),
      path: { type: 'array', items: HEX64, description: 'RFC 9162 inclusion path of the head in `checkpoint.root`, from the leaf up.' },
      pending: { type: 'array', items: ref('AuditRecord'), description: 'Records after the signed head (chained, not yet signed).' },
    },
  },
  HoldSource: { type: 'string', enum: ['dispute', 'risk', 'finance', 'vendor_request'], description: 'Who placed a hold, strongest first: lifting needs the same source or a stronger one.' },
  HoldAnswer: {
    type: 'object',
    required: ['vendorId', 'held', 'actor', 'reason', 'at', 'job'],
    properties: {
      source: ref('HoldSource'),
      vendorId: ID, held: { type: 'boolean', description: 'true after hold, false after unhold. In force from this answer: nothing of a held vendor is sent after it.' }, actor: { type: 'string' }, reason: { type: 'string' },
      at: { type: 'string', format: 'date-time', description: 'When the hold or unhold was recorded.' },
      job: nullable({ ...ref('Job'), description: 'The rest (each open release shown HELD, or planned again on unhold, schedules moved) as a job; null when the vendor has no open release.' }),
    },
    additionalProperties: false,
  },
};

Object.assign(COMPONENTS, APPROVAL_SCHEMAS);

/** What PUT /settings answers: the saved settings and `job` (null: nothing per release remains). */
COMPONENTS.SettingsAnswer = {
  ...COMPONENTS.Settings,
  properties: { ...(COMPONENTS.Settings.properties as Json), job: { type: 'null', description: 'No per-release work remains: the settings are in force from this answer.' } },
};
