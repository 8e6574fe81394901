/**
 * One declaration per route (issue 21, item 6): every route's request body and parameters are read by the very objects
 * the OpenAPI document shows, so that what is checked and what is documented cannot drift. The document's
 * requestBody and parameter schemas must BE (not merely equal) the schemas of the readers the route runs.
 */
import { OPENAPI_DOCUMENT, ROUTES } from '../../functions/handlers/routes';

type Json = Record<string, any>;
const paths = (OPENAPI_DOCUMENT as unknown as { paths: Record<string, Record<string, Json>> }).paths;
const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/**
 * Parameters whose text is a name looked up where it is used (404 when nothing has it), not a value to check; and the
 * import's actor, required only to apply and on AWS the signed principal's name when absent (the use case knows both).
 */
const FREE_TEXT = ['GET /console/{asset} asset', 'GET /exports/{file} file', 'GET /exports/{file} token', 'POST /policies/import actor'];
/** Routes whose body is not JSON: the gateway's signed webhook (its HMAC covers the raw bytes) and the CSV import. */
const OTHER_BODIES = ['POST /webhooks/gateway', 'POST /policies/import'];

test('every route is declared by defineRoute, and its operation in the document is that declaration\'s', () => {
  for (const route of ROUTES) {
    expect([key(route), route.declared !== undefined]).toEqual([key(route), true]);
    expect(paths[route.path][route.method.toLowerCase()]).toBe(route.operation);
  }
});

test('every JSON request body is read by a schema, and the document\'s requestBody schema is that schema object', () => {
  const withBodies = ROUTES.filter((route) => route.operation?.requestBody !== undefined);
  const json = withBodies.filter((route) => !OTHER_BODIES.includes(key(route)));
  expect(withBodies.map(key).filter((k) => OTHER_BODIES.includes(k)).sort()).toEqual([...OTHER_BODIES].sort());
  for (const route of json) {
    const documented = (route.operation!.requestBody as Json).content['application/json'];
    const body = route.declared!.body;
    expect([key(route), body !== undefined, typeof body?.read]).toEqual([key(route), true, 'function']);
    expect([key(route), documented.schema === body!.schema]).toEqual([key(route), true]);
  }
  // Settings, its preview, policy, its preview, hold, unhold, release, retry, exports, cancel, verification, predictions, approve, reject.
  expect(json.length).toBeGreaterThanOrEqual(14);
});

test('every parameter is read by the declaration it is documented from, and only a looked-up name is free text', () => {
  const free: string[] = [];
  let parameters = 0;
  for (const route of ROUTES) {
    for (const parameter of (route.operation?.parameters ?? []) as Json[]) {
      const declared = (parameter.in === 'path' ? route.declared!.params : route.declared!.query)[parameter.name] as Json | undefined;
      expect([key(route), parameter.name, declared !== undefined && parameter.schema === declared.schema]).toEqual([key(route), parameter.name, true]);
      if (declared!.free) free.push(`${key(route)} ${parameter.name}`);
      parameters++;
    }
  }
  expect(free.sort()).toEqual([...FREE_TEXT].sort());
  expect(parameters).toBeGreaterThan(40);
});
