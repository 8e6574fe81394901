/** One schema per route: the same declaration reads the request (naming every bad parameter and what to send) and documents it. */
import { ValidationError } from '../../functions/domain/errors';
import type { ApiEvent } from '../../functions/handlers/http';
import { ROUTES } from '../../functions/handlers/routes';
import { count, cursor, flag, id, oneOf } from '../../functions/handlers/schema/params';
import { defineRoute, exampleText, jsonBody } from '../../functions/handlers/schema/route-schema';
import { encodeCursor } from '../../functions/application/cursor';

const event = (query: Record<string, string> = {}, pathParameters: Record<string, string> = {}, body?: string) =>
  ({ queryStringParameters: query, pathParameters, body, isBase64Encoded: false }) as unknown as ApiEvent;
const noDeps = async () => { throw new Error('not reached: the schema refuses first'); };

const route = defineRoute({
  method: 'POST', path: '/things/{thingId}', summary: 'A thing',
  params: { thingId: id('thing_1') },
  query: { state: oneOf(['open', 'shut'] as const, 'One state.'), limit: count(1, 50, 10, 'Page size.'), cursor: cursor('things'), all: flag(false, 'Every one.') },
  strictQuery: true,
  body: jsonBody({ type: 'object' }, { actor: 'a@example.com', reason: 'why' }),
  responses: {},
  handle: async ({ params, query, body }) => ({ statusCode: 200, body: JSON.stringify({ params, query, body }) }),
});

async function refusal(e: ApiEvent): Promise<ValidationError> {
  const error = await route.run(e, noDeps).then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

test('every bad parameter is named at once, with the problem and what to send', async () => {
  const error = await refusal(event({ state: 'ajar', limit: '99', colour: 'red', all: 'yes' }, { thingId: 'x' }));
  expect(error.issues).toEqual([
    { field: 'thingId', problem: 'is "x", not a valid id', expected: '3 to 45 characters of A-Z, a-z, 0-9, "_" and "-"' },
    { field: 'colour', problem: 'is not a parameter of POST /things/{thingId}', expected: 'only state, limit, cursor, all' },
    { field: 'state', problem: 'is "ajar"', expected: 'one of open, shut' },
    { field: 'limit', problem: 'is "99"', expected: 'a whole number from 1 to 50' },
    { field: 'all', problem: 'is "yes"', expected: 'true or false' },
  ]);
});

test('a cursor of another list and a body that is not JSON are refused naming them', async () => {
  const wrongList = encodeCursor('others', 'p1');
  expect((await refusal(event({ cursor: wrongList }, { thingId: 'thing_1' }))).issues[0].field).toBe('cursor');
  const body = await refusal(event({}, { thingId: 'thing_1' }, '{'));
  expect(body.issues).toEqual([{ field: 'body', problem: 'is not valid JSON', expected: 'a JSON object, e.g. {"actor": "a@example.com", "reason": "why"}' }]);
});

test('good input reaches the use case typed: defaults filled, the cursor decoded, the id percent-decoded', async () => {
  const answer = await route.run(event({ state: 'open', cursor: encodeCursor('things', 'p7'), all: 'true' }, { thingId: 'thing%5F1' }, '{"actor": "a"}'), noDeps);
  expect(JSON.parse(answer.body as string)).toEqual({ params: { thingId: 'thing_1' }, query: { state: 'open', limit: 10, cursor: 'p7', all: true }, body: { actor: 'a' } });
});

test('the same schema is the route\'s operation in the document', () => {
  expect(route.operation).toMatchObject({
    summary: 'A thing',
    parameters: [
      { name: 'thingId', in: 'path', required: true, example: 'thing_1' },
      { name: 'state', in: 'query', required: false, schema: { type: 'string', enum: ['open', 'shut'] } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 50, default: 10 } },
      { name: 'cursor', in: 'query' },
      { name: 'all', in: 'query', schema: { type: 'boolean', default: false } },
    ],
    requestBody: { required: true, content: { 'application/json': { example: { actor: 'a@example.com', reason: 'why' } } } },
  });
});

test('every API route is declared with a schema (its operation is generated, never written apart)', () => {
  expect(ROUTES.filter((r) => !r.operation).map((r) => `${r.method} ${r.path}`)).toEqual([]);
});

test('an example is quoted as the refusals always wrote it', () => {
  expect(exampleText({ scheduleOption: 1, release: { kind: 'at_max' }, holidays: ['2022-12-25'] }))
    .toBe('{"scheduleOption": 1, "release": {"kind": "at_max"}, "holidays": ["2022-12-25"]}');
});
