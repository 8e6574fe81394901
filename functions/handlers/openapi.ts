/** The OpenAPI 3.1 document of Holdback's whole API (contract section 6), served at GET /openapi.json and checked against the routes by a test. */

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
/** A lowercase hex SHA-256. */
const HEX64: Json = { type: 'string', pattern: '^[0-9a-f]{64}$' };
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
const instant = (description: string): Json => ({ type: 'string', format: 'date-time', description: `${description} ISO 8601 with the settings' timezone offset.`, example: '2022-12-02T16:00:00+05:30' });
const decimal = (description: string): Json => ({ type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$', description: `${description} Decimal text in the currency given beside it (never added across currencies), never a float.`, example: '600.00' });
const ID = { type: 'string', pattern: '^[A-Za-z0-9_-]{3,45}$', description: "The gateway's id rule: 3 to 45 of A-Z, a-z, 0-9, '_' and '-'." };
const pathId = (name: string, example: string): Json => ({ name, in: 'path', required: true, schema: ID, example });
const query = (name: string, schema: Json, description: string): Json => ({ name, in: 'query', required: false, schema, description });
/** Every date Holdback reads lies in [2000-01-01, 2100-01-01), with an offset from -12:00 to +14:00 (README "Bounds"). */
const DATE_BOUNDS = 'From 2000-01-01 to before 2100-01-01; an offset from -12:00 to +14:00; outside, or to before from: 400 naming the field.';
const FROM = query('from', { type: 'string' }, `First India-time day (YYYY-MM-DD: from its start) or an ISO 8601 instant with an offset. ${DATE_BOUNDS}`);
const TO = query('to', { type: 'string' }, `Last India-time day (YYYY-MM-DD: to its end) or an ISO 8601 instant with an offset. ${DATE_BOUNDS}`);
/** The forecast's range: India-time days only. */
const DAY_FROM = query('from', { type: 'string', format: 'date' }, 'First India-time day (YYYY-MM-DD), 2000-01-01 to 2099-12-31; default today.');
const DAY_TO = query('to', { type: 'string', format: 'date' }, 'Last India-time day (YYYY-MM-DD), 2000-01-01 to 2099-12-31, not before from; default 30 days after from; at most 366 days in all.');
const required = (parameter: Json, example: string): Json => ({ ...parameter, required: true, example });
const LIMIT = (max: number, fallback: number, what: string): Json => query('limit', { type: 'integer', minimum: 1, maximum: max, default: fallback }, what);
const CURSOR = query('cursor', { type: 'string' }, 'From nextCursor of the previous page.');
const page = (name: string, item: Json, extra: Json = {}): Json => ({
  type: 'object', required: [name, 'nextCursor'], properties: { [name]: { type: 'array', items: item }, nextCursor: nullable({ type: 'string' }), ...extra }, additionalProperties: true,
});
/** An answer that may be larger than an AWS Lambda response can carry (the HTTP API cannot stream it). */
const TOO_LARGE_ON_AWS = 'response_too_large, on AWS only: the answer exceeds what a Lambda response may carry; page with format=json and cursor, or narrow from/to.';
const jsonBody = (schema: Json, example: unknown): Json => ({ required: true, content: { 'application/json': { schema, example } } });
const ok = (description: string, schema: Json, extra: Json = {}): Json => ({ description, content: { 'application/json': { schema } }, ...extra });
const error = (description: string): Json => ({ description, content: { 'application/json': { schema: ref('Error') } } });

/** The refusals every route may answer, plus each route's own. */
function responses(success: Record<string, Json>, refusals: Record<string, string> = {}): Json {
  return {
    ...success,
    ...Object.fromEntries(Object.entries(refusals).map(([status, why]) => [status, error(why)])),
    500: error('A fault of Holdback; the details are in its log, never in the answer.'),
  };
}

const POLICY_EXAMPLE = { scheduleOption: 1, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'finance@example.com', reason: 'trusted vendor' };
const SETTINGS_EXAMPLE = { deferByDays: 15, timezone: 'Asia/Kolkata', defaultScheduleOption: 1, holidays: ['2022-12-25'], settlementDays: 'working', releaseLead: 'PT1H' };

const schemas: Record<string, Json> = {
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
  Settings: {
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
      version: { type: 'integer', description: 'PUT: the version you read (409 version_conflict when stale).' },
      previewId: { type: 'string', description: 'PUT: applies only if what that settings preview showed still holds, else 409 preview_stale.' },
      actor: { type: 'string' },
      reason: { type: 'string' },
      at: instant('When this version was saved.'),
    },
    additionalProperties: false,
  },
  ReleaseRule: {
    oneOf: [
      { type: 'object', required: ['kind'], properties: { kind: { const: 'at_max' } } },
      { type: 'object', required: ['kind'], properties: { kind: { const: 'immediate' } } },
      { type: 'object', required: ['kind', 'delay'], properties: { kind: { const: 'after_payment' }, delay: { type: 'string', example: 'P3D' } } },
      { type: 'object', required: ['kind', 'delay'], properties: { kind: { const: 'after_delivery' }, delay: { type: 'string', example: 'P2D' } } },
    ],
  },
  PolicyInput: {
    type: 'object',
    required: ['scheduleOption', 'release', 'actor', 'reason'],
    properties: {
      scheduleOption: { type: 'integer' },
      release: ref('ReleaseRule'),
      actor: { type: 'string' },
      reason: { type: 'string' },
      expectedVersion: { type: 'integer', description: 'Refused with 409 when the current version is another.' },
      applyTo: { type: 'string', enum: ['new_orders', 'open_orders'], default: 'new_orders' },
      previewId: { type: 'string', description: 'Applies only if what that preview showed still holds, else 409 preview_stale.' },
      maxExposure: ref('MaxExposure'),
    },
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
      capStopped: { type: 'array', description: "Policy preview (contract 6.4): the candidate's early releases its maxExposure would stop; they would wait (exposure_cap) until exposure falls or max eligibility comes.", items: { type: 'object', required: ['orderId', 'vendorId', 'currency', 'amount', 'message'], properties: { orderId: ID, vendorId: ID, currency: { type: 'string' }, amount: decimal('The release.'), message: { type: 'string', description: 'The figures: exposure then, the cap, this amount, the currency.' } } } },
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
      vendorId: ID, actor: { type: 'string' }, detail: { type: 'object', additionalProperties: true },
      sequence: { type: 'integer', description: "The audit record's place in the order's stream (absent for a received event)." },
    },
  },
  Job: {
    type: 'object',
    description: 'Bulk work in progress or done (contract 6.3). It survives a restart, a crash or a function timeout and carries on; work done twice changes nothing twice.',
    required: ['jobId', 'kind', 'state', 'total', 'done', 'failed', 'actor', 'createdAt', 'finishedAt', 'error', 'result'],
    properties: {
      jobId: { type: 'string', pattern: '^job_[0-9]{13}_[0-9a-z]{10}$', example: 'job_1669975200000_k3v9x0q2m1' },
      kind: { type: 'string', enum: ['vendor_hold', 'vendor_unhold', 'policy_apply', 'outcomes_export', 'audit_export'] },
      state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] },
      total: { type: 'integer', minimum: 0, description: 'Items found so far (releases, or rows of an export); final once the job ended.' },
      done: { type: 'integer', minimum: 0 }, failed: { type: 'integer', minimum: 0, description: 'Items that failed; each of the first 100 is named in failures.' },
      actor: { type: 'string' }, createdAt: instant('When the job was started.'), finishedAt: nullable(instant('When it ended.')),
      error: nullable({ type: 'string', description: 'Why the job failed (state failed).' }),
      result: { description: 'An export: {url, expiresAt, rows, bytes, sha256}, the link valid at least an hour. Otherwise null.', oneOf: [{ type: 'null' }, ref('ExportResult')] },
      params: { type: 'object', description: 'What the job works on, e.g. {vendorId, reason}, or an export\'s filters.' },
      failures: { type: 'array', items: { type: 'object', required: ['orderId', 'vendorId', 'reason'], properties: { orderId: ID, vendorId: ID, reason: { type: 'string' } } } },
    },
    additionalProperties: false,
  },
  ExportResult: {
    type: 'object',
    required: ['url', 'expiresAt', 'rows', 'bytes', 'sha256'],
    properties: {
      url: { type: 'string', description: 'The download link: on AWS a pre-signed S3 URL, locally GET /exports/{file}?token= of this API.' },
      expiresAt: { type: 'string', format: 'date-time' }, rows: { type: 'integer', minimum: 0 }, bytes: { type: 'integer', minimum: 0 },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the file, lowercase hex.' },
    },
  },
  ExportInput: {
    oneOf: [
      {
        type: 'object', required: ['kind', 'format'], additionalProperties: false,
        properties: {
          kind: { const: 'outcomes' }, format: { type: 'string', enum: ['csv', 'jsonl'], description: 'csv: the columns of contract 6.1; jsonl: one outcome as GET /outcomes shows it a line.' },
          filters: { type: 'object', description: 'The filters of GET /outcomes (vendorId, orderId, state, from, to, by) as text; not cursor or limit.', additionalProperties: { type: 'string' } },
          actor: { type: 'string' },
        },
      },
      { type: 'object', required: ['kind'], additionalProperties: false, properties: { kind: { const: 'audit' }, from: { type: 'string' }, to: { type: 'string' }, actor: { type: 'string' } } },
    ],
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
  AuditRecord: {
    type: 'object',
    description: 'One audit record exactly as stored (docs/audit-log.md): `hash` is the SHA-256 of the RFC 8785 form of every other member.',
    required: ['stream', 'sequence', 'prevHash', 'kind', 'at', 'actor', 'orderId', 'vendorId', 'detail', 'recordedAt', 'hash'],
    properties: {
      stream: { type: 'string', example: 'order#order_1' }, sequence: { type: 'integer', minimum: 1 }, prevHash: HEX64, kind: { type: 'string' },
      at: { type: 'string' }, actor: nullable({ type: 'string' }), orderId: nullable({ type: 'string' }), vendorId: nullable({ type: 'string' }),
      detail: { type: 'object', additionalProperties: true }, recordedAt: { type: 'string', format: 'date-time' }, hash: HEX64,
    },
  },
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
  HoldInput: {
    type: 'object',
    required: ['actor', 'reason'],
    properties: { actor: { type: 'string' }, reason: { type: 'string' }, source: { ...ref('HoldSource'), description: 'Default finance. Unhold: the same source as the hold or a stronger one, else 409 hold_source.' } },
  },
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
  ActionInput: {
    type: 'object',
    required: ['actor', 'reason'],
    properties: { actor: { type: 'string' }, reason: { type: 'string' } },
  },
};

