/**
 * The route table (functions/definitions/api-routing.ts) is the one place that says which function serves each route:
 * every route of the API has exactly one row, each function's handler carries exactly its rows' routes, a request is
 * dispatched (locally, as API Gateway does on AWS) to that function, and what no route takes is answered 404 or 405.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { API_FUNCTIONS, API_ROUTE_TABLE, UNROUTED_FUNCTION, methodsOn, routeEntryOf, routesServedBy } from '../../functions/definitions/api-routing';
import { ROUTES } from '../../functions/handlers/routes';
import { API_ROUTES } from '../../functions/handlers/api';
import { API_READ_ROUTES } from '../../functions/handlers/api-reads';
import { API_AUDIT_ROUTES } from '../../functions/handlers/api-audit';
import { API_JOB_ROUTES } from '../../functions/handlers/api-jobs';
import { handler as pagesHandler, pagesRoutes } from '../../functions/handlers/api-pages';
import { makeRouteHandler, routesOf } from '../../functions/handlers/api-router';
import { makeApiHandler } from '../../functions/handlers/api-functions';
import { GATEWAY_WEBHOOK_ROUTE } from '../../functions/handlers/routes/gateway-webhook';
import { ROUTE_AUDIENCES } from '../../functions/handlers/routes/audiences';
import { fakeWorld } from '../fakes/dependencies';

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
/** A concrete path of a route's pattern: each `{name}` a segment of its own. */
const concrete = (path: string) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => `x-${name}`);

/** What each function's handler is built with (the webhooks function's one route is the gateway's webhook). */
const SERVED = {
  api: API_ROUTES, apiReads: API_READ_ROUTES, apiJobs: API_JOB_ROUTES, apiAudit: API_AUDIT_ROUTES, apiPages: pagesRoutes(() => ({})), webhooks: [GATEWAY_WEBHOOK_ROUTE],
};

test('every route of the API has exactly one row in the route table, naming one function; no row names a route that does not exist', () => {
  const rows = API_ROUTE_TABLE.map(key);
  expect(rows.filter((row, i) => rows.indexOf(row) !== i)).toEqual([]);
  expect([...rows].sort()).toEqual(ROUTES.map(key).sort());
  for (const row of API_ROUTE_TABLE) expect([key(row), [...API_FUNCTIONS, 'webhooks'].includes(row.serves)]).toEqual([key(row), true]);
  // The audiences the managed policies are made of are the same rows.
  expect(ROUTE_AUDIENCES.map(key)).toEqual(rows);
});

test("each function's handler carries exactly the routes its rows name, each once, and every API function serves some", () => {
  for (const [server, routes] of Object.entries(SERVED) as [keyof typeof SERVED, typeof ROUTES][]) {
    expect([server, routes.map(key).sort()]).toEqual([server, routesServedBy(server).map(key).sort()]);
  }
  for (const fn of API_FUNCTIONS) expect([fn, routesServedBy(fn).length > 0]).toEqual([fn, true]);
  // Given none of a row's route code, a function refuses to start rather than answer 404 on AWS.
  expect(() => routesOf('apiReads', [])).toThrow(/the apiReads function is given no code for GET \/settings/);
});

test('a request is matched to at most one row (as API Gateway picks one route), and a method a path lacks is named', () => {
  for (const row of API_ROUTE_TABLE) {
    const matching = API_ROUTE_TABLE.filter((other) => routeEntryOf(row.method, concrete(row.path)) === other);
    expect([key(row), matching.map(key)]).toEqual([key(row), [key(row)]]);
  }
  expect(routeEntryOf('GET', '/settings/')?.serves).toBe('apiReads');
  expect(routeEntryOf('DELETE', '/settings')).toBeUndefined();
  expect(methodsOn('/settings')).toEqual(['GET', 'PUT']);
  expect(methodsOn('/nowhere')).toEqual([]);
  expect(UNROUTED_FUNCTION).toBe('apiPages');
});

describe('the local API answers each route through the function that serves it on AWS', () => {
  const event = (method: string, path: string): APIGatewayProxyEventV2 => ({
    version: '2.0', routeKey: '$default', rawPath: path, rawQueryString: '', headers: { host: 'localhost' }, isBase64Encoded: false,
    requestContext: { accountId: 'local', apiId: 'local', domainName: 'localhost', domainPrefix: 'localhost', http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' }, requestId: 'r', routeKey: '$default', stage: '$default', time: '', timeEpoch: 0 },
  });

  it('a route another function serves is not answered by a function that does not serve it, and 404 and 405 come from the table', async () => {
    const world = fakeWorld();
    const handler = makeApiHandler(() => world.deps);
    const context = {} as Context;
    const settings = await handler(event('GET', '/settings'), context);
    expect(settings.statusCode).toBe(200);
    const wrong = await handler(event('DELETE', '/settings'), context);
    expect([wrong.statusCode, wrong.headers?.allow, JSON.parse(String(wrong.body)).error.code]).toEqual([405, 'GET, PUT', 'method_not_allowed']);
    const none = await handler(event('GET', '/nowhere'), context);
    expect([none.statusCode, JSON.parse(String(none.body)).error.code]).toEqual([404, 'route_not_found']);
    const openapi = await handler(event('GET', '/openapi.json'), context);
    expect(JSON.parse(String(openapi.body)).paths['/settings']).toBeDefined();
    // The pages function alone (the catch-all's) does not answer the reads' route: it carries none of its code.
    const pages = makeRouteHandler(SERVED.apiPages, () => world.deps);
    const notHere = await pages(event('GET', '/settings'), context);
    expect([notHere.statusCode, JSON.parse(String(notHere.body)).error.code]).toEqual([404, 'route_not_found']);
  });

  it("on AWS a route's path with a trailing slash (the catch-all's) is sent on to the route without it, method and query kept; a path no route has stays 404", async () => {
    const context = {} as Context;
    const slash = { ...event('POST', '/vendors/v-1/hold/'), rawQueryString: 'x=1' };
    const moved = await pagesHandler(slash, context);
    expect([moved.statusCode, moved.headers?.location, JSON.parse(String(moved.body)).error.code]).toEqual([308, '/vendors/v-1/hold?x=1', 'trailing_slash']);
    expect(JSON.parse(String(moved.body)).error.message).toContain('without the trailing slash');
    const none = await pagesHandler(event('GET', '/nowhere/'), context);
    expect([none.statusCode, JSON.parse(String(none.body)).error.code]).toEqual([404, 'route_not_found']);
    const wrongMethod = await pagesHandler(event('DELETE', '/settings/'), context);
    expect(wrongMethod.statusCode).toBe(405);
  });
});
