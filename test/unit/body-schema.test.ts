/**
 * Request bodies read by their route's schema (functions/handlers/schema/body.ts): the same declaration refuses a bad
 * body before the use case runs, with today's field / problem / expected word for word, and is the body's schema in
 * the OpenAPI document.
 */
import { ValidationError } from '../../functions/domain/errors';
import type { ApiEvent } from '../../functions/handlers/http';
import { OPENAPI_DOCUMENT, ROUTES } from '../../functions/handlers/routes';

const noDeps = async () => { throw new Error('not reached: the body schema refuses first'); };
const post = (path: string, pathParameters: Record<string, string>, body: unknown) =>
  ({ pathParameters, queryStringParameters: {}, body: JSON.stringify(body), isBase64Encoded: false, rawPath: path }) as unknown as ApiEvent;

function routeOf(method: string, path: string) {
  const route = ROUTES.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`no route ${method} ${path}`);
  return route;
}

async function issuesOf(method: string, path: string, pathParameters: Record<string, string>, body: unknown) {
  const error = await routeOf(method, path).run(post(path, pathParameters, body), noDeps).then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).issues;
}

const APPROVE = ['POST', '/approvals/{approvalId}/approve', { approvalId: 'ap_0lq2x8k9ab1c2d3e4f5a6' }] as const;
const EXAMPLE = '{"reason": "checked the delivery proof", "actor": "checker@example.com"}';

test('an approval decision: every bad member named at once, in the words the use case used to say them', async () => {
  expect(await issuesOf(...APPROVE, ['yes'])).toEqual([{ field: 'body', problem: 'is not a JSON object', expected: `a JSON object, e.g. ${EXAMPLE}` }]);
  expect(await issuesOf(...APPROVE, { verdict: 'ok', reason: 'x'.repeat(501) })).toEqual([
    { field: 'verdict', problem: 'is not a known field', expected: 'only reason (and actor, which on AWS is your signed principal)' },
    { field: 'actor', problem: 'is missing', expected: `who decides, e.g. ${EXAMPLE}` },
    { field: 'reason', problem: `is "${'x'.repeat(59)}, not a text of 1 to 500 characters`, expected: `why you decide so, e.g. ${EXAMPLE}` },
  ]);
  expect(await issuesOf(...APPROVE, { actor: '  ', reason: 7 })).toEqual([
    { field: 'actor', problem: 'is "  ", not a text of 1 to 500 characters', expected: `who decides, e.g. ${EXAMPLE}` },
    { field: 'reason', problem: 'is 7, not a text of 1 to 500 characters', expected: `why you decide so, e.g. ${EXAMPLE}` },
  ]);
});

test('a prediction: the eligibility read by the domain\'s parser and bounds, the schedule option by the gateway\'s list', async () => {
  expect(await issuesOf('POST', '/predictions', {}, 'soon')).toEqual([
    { field: 'body', problem: 'is not a JSON object', expected: '{"eligibility": "2022-12-06 09:00:00", "scheduleOption": 1}' },
  ]);
  const issues = await issuesOf('POST', '/predictions', {}, { eligibility: '1999-12-31 10:00:00', scheduleOption: 10, when: 'now' });
  expect(issues.map((i) => i.field)).toEqual(['when', 'eligibility', 'scheduleOption']);
  expect(issues[0]).toEqual({ field: 'when', problem: 'is not a known field', expected: 'only eligibility, scheduleOption' });
  expect(issues[2]).toEqual({ field: 'scheduleOption', problem: 'is 10, not a schedule option of the gateway', expected: expect.stringMatching(/^one of 1, 2, .*16$/) });
});

test('the document\'s request body is the schema that reads it', () => {
  const document = OPENAPI_DOCUMENT as unknown as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>> };
  const decision = document.paths['/approvals/{approvalId}/approve'].post.requestBody!.content['application/json'].schema;
  expect(decision).toMatchObject({ type: 'object', required: ['reason'], additionalProperties: false });
  expect(Object.keys(decision.properties as object)).toEqual(['actor', 'reason']);
  const prediction = document.paths['/predictions'].post.requestBody!.content['application/json'].schema;
  expect(prediction).toMatchObject({ type: 'object', required: ['eligibility'], additionalProperties: false });
  expect(Object.keys(prediction.properties as object)).toEqual(['eligibility', 'scheduleOption']);
});

const HOLD_EXAMPLE = '{"actor": "risk@example.com", "reason": "fraud review", "source": "risk"}';
const JOB = 'job_1669975200000_k3v9x0q2m1';

