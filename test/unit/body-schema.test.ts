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
