/** The OpenAPI 3.1 document of Holdback's whole API (contract section 6), served at GET /openapi.json and checked against the routes by a test. */

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
const instant = (description: string): Json => ({ type: 'string', format: 'date-time', description: `${description} ISO 8601 with the settings' timezone offset.`, example: '2022-12-02T16:00:00+05:30' });
const decimal = (description: string): Json => ({ type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,2})?$', description: `${description} Decimal text in the order's currency (INR), never a float.`, example: '600.00' });
const ID = { type: 'string', pattern: '^[A-Za-z0-9_-]{3,45}$', description: "The gateway's id rule: 3 to 45 of A-Z, a-z, 0-9, '_' and '-'." };
const pathId = (name: string, example: string): Json => ({ name, in: 'path', required: true, schema: ID, example });
const query = (name: string, schema: Json, description: string): Json => ({ name, in: 'query', required: false, schema, description });
const FROM = query('from', { type: 'string', format: 'date' }, 'First India-time day (YYYY-MM-DD) or an ISO instant.');
const TO = query('to', { type: 'string', format: 'date' }, 'Last India-time day (YYYY-MM-DD) or an ISO instant.');
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
      version: { type: 'integer' },
      actor: { type: 'string' },
      reason: { type: 'string' },
      at: instant('When this version was saved.'),
    },
    additionalProperties: true,
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
    },
  },
  Policy: {
    type: 'object',
    required: ['vendorId', 'version', 'scheduleOption', 'release', 'actor', 'reason', 'at'],
    properties: {
      vendorId: ID, version: { type: 'integer', description: '0: no stored policy (the default applies).' },
      scheduleOption: { type: 'integer' }, release: ref('ReleaseRule'), actor: { type: 'string' }, reason: { type: 'string' },
      at: nullable(instant('When this version was saved.')),
    },
    additionalProperties: true,
  },
  Attempt: {
    type: 'object',
    properties: {
      at: instant('When the PUT was sent.'), request: { type: 'string', example: '2022-12-06 09:00:00', description: 'The eligibility sent, gateway form, India time.' },
      status: { type: 'string' }, subCode: nullable({ type: 'string' }), message: { type: 'string' },
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
      plannedSendAt: nullable(instant('When the PUT is planned.')),
      settledAt: nullable(instant('When the gateway reported the settlement.')),
    },
    additionalProperties: true,
  },
  Order: {
    type: 'object',
    required: ['orderId', 'transactionTime', 'maxEligibility', 'vendors'],
    properties: {
      orderId: ID,
      transactionTime: nullable(instant('The payment time (null until order.paid arrives).')),
      maxEligibility: nullable(instant('Transaction time + Defer by Days.')),
      vendors: { type: 'array', items: ref('Release') },
    },
    additionalProperties: true,
  },
  Outcome: { allOf: [ref('Release'), { type: 'object', properties: { orderId: ID, currency: { type: 'string' }, transactionTime: instant('Payment time.'), maxEligibility: instant('Window end.') } }] },
  PreviewDay: {
    type: 'object',
    properties: {
      date: { type: 'string', format: 'date', description: 'India-time day of predicted settlement.' },
      current: ref('CountAmount'), candidate: ref('CountAmount'),
    },
  },
  CountAmount: { type: 'object', properties: { count: { type: 'integer' }, amount: decimal('Sum.') } },
  Preview: {
    type: 'object',
    required: ['previewId', 'releases', 'perDay'],
    properties: {
      previewId: { type: 'string' },
      vendorId: ID,
      fromVersion: { type: 'integer' },
      releases: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            orderId: ID, state: { type: 'string' },
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
    properties: { date: { type: 'string', format: 'date' }, firm: ref('CountAmount'), projected: ref('CountAmount') },
    additionalProperties: true,
  },
  ActionInput: {
    type: 'object',
    required: ['actor', 'reason'],
    properties: { actor: { type: 'string' }, reason: { type: 'string' } },
  },
};

/** Each route: its operation. Paths use API Gateway's `{name}` parameters, as the router does. */
const paths: Record<string, Record<string, Json>> = {
  '/health': { get: { summary: 'Liveness', responses: responses({ 200: ok('Up.', { type: 'object', properties: { status: { const: 'ok' } } }) }) } },
  '/openapi.json': { get: { summary: 'This document', responses: responses({ 200: ok('OpenAPI 3.1.', { type: 'object' }) }) } },
  '/console': { get: { summary: 'The web console for finance and auditors', responses: responses({ 200: { description: 'HTML page.', content: { 'text/html': { schema: { type: 'string' } } } } }) } },
  '/console/{asset}': {
    get: {
      summary: "One of the console's bundled assets (script, style)",
      parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string' }, example: 'clock', description: 'A hashed script or stylesheet name from the page, or "clock" (Holdback\'s time).' }],
      responses: responses({ 200: { description: 'The asset.', content: { 'application/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } } }, { 404: 'No such asset.' }),
    },
  },
  '/settings': {
    get: { summary: 'Settings in force', responses: responses({ 200: ok('Current settings.', ref('Settings')) }) },
    put: {
      summary: 'Change settings (new version)',
      requestBody: jsonBody(ref('Settings'), { ...SETTINGS_EXAMPLE, actor: 'finance@example.com', reason: 'mirror the dashboard' }),
      responses: responses({ 200: ok('The saved version.', ref('Settings')) }, { 400: 'A field is wrong; the message names it.', 409: 'Stale `version` or `previewId` (preview_stale).' }),
    },
  },
  '/settings/history': { get: { summary: 'Every saved settings version, newest first', responses: responses({ 200: ok('Versions.', { type: 'object', properties: { versions: { type: 'array', items: ref('Settings') } } }) }) } },
  '/settings/preview': {
    post: {
      summary: 'What a settings change would move, changing nothing',
      requestBody: jsonBody(ref('Settings'), { deferByDays: 10 }),
      responses: responses({ 200: ok('Every unsent release it would move, and those the gateway would refuse.', ref('Preview')) }, { 400: 'A field is wrong.' }),
    },
  },
  '/vendors': {
    get: {
      summary: 'Vendors Holdback knows, with policy version and hold',
      parameters: [query('limit', { type: 'integer', minimum: 1, maximum: 1000 }, 'Page size.'), query('cursor', { type: 'string' }, 'From nextCursor.')],
      responses: responses({ 200: ok('A page.', { type: 'object', properties: { items: { type: 'array', items: { type: 'object', additionalProperties: true } }, nextCursor: nullable({ type: 'string' }) } }) }, { 400: 'Bad limit or cursor.' }),
    },
  },
  '/vendors/{vendorId}/policy': {
    get: { summary: "A vendor's policy", parameters: [pathId('vendorId', 'vendor_a')], responses: responses({ 200: ok('Policy (version 0: the default).', ref('Policy')) }, { 400: 'Bad vendor id.' }) },
    put: {
      summary: "Change a vendor's policy (new version)",
      parameters: [pathId('vendorId', 'vendor_a')],
      requestBody: jsonBody(ref('PolicyInput'), POLICY_EXAMPLE),
      responses: responses({ 200: ok('The saved version.', ref('Policy')) }, { 400: 'A field is wrong.', 409: 'Stale expectedVersion, or preview_stale.' }),
    },
  },
  '/vendors/{vendorId}/policy/history': {
    get: { summary: 'Every policy version, newest first', parameters: [pathId('vendorId', 'vendor_a')], responses: responses({ 200: ok('Versions.', { type: 'object', properties: { vendorId: ID, versions: { type: 'array', items: ref('Policy') } } }) }, { 400: 'Bad vendor id.' }) },
  },
  '/vendors/{vendorId}/policy/preview': {
    post: {
      summary: 'What a policy change would move, changing nothing',
      parameters: [pathId('vendorId', 'vendor_a')],
      requestBody: jsonBody(ref('PolicyInput'), POLICY_EXAMPLE),
      responses: responses({ 200: ok("The vendor's unsent releases now and under the change, with totals per India-time day.", ref('Preview')) }, { 400: 'A field is wrong.' }),
    },
  },
  '/vendors/{vendorId}/forecast': {
    get: { summary: "A vendor's expected settlements per day", parameters: [pathId('vendorId', 'vendor_a'), FROM, TO], responses: responses({ 200: ok('Days.', { type: 'object', additionalProperties: true }) }, { 400: 'Bad range.' }) },
  },
  '/vendors/{vendorId}/hold': {
    post: { summary: "Hold a vendor's money (nothing sent until unhold); repeating it answers 200 again", parameters: [pathId('vendorId', 'vendor_a')], requestBody: jsonBody(ref('ActionInput'), { actor: 'risk@example.com', reason: 'fraud review' }), responses: responses({ 200: ok('The hold and the releases it held.', { type: 'object', additionalProperties: true }) }, { 400: 'A field is wrong.', 404: 'A vendor Holdback does not know (no policy, hold or order).' }) },
  },
  '/vendors/{vendorId}/unhold': {
    post: { summary: 'Release a vendor hold; its releases are planned again', parameters: [pathId('vendorId', 'vendor_a')], requestBody: jsonBody(ref('ActionInput'), { actor: 'risk@example.com', reason: 'review cleared' }), responses: responses({ 200: ok('The releases planned again.', { type: 'object', additionalProperties: true }) }, { 400: 'A field is wrong.', 404: 'A vendor Holdback does not know.' }) },
  },
  '/orders/{orderId}': {
    get: { summary: 'One order and each vendor release, with why', parameters: [pathId('orderId', 'order_1001')], responses: responses({ 200: ok('The order.', ref('Order')) }, { 400: 'Bad order id.', 404: 'Nothing is known of this order.' }) },
  },
  '/orders/{orderId}/timeline': {
    get: { summary: "The order's whole story in time order", parameters: [pathId('orderId', 'order_1001')], responses: responses({ 200: ok('Entries with at, kind, vendorId?, actor? and detail.', { type: 'object', additionalProperties: true }) }, { 400: 'Bad order id.', 404: 'Unknown order.' }) },
  },
  '/orders/{orderId}/vendors/{vendorId}/release': {
    post: {
      summary: 'Manual early release of one vendor of one order',
      parameters: [pathId('orderId', 'order_1001'), pathId('vendorId', 'vendor_a')],
      requestBody: jsonBody({ allOf: [ref('ActionInput'), { type: 'object', properties: { at: { type: 'string', description: 'Eligibility to send; absent: as soon as the gateway accepts.' }, override: { type: 'boolean', description: 'Required to release a HELD release.' } } }] }, { actor: 'finance@example.com', reason: 'vendor in hardship' }),
      responses: responses({ 200: ok('The release as planned now.', ref('Release')) }, { 400: 'A field is wrong.', 404: 'Unknown order or vendor.', 409: 'invalid_state: the state does not allow a manual release (named in the message).' }),
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
  '/outcomes': {
    get: {
      summary: 'Releases for auditors: filters, cursor pages, JSON or CSV (contract 6.1)',
      parameters: [
        query('vendorId', ID, 'One vendor.'), query('orderId', ID, 'One order.'),
        query('state', { type: 'string', enum: ['PLANNED', 'SCHEDULED', 'WAITING', 'HELD', 'APPLYING', 'APPLIED', 'AT_MAX', 'CANCELLED', 'FAILED', 'SETTLED'] }, 'One state.'),
        FROM, TO, query('by', { type: 'string', enum: ['transaction', 'applied', 'settled'], default: 'transaction' }, 'Which time from/to range over.'),
        query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, 'Page size (JSON).'),
        query('cursor', { type: 'string' }, 'From nextCursor.'), query('format', { type: 'string', enum: ['json', 'csv'], default: 'json' }, 'CSV streams every matching row.'),
      ],
      responses: responses({
        200: {
          description: 'JSON page, or CSV with the columns of contract 6.1.',
          content: {
            'application/json': { schema: { type: 'object', required: ['items', 'nextCursor'], properties: { items: { type: 'array', items: ref('Outcome') }, nextCursor: nullable({ type: 'string' }) } } },
            'text/csv': { schema: { type: 'string' }, example: 'order_id,vendor_id,amount,currency,state,policy_version,schedule_option,transaction_time,max_eligibility,target_eligibility,applied_eligibility,predicted_settlement,settled_at,attempts,last_gateway_status,last_gateway_message\r\n' },
          },
        },
      }, { 400: 'A query parameter is wrong; the message names it.' }),
    },
  },
  '/forecast': {
    get: {
      summary: 'Expected settlements per India-time day, firm and projected',
      parameters: [FROM, TO, query('vendorId', ID, 'One vendor.')],
      responses: responses({ 200: ok('Days.', { type: 'object', properties: { days: { type: 'array', items: ref('ForecastDay') } }, additionalProperties: true }) }, { 400: 'Bad range.' }),
    },
  },
  '/reports/prediction-accuracy': {
    get: {
      summary: 'Predicted against actual settlement, per schedule option',
      parameters: [FROM, TO],
      responses: responses({ 200: ok('Rows.', { type: 'object', additionalProperties: true }) }, { 400: 'Bad range.' }),
    },
  },
  '/predictions': {
    post: {
      summary: 'When an eligibility settles under a schedule option',
      requestBody: jsonBody({ type: 'object', required: ['eligibility', 'scheduleOption'], properties: { eligibility: { type: 'string', description: 'Gateway form or ISO 8601.' }, scheduleOption: { type: 'integer' } } }, { eligibility: '2022-12-06 09:00:00', scheduleOption: 1 }),
      responses: responses({ 200: ok('The settlement slot.', { type: 'object', properties: { settlementAt: instant('First slot after the eligibility.') } }) }, { 400: 'A field is wrong.' }),
    },
  },
  '/rejected-events': {
    get: {
      summary: 'Malformed events and why, in order of arrival',
      parameters: [query('limit', { type: 'integer', minimum: 1, maximum: 1000 }, 'Page size.'), query('cursor', { type: 'string' }, 'From nextCursor.')],
      responses: responses({ 200: ok('A page.', { type: 'object', properties: { rejectedEvents: { type: 'array', items: { type: 'object', additionalProperties: true } }, nextCursor: nullable({ type: 'string' }), count: { type: 'integer' } }, additionalProperties: true }) }, { 400: 'Bad limit or cursor.' }),
    },
  },
  '/policies/import': {
    post: {
      summary: 'Bulk policies from CSV: a dry run by default; an apply is all or nothing and idempotent',
      parameters: [query('dryRun', { type: 'boolean', default: true }, 'false applies.'), { name: 'actor', in: 'query', required: true, schema: { type: 'string' }, example: 'finance@example.com' }],
      requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' }, example: 'vendorId,scheduleOption,release,delay,reason\nvendor_a,1,after_delivery,P2D,trusted\n' } } },
      responses: responses({ 200: ok('{rows, valid, errors: [{line, field, message}]}.', { type: 'object', additionalProperties: true }) }, { 400: 'A line or the query is wrong; every line and field is named.', 409: 'A policy changed since the dry run.', 413: 'Too many lines.' }),
    },
  },
  '/audit/verify': {
    get: { summary: 'Verify the hash-chained, signed audit log', responses: responses({ 200: ok('{ok, records, streams, checkpoints, firstBroken}.', { type: 'object', required: ['ok', 'firstBroken'], additionalProperties: true }) }) },
  },
  '/audit/export': {
    get: { summary: 'Audit records and signed checkpoints as JSON lines', parameters: [FROM, TO], responses: responses({ 200: { description: 'One JSON object per line.', content: { 'application/x-ndjson': { schema: { type: 'string' } } } } }, { 400: 'Bad range.' }) },
  },
  '/audit/public-key': {
    get: { summary: 'The public key that verifies checkpoints (PEM)', responses: responses({ 200: { description: 'PEM.', content: { 'application/x-pem-file': { schema: { type: 'string' } } } } }) },
  },
  '/webhooks/gateway': {
    post: {
      summary: "The gateway's webhooks (payments, vendor settlements), verified by its signature",
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
      + 'authorisation, except the signed gateway webhook.',
  },
  servers: [{ url: 'http://127.0.0.1:4000', description: 'The embedded default (npm start)' }],
  security: [{ sigv4: [] }],
  paths,
  components: {
    schemas,
    securitySchemes: { sigv4: { type: 'apiKey', name: 'Authorization', in: 'header', description: 'AWS SigV4, service execute-api (IAM authorisation of the HTTP API).' } },
  },
} as const;
