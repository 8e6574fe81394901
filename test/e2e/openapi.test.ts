/** The OpenAPI document against the API itself: every route documented, every documented route answers on the local stack as documented, every example valid, every route with an audience on AWS; unknown routes and methods refused. */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ROUTES } from '../../functions/handlers/api-functions';
import { OPENAPI_DOCUMENT } from '../../functions/handlers/openapi';
import { ROUTE_AUDIENCES } from '../../functions/handlers/routes/audiences';
import { startHarness, type Harness } from './harness';

type Json = Record<string, any>;
const doc = OPENAPI_DOCUMENT as unknown as Json;
const documented = Object.entries(doc.paths as Record<string, Json>)
  .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Json })));
const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
/** The document's schemas, so that a `$ref` of an operation resolves to its component. */
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema({ $id: 'holdback', components: doc.components });
const resolve = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replace(/"#\/components/g, '"holdback#/components'));

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.createVendors([{ id: 'vendor_a', scheduleOption: 1 }]);
  const paidAt = await h.createPaidOrder('order_1001', [{ vendorId: 'vendor_a', amount: 600 }]);
  // Holdback learns of the payment, so that the order's routes answer the order (and its schema is checked), not 404.
  await h.setPolicy('vendor_a', { kind: 'after_payment', delay: 'P1D' });
  await h.send('order.paid', { orderId: 'order_1001', transactionTime: paidAt, vendors: [{ vendorId: 'vendor_a', amount: 600 }] });
});
afterAll(() => h?.close());

test('every route of the API is documented, and every documented route is a route', () => {
  expect(documented.map(key).sort()).toEqual(ROUTES.map(key).sort());
});

test('every route has an audience for the AWS access policies, and no audience names a route that does not exist', () => {
  expect(ROUTE_AUDIENCES.map(key).sort()).toEqual(ROUTES.map(key).sort());
});

test('every request example is valid against its schema', () => {
  let checked = 0;
  for (const { method, path, op } of documented) {
    const content = op.requestBody?.content?.['application/json'];
    if (!content?.example) continue;
    const validate = ajv.compile(resolve(content.schema));
    expect([method, path, validate(content.example), validate.errors]).toEqual([method, path, true, null]);
    checked++;
  }
  expect(checked).toBeGreaterThan(8);
});

/** One documented operation called as its document describes it: path examples, required query examples, body example. */
async function call(method: string, path: string, op: Json): Promise<{ status: number; type: string; text: string }> {
  const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => (op.parameters ?? []).find((p: Json) => p.name === name)?.example ?? 'x');
  const query = (op.parameters ?? []).filter((p: Json) => p.in === 'query' && p.required).map((p: Json) => `${p.name}=${encodeURIComponent(p.example)}`).join('&');
  const content = op.requestBody?.content ?? {};
  const [type, media] = Object.entries(content)[0] ?? [];
  const body = media === undefined ? undefined : typeof (media as Json).example === 'string' ? (media as Json).example : JSON.stringify((media as Json).example ?? {});
  const answer = await fetch(`${h.runtime.api.url}${url}${query ? `?${query}` : ''}`, {
    method, headers: type ? { 'content-type': type } : {}, body,
  });
  return { status: answer.status, type: answer.headers.get('content-type') ?? '', text: await answer.text() };
}

test('every documented route answers on the local stack as documented: its status, an answer valid against its schema, never a server error', async () => {
  let checked = 0;
  const statuses = new Map<string, number>();
  for (const { method, path, op } of documented) {
    const { status, type, text } = await call(method, path, op);
    statuses.set(key({ method, path }), status);
    const isJson = type.startsWith('application/json');
    const code = isJson ? (JSON.parse(text || '{}') as Json).error?.code : undefined;
    // No unknown route, no wrong method, no server error (500 is documented everywhere, so it is refused here by name).
    expect([method, path, status >= 500, status === 405, code === 'route_not_found']).toEqual([method, path, false, false, false]);
    expect([method, path, status, Object.keys(op.responses).includes(String(status))]).toEqual([method, path, status, true]);
    const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
    if (!schema || !isJson) continue;
    const validate = ajv.compile(resolve(schema));
    expect([method, path, status, validate(JSON.parse(text)), validate.errors]).toEqual([method, path, status, true, null]);
    checked++;
  }
  expect(checked).toBeGreaterThan(20);
  // The order's own answers were checked against their schemas, not only a 404.
  expect([statuses.get('GET /orders/{orderId}'), statuses.get('GET /orders/{orderId}/timeline')]).toEqual([200, 200]);
});

test('an unknown route answers 404 pointing to the document', async () => {
  const answer = await fetch(`${h.runtime.api.url}/no-such-route`);
  expect(answer.status).toBe(404);
  expect(((await answer.json()) as Json).error.message).toContain('GET /openapi.json');
  const served = (await (await fetch(`${h.runtime.api.url}/openapi.json`)).json()) as Json;
  expect(served.openapi).toBe('3.1.0');
  expect(Object.keys(served.paths).length).toBe(Object.keys(doc.paths).length);
});

test('a known path with another method answers 405 naming the methods it takes', async () => {
  const answer = await fetch(`${h.runtime.api.url}/vendors/vendor_a/policy`, { method: 'DELETE' });
  expect(answer.status).toBe(405);
  expect(answer.headers.get('allow')).toBe('GET, PUT');
  expect(((await answer.json()) as Json).error).toEqual({ code: 'method_not_allowed', message: 'DELETE is not allowed on /vendors/vendor_a/policy; use GET or PUT' });
});