test('hold and manual release: who and why first, then the source or the release\'s own members, in the words the use case said them', async () => {
  const hold = ['POST', '/vendors/{vendorId}/hold', { vendorId: 'vendor_a' }] as const;
  expect(await issuesOf(...hold, [])).toEqual([{ field: 'body', problem: 'is not a JSON object', expected: `a JSON object, e.g. ${HOLD_EXAMPLE}` }]);
  expect(await issuesOf(...hold, { actor: 'risk@example.com', reason: ' ', colour: 1, source: 'boss' })).toEqual([
    { field: 'colour', problem: 'is not a known field', expected: 'only actor, reason, source' },
    { field: 'reason', problem: 'is " ", not a text of 1 to 500 characters', expected: `who asks and why, e.g. ${HOLD_EXAMPLE}` },
  ]);
  expect(await issuesOf(...hold, { actor: 'risk@example.com', reason: 'fraud review', source: 'boss' })).toEqual([
    { field: 'source', problem: 'is "boss", not a hold source', expected: 'one of dispute, risk, finance, vendor_request (strongest first), or leave it out for "finance"' },
  ]);
  const release = ['POST', '/orders/{orderId}/vendors/{vendorId}/release', { orderId: 'order_1001', vendorId: 'vendor_a' }] as const;
  const issues = await issuesOf(...release, { actor: 'finance@example.com', reason: 'hardship', at: '1999-12-31 10:00:00', override: 'yes' });
  expect(issues.map((i) => i.field)).toEqual(['override', 'at']);
  expect(issues[0]).toEqual({ field: 'override', problem: 'is "yes", not true or false', expected: 'true to release a HELD release despite its hold, or leave it out' });
});

test('optional bodies: a cancel names its members before the unknown ones, a verification its unknown ones alone; the job id is read first', async () => {
  const cancel = ['POST', '/jobs/{jobId}/cancel'] as const;
  expect((await issuesOf(...cancel, { jobId: 'nope' }, { actor: 7 })).map((i) => i.field)).toEqual(['jobId']);
  expect(await issuesOf(...cancel, { jobId: JOB }, { actor: 7, when: 'now' })).toEqual([
    { field: 'actor', problem: 'is 7, not a text of 1 to 200 characters', expected: 'who cancels, e.g. "finance@example.com", or leave it out' },
    { field: 'when', problem: 'is not a field of a cancel', expected: 'only actor and reason' },
  ]);
  expect(await issuesOf('POST', '/audit/verifications', {}, { actor: 5, scope: 'all' })).toEqual([
    { field: 'scope', problem: 'is not a field of a verification', expected: 'only actor, or an empty body' },
  ]);
});

test('an export: a wrong kind ends the reading; an outcomes export names its format and each filter as GET /outcomes would', async () => {
  expect(await issuesOf('POST', '/exports', {}, {})).toEqual([{ field: 'kind', problem: 'is missing', expected: '"outcomes" or "audit"' }]);
  const issues = await issuesOf('POST', '/exports', {}, { kind: 'outcomes', format: 'pdf', filters: { limit: '5', state: 'NOPE' } });
  expect(issues.map((i) => i.field)).toEqual(['format', 'filters.limit', 'filters.state']);
  expect(issues[1]).toEqual({ field: 'filters.limit', problem: 'is not a filter of an export', expected: 'only vendorId, orderId, state, from, to, by: the file holds every matching row' });
  expect((await issuesOf('POST', '/exports', {}, { kind: 'audit', from: 7, format: 'csv' })).map((i) => i.field)).toEqual(['format', 'from']);
});

test('settings and policy: each member refused by the domain\'s own words, who and why after the settings', async () => {
  const settings = await issuesOf('PUT', '/settings', {}, { deferByDays: -1, colour: 'red', actor: '' });
  expect(settings).toEqual([
    { field: 'colour', problem: 'is not a known field', expected: expect.stringMatching(/^only deferByDays, timezone, .*approvals$/) },
    { field: 'deferByDays', problem: 'is -1, not a whole number of days from 0 to 365', expected: 'the dashboard\'s Defer by Days, e.g. 15' },
    { field: 'actor', problem: 'is "", not a non-empty text of at most 200 characters', expected: 'a short text, or leave it out' },
  ]);
  expect(await issuesOf('PUT', '/vendors/{vendorId}/policy', { vendorId: 'vendor_a' }, 'x')).toEqual([
    { field: 'body', problem: 'is "x", not a JSON object', expected: 'a JSON object with scheduleOption, release, actor, reason, maxExposure' },
  ]);
  const policy = await issuesOf('PUT', '/vendors/{vendorId}/policy', { vendorId: 'vendor_a' }, { scheduleOption: 10, release: { kind: 'immediate' }, applyTo: 'all' });
  expect(policy.map((i) => i.field)).toEqual(['scheduleOption', 'actor', 'reason', 'applyTo']);
  // A preview's who and why wait for the PUT.
  const preview = await issuesOf('POST', '/vendors/{vendorId}/policy/preview', { vendorId: 'vendor_a' }, { scheduleOption: 10, release: { kind: 'immediate' } });
  expect(preview.map((i) => i.field)).toEqual(['scheduleOption']);
});