const PREVIEW_LIMIT = query('limit', { type: 'integer', minimum: 0, maximum: 10_000, default: 1000 }, 'Releases listed (perDay always covers every release).');

/** On AWS Lambda the console's bundler is not shipped: the page is served by `npx holdback console` on the user's machine instead. */
const CONSOLE_UNAVAILABLE = 'console_unavailable: the console cannot be built here (on AWS); run `npx holdback console --api-url <this API\'s URL>`.';

/** Each route: its operation. Paths use API Gateway's `{name}` parameters, as the router does. */
/** What PUT /settings answers: the saved settings and `job` (null: nothing per release remains). */
schemas.SettingsAnswer = {
  ...schemas.Settings,
  properties: { ...(schemas.Settings.properties as Json), job: { type: 'null', description: 'No per-release work remains: the settings are in force from this answer.' } },
};

const paths: Record<string, Record<string, Json>> = {
  '/health': { get: { summary: 'Liveness', responses: responses({ 200: ok('Up.', { type: 'object', required: ['status'], properties: { status: { const: 'ok' } }, additionalProperties: false }) }) } },
  '/openapi.json': { get: { summary: 'This document', responses: responses({ 200: ok('OpenAPI 3.1.', { type: 'object' }) }) } },
  '/console': { get: { summary: 'The web console for finance and auditors', responses: responses({ 200: { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } }, { 503: CONSOLE_UNAVAILABLE }) } },
  '/console/{asset}': {
    get: {
      summary: "One of the console's bundled assets (script, style)",
      parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string' }, example: 'clock', description: 'A hashed script or stylesheet name from the page, or "clock" (Holdback\'s time).' }],
      responses: responses({ 200: { description: 'The asset.', content: { 'application/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object', required: ['now'], properties: { now: { type: 'string', format: 'date-time', description: "clock: Holdback's time (locally the shared clock), ISO 8601 in India time (+05:30)." } } } } } } }, { 404: 'No such asset.', 503: CONSOLE_UNAVAILABLE }),
    },
  },
  '/settings': {
    get: { summary: 'Settings in force', responses: responses({ 200: ok('Current settings.', ref('Settings')) }) },
    put: {
      summary: 'Change settings (new version)',
      requestBody: jsonBody(ref('Settings'), { ...SETTINGS_EXAMPLE, actor: 'finance@example.com', reason: 'mirror the dashboard' }),
      responses: responses({ 200: ok('The saved version, in force from this answer (every release is planned under it when it is claimed); `job` is null: no per-release work remains.', ref('SettingsAnswer')) }, { 400: 'A field is wrong; the message names it.', 409: 'Stale `version` or `previewId` (preview_stale).' }),
    },
  },
  '/settings/history': { get: { summary: 'Every saved settings version, newest first', responses: responses({ 200: ok('Versions.', { type: 'object', properties: { versions: { type: 'array', items: ref('Settings') } } }) }) } },
  '/settings/preview': {
    post: {
      summary: 'What a settings change would move, changing nothing',
      parameters: [PREVIEW_LIMIT],
      requestBody: jsonBody(ref('Settings'), { deferByDays: 10 }),
      responses: responses({ 200: ok('Every unsent release it would move, and those the gateway would refuse.', ref('Preview')) }, { 400: 'A field or limit is wrong.' }),
    },
  },
  '/vendors': {
    get: {
      summary: 'Vendors Holdback knows, with policy version and hold',
      parameters: [LIMIT(1000, 100, 'Page size.'), CURSOR, query('checkGateway', { type: 'boolean', default: false }, "true: ask the gateway for each vendor's schedule option too.")],
      responses: responses({ 200: ok('A page.', page('items', ref('VendorSummary'))) }, { 400: 'Bad limit, cursor or checkGateway.' }),
    },
  },
  '/vendors/{vendorId}/policy': {
    get: { summary: "A vendor's policy", parameters: [pathId('vendorId', 'vendor_a')], responses: responses({ 200: ok('Policy (version 0: the default).', ref('Policy')) }, { 400: 'Bad vendor id.' }) },
    put: {
      summary: "Change a vendor's policy (new version)",
      parameters: [pathId('vendorId', 'vendor_a')],
      requestBody: jsonBody(ref('PolicyInput'), POLICY_EXAMPLE),
      responses: responses({ 200: ok('The saved version, with `job`: with applyTo open_orders, the job that plans every open release again (in force from this answer: a release claimed after it is planned under the new version instead of sent under the old); null otherwise or when no release is open.', { allOf: [ref('Policy'), { type: 'object', required: ['job'], properties: { job: nullable(ref('Job')) } }] }) }, { 400: 'A field is wrong.', 409: 'Stale expectedVersion, or preview_stale.' }),
    },
  },
  '/vendors/{vendorId}/policy/history': {
    get: { summary: 'Every policy version, newest first', parameters: [pathId('vendorId', 'vendor_a')], responses: responses({ 200: ok('Versions.', { type: 'object', properties: { vendorId: ID, versions: { type: 'array', items: ref('Policy') } } }) }, { 400: 'Bad vendor id.' }) },
  },
  '/vendors/{vendorId}/policy/preview': {
    post: {
      summary: 'What a policy change would move, changing nothing',
      parameters: [pathId('vendorId', 'vendor_a'), PREVIEW_LIMIT],
      requestBody: jsonBody(ref('PolicyInput'), POLICY_EXAMPLE),
      responses: responses({ 200: ok("The vendor's unsent releases now and under the change, with totals per India-time day.", ref('Preview')) }, { 400: 'A field or limit is wrong.' }),
    },
  },
  '/vendors/{vendorId}/forecast': {
    get: { summary: "A vendor's expected settlements per day", parameters: [pathId('vendorId', 'vendor_a'), DAY_FROM, DAY_TO], responses: responses({ 200: ok('Days.', ref('Forecast')) }, { 400: 'Bad vendor id or range.', 404: 'A vendor Holdback does not know (no order or policy names it).' }) },
  },
  '/vendors/{vendorId}/hold': {
    post: { summary: "Hold a vendor's money (nothing sent until unhold); repeating it answers 200 again", parameters: [pathId('vendorId', 'vendor_a')], requestBody: jsonBody(ref('HoldInput'), { actor: 'risk@example.com', reason: 'fraud review', source: 'risk' }), responses: responses({ 200: ok('The hold and how many releases it held.', ref('HoldAnswer')) }, { 400: 'A field is wrong.', 404: 'A vendor Holdback does not know (no policy, hold or order).' }) },
  },
  '/vendors/{vendorId}/unhold': {
    post: { summary: 'Release a vendor hold; its releases are planned again', parameters: [pathId('vendorId', 'vendor_a')], requestBody: jsonBody(ref('HoldInput'), { actor: 'risk@example.com', reason: 'review cleared', source: 'risk' }), responses: responses({ 200: ok('The unhold and how many releases were planned again.', ref('HoldAnswer')) }, { 400: 'A field is wrong.', 404: 'A vendor Holdback does not know.', 409: 'hold_source: the hold was placed by a stronger source than the one sent (the message names it and what to send).' }) },
  },
  '/orders/{orderId}': {
    get: { summary: 'One order and each vendor release, with why', parameters: [pathId('orderId', 'order_1001')], responses: responses({ 200: ok('The order.', ref('Order')) }, { 400: 'Bad order id.', 404: 'Nothing is known of this order.' }) },
  },
  '/orders/{orderId}/timeline': {
    get: { summary: "The order's whole story in time order", parameters: [pathId('orderId', 'order_1001')], responses: responses({ 200: ok('Entries with at, kind, vendorId?, actor? and detail.', { type: 'object', required: ['orderId', 'items'], properties: { orderId: ID, items: { type: 'array', items: ref('TimelineItem') } } }) }, { 400: 'Bad order id.', 404: 'Unknown order.' }) },
  },
  '/orders/{orderId}/vendors/{vendorId}/release': {
    post: {
      summary: 'Manual early release of one vendor of one order',
      parameters: [pathId('orderId', 'order_1001'), pathId('vendorId', 'vendor_a')],
      requestBody: jsonBody({ allOf: [ref('ActionInput'), { type: 'object', properties: { at: { type: 'string', description: "Eligibility to send (India time \"YYYY-MM-DD HH:MM:SS\" or ISO 8601 with an offset), sent releaseLead before it; absent: as soon as the gateway accepts. Refused (400 naming at) when it is after the release's max eligibility or before its transaction time, and when it has passed unless confirmPast is true." }, override: { type: 'boolean', description: 'Required to release a HELD release.' }, confirmPast: { type: 'boolean', default: false, description: 'true: an at that has passed is meant; it is sent with the next minute the gateway accepts. Without it such an at is refused.' } } }] }, { actor: 'finance@example.com', reason: 'vendor in hardship' }),
      responses: responses({ 200: ok('The release as planned now.', ref('Release')) }, { 400: 'A field is wrong: at in the past without confirmPast, or outside the window [transaction time, max eligibility].', 404: 'Unknown order or vendor.', 409: 'invalid_state: the state does not allow a manual release (named in the message).' }),
    },
  },
  '/orders/{orderId}/vendors/{vendorId}/retry': {
    post: {
      summary: 'Retry a FAILED release while its window is open',
      parameters: [pathId('orderId', 'order_1001'), pathId('vendorId', 'vendor_a')],
      requestBody: jsonBody(ref('ActionInput'), { actor: 'ops@example.com', reason: 'gateway recovered' }),
      responses: responses({ 200: ok('The release as planned now.', ref('Release')) }, { 400: 'A field is wrong.', 404: 'Unknown order or vendor.', 409: 'invalid_state: only a FAILED release with its window open can be retried.' }),
    },
  },
  '/jobs': {
    get: {
      summary: 'Jobs, newest first (contract 6.3)',
      parameters: [
        query('state', { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] }, 'One state.'),
        query('kind', { type: 'string', enum: ['vendor_hold', 'vendor_unhold', 'policy_apply', 'outcomes_export', 'audit_export'] }, 'One kind.'),
        LIMIT(100, 20, 'Page size.'), CURSOR,
      ],
      responses: responses({ 200: ok('A page of jobs.', page('items', ref('Job'))) }, { 400: 'A parameter is wrong; the message names it.' }),
    },
  },
  '/jobs/{jobId}': {
    get: {
      summary: 'One job: its state and progress, and an export\'s link',
      parameters: [{ name: 'jobId', in: 'path', required: true, schema: { type: 'string' }, example: 'job_1669975200000_k3v9x0q2m1' }],
      responses: responses({ 200: ok('The job.', ref('Job')) }, { 400: 'Not a job id.', 404: 'No such job.' }),
    },
  },
  '/exports': {
    post: {
      summary: 'An export of any size as a file, written by a job (contract 6.3)',
      requestBody: jsonBody(ref('ExportInput'), { kind: 'outcomes', format: 'csv', filters: { vendorId: 'vendor_a', from: '2022-12-01', to: '2022-12-31' } }),
      responses: responses({ 202: ok('The export job; GET /jobs/{jobId} until its result carries the link.', { type: 'object', required: ['job'], properties: { job: ref('Job') } }) }, { 400: 'A field or filter is wrong (filters.<name>); no job was started.' }),
    },
  },
  '/exports/{file}': {
    get: {
      summary: 'Locally: an export file, by the link of its job\'s result (on AWS the link is a pre-signed S3 URL instead)',
      parameters: [
        { name: 'file', in: 'path', required: true, schema: { type: 'string' }, example: 'job_1669975200000_k3v9x0q2m1.csv' },
        { name: 'token', in: 'query', required: true, schema: { type: 'string' }, description: 'The unguessable token of the link.' },
      ],
      responses: responses({
        200: { description: 'The whole file.', content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } } },
      }, { 404: 'No such file, or not this token.', 410: 'export_expired: the link expired; POST /exports again.' }),
    },
  },
  '/outcomes': {
    get: {
      summary: 'Releases for auditors: filters, cursor pages, JSON or CSV (contract 6.1)',
      parameters: [
        query('vendorId', ID, 'One vendor.'), query('orderId', ID, 'One order.'),
        query('state', { type: 'string', enum: ['PLANNED', 'SCHEDULED', 'WAITING', 'HELD', 'APPLYING', 'APPLIED', 'AT_MAX', 'CANCELLED', 'FAILED', 'SETTLED'] }, 'One state.'),
        FROM, TO, query('by', { type: 'string', enum: ['transaction', 'applied', 'settled'], default: 'transaction' }, 'Which time from/to range over.'),
        LIMIT(1000, 100, 'Page size (JSON only; refused with format=csv).'),
        { ...CURSOR, description: 'From nextCursor of the previous page, with the same filters (JSON only; refused with format=csv).' },
        query('format', { type: 'string', enum: ['json', 'csv'], default: 'json' }, 'CSV streams every matching row.'),
      ],
      responses: responses({
        200: {
          description: 'JSON page, or CSV with the columns of contract 6.1.',
          content: {
            'application/json': { schema: page('items', ref('Outcome')) },
            'text/csv': { schema: { type: 'string' }, example: 'order_id,vendor_id,amount,currency,state,policy_version,schedule_option,transaction_time,max_eligibility,target_eligibility,applied_eligibility,predicted_settlement,settled_at,attempts,last_gateway_status,last_gateway_message\r\n' },
          },
        },
      }, { 400: 'A query parameter is wrong (unknown, or a cursor of other filters); every one is named.', 413: TOO_LARGE_ON_AWS }),
    },
  },
  '/alerts/held-settling': {
    get: {
      summary: 'Held money the gateway settles anyway within holdWarning (contract 6.4)',
      description: 'A hold only stops an early release: at max eligibility the gateway settles whatever Holdback holds. Every HELD release whose settlement after its max eligibility falls within the settings\' holdWarning (default P2D), soonest first; the overview shows it as an alert.',
      parameters: [query('vendorId', ID, 'One vendor.')],
      responses: responses({
        200: ok('The alert.', {
          type: 'object', required: ['holdWarning', 'until', 'items', 'totals'],
          properties: {
            holdWarning: { type: 'string', example: 'P2D' }, until: instant('Held money settling until this instant is listed.'),
            items: { type: 'array', items: { type: 'object', required: ['orderId', 'vendorId', 'amount', 'currency', 'holdReason', 'holdSource', 'maxEligibility', 'settlesAnywayAt'], properties: { orderId: ID, vendorId: ID, amount: decimal('Held.'), currency: { type: 'string' }, holdReason: nullable({ type: 'string', enum: ['dispute', 'vendor_hold'] }), holdSource: ref('HoldSource'), maxEligibility: instant('Its max eligibility.'), settlesAnywayAt: instant('When the gateway settles it anyway.') } } },
            totals: { type: 'array', items: { type: 'object', properties: { currency: { type: 'string' }, count: { type: 'integer' }, amount: decimal('Per currency.') } } },
          },
        }),
      }, { 400: 'Bad vendor id.' }),
    },
  },
  '/forecast': {
    get: {
      summary: 'Expected settlements per India-time day, firm and projected',
      parameters: [DAY_FROM, DAY_TO, query('vendorId', ID, 'One vendor.')],
      responses: responses({ 200: ok('Days.', ref('Forecast')) }, { 400: 'Bad range.' }),
    },
  },
  '/reports/prediction-accuracy': {
    get: {
      summary: 'Predicted against actual settlement, per schedule option',
      parameters: [required(FROM, '2022-12-01'), required(TO, '2022-12-31')],
      responses: responses({
        200: ok('The range (by settlement time) and one row per schedule option settled in it.', {
          type: 'object',
          required: ['from', 'to', 'scheduleOptions'],
          properties: {
            from: instant('Start of the range.'), to: instant('End of the range.'),
            scheduleOptions: {
              type: 'array',
              items: {
                type: 'object',
                required: ['scheduleOption', 'settled', 'asPredicted', 'maxDifferenceMinutes', 'predicted', 'unpredicted', 'unpredictedReasons'],
                properties: {
                  scheduleOption: { type: 'integer' }, settled: { type: 'integer', description: 'Settlements reported in the range, predicted or not.' },
                  asPredicted: { type: 'integer', description: 'Settled at the minute predicted before the settlement.' },
                  maxDifferenceMinutes: { type: 'integer', description: 'Largest |settled - predicted| over the predicted ones, in minutes.' },
                  predicted: { type: 'integer', description: 'Settlements that had a prediction before they happened.' },
                  unpredicted: { type: 'integer', description: 'Settlements with no prediction before them (cancelled, held, waiting, not yet sent): never counted as predicted.' },
                  unpredictedReasons: { type: 'array', items: { type: 'object', required: ['reason', 'count'], properties: { reason: { type: 'string' }, count: { type: 'integer' } } } },
                },
              },
            },
          },
        }),
      }, { 400: 'from or to missing or wrong.' }),
    },
  },
  '/predictions': {
    post: {
      summary: 'When an eligibility settles under a schedule option',
      requestBody: jsonBody({ type: 'object', required: ['eligibility', 'scheduleOption'], properties: { eligibility: { type: 'string', description: 'Gateway form (India time) or ISO 8601 with an offset from -12:00 to +14:00; from 2000-01-01 to before 2100-01-01.' }, scheduleOption: { type: 'integer' } } }, { eligibility: '2022-12-06 09:00:00', scheduleOption: 1 }),
      responses: responses({ 200: ok('The settlement slot.', { type: 'object', required: ['settlementAt'], properties: { settlementAt: instant('First slot after the eligibility.') }, additionalProperties: false }) }, { 400: 'A field is wrong.' }),
    },
  },
  '/rejected-events': {
    get: {
      summary: 'Malformed events and why, newest arrival first',
      description: 'Order events refused or kept without effect, signed gateway webhooks refused (400), and vendor settlements (VENDOR_SETTLEMENT_SUCCESS) that match no release: an unknown order, a vendor outside the order, no single order_id and vendor_id. Those settlements are still acknowledged 200 to the gateway (it would only deliver them again); source "gateway.webhook".',
      parameters: [LIMIT(500, 100, 'Page size.'), CURSOR],
      responses: responses({ 200: ok('A page.', page('rejectedEvents', { type: 'object', properties: { sequence: { type: 'integer', description: 'Its number in the order of arrival, from 1.' }, at: instant('When it was refused.') }, additionalProperties: true }, { count: { type: 'integer', description: 'Rejected in all, not only on this page.' } })) }, { 400: 'Bad limit or cursor.' }),
    },
  },
  '/policies/import': {
    post: {
      summary: 'Bulk policies from CSV: a dry run by default; an apply is all or nothing and idempotent',
      parameters: [query('dryRun', { type: 'string', enum: ['true', 'false'], default: 'true' }, 'false applies.'), { name: 'actor', in: 'query', required: true, schema: { type: 'string' }, example: 'finance@example.com' }],
      requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' }, example: 'vendorId,scheduleOption,release,delay,reason\nvendor_a,1,after_delivery,P2D,trusted\n' } } },
      responses: responses({ 200: ok('A dry run: what is wrong where. An apply: the versions written (none when the same file was applied before).', ref('ImportAnswer')) }, {
        400: 'Not text/csv, too many lines, a bad query, or (apply) any line wrong: every line and field is named and nothing is applied.',
        409: 'import_conflict: a policy changed while applying, nothing of the file stays applied; import_in_progress: the same file is still being applied.',
        413: 'payload_too_large: the body is larger than the API accepts.',
      }),
    },
  },
  '/audit/verify': {
    get: { summary: 'Verify the hash-chained, signed audit log', responses: responses({ 200: ok('The first broken link (null: none), and what was checked.', ref('AuditVerification')) }) },
  },
  '/audit/export': {
    get: { summary: 'Audit records and signed checkpoints as JSON lines', parameters: [FROM, TO], responses: responses({ 200: { description: 'A header line, the checkpoints, then the records: one JSON object per line.', content: { 'application/x-ndjson': { schema: { type: 'string' } } } } }, { 400: 'Bad range.', 413: TOO_LARGE_ON_AWS }) },
  },
  '/audit/public-key': {
    get: { summary: 'The public key that verifies checkpoints (PEM)', responses: responses({ 200: { description: 'PEM.', content: { 'application/x-pem-file': { schema: { type: 'string' } } } } }, { 404: 'No audit key is configured in this runtime.' }) },
  },
  '/audit/public-keys': {
    get: { summary: 'Every key that ever signed a checkpoint: a checkpoint verifies under the key its keyId names', responses: responses({ 200: ok('Oldest first, the current key last.', { type: 'array', items: ref('AuditPublicKey') }) }, { 404: 'No audit key is configured in this runtime.' }) },
  },
  '/audit/proof': {
    get: {
      summary: "One stream's proof against a signed checkpoint: its records, the checkpoint, the head's inclusion path",
      parameters: [{ ...query('stream', { type: 'string' }, 'The stream: order#<orderId> (URL-encoded order%23<orderId>), vendor#<vendorId> or config.'), required: true, example: 'order#order_1' }],
      responses: responses({ 200: ok('Checked offline by `holdback audit prove <orderId>`; `checkpoint` is null while no checkpoint has signed the stream.', ref('AuditProof')) }, { 400: 'stream missing or not a stream name.', 404: 'No such stream in the audit log.' }),
    },
  },
  '/webhooks/gateway': {
    post: {
      summary: "The gateway's webhooks (payments, vendor settlements), verified by its signature",
      description: 'Locally served here with no other authorisation. On AWS the gateway posts to the stack output `WebhookUrl` '
        + '(the webhooks function\'s Lambda function URL, which answers this route alone: 404 on any other path, 405 on another '
        + 'method); this route of the HTTP API needs IAM (SigV4) like every other. A settlement that matches no release (unknown '
        + 'order or vendor) is answered 200 {action: "ignored"} and listed in GET /rejected-events with the reason.',
      security: [],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: responses({ 200: ok('What was done with it.', { type: 'object', additionalProperties: true }) }, { 400: 'Unreadable body.', 401: 'Bad or stale signature.' }),
    },
  },
};

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Holdback API',
    version: '1.0.0',
    description: "Holdback turns the gateway's per-order vendor settlement-eligibility PUT into a policy engine. JSON in and out; "
      + 'errors are `{"error": {"code", "message"}}` naming the field and what to send. Times are ISO 8601 with the settings\' '
      + 'timezone offset; amounts are decimal text. Locally at http://127.0.0.1:4000; on AWS an HTTP API with IAM (SigV4) '
      + 'authorisation on every route; the gateway\'s signed webhooks go to the stack output `WebhookUrl` instead.',
  },
  servers: [{ url: 'http://127.0.0.1:4000', description: 'The embedded default (npm start)' }],
  security: [{ sigv4: [] }],
  paths,
  components: {
    schemas,
    securitySchemes: { sigv4: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'AWS SigV4, service execute-api (IAM authorisation of the HTTP API).' } },
  },
} as const;
