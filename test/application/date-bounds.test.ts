/**
 * Issue 15.5: every date bound of the README ("Bounds") on every route that takes a date, over real HTTP: a value
 * before 2000-01-01 or from 2100-01-01 on, an offset no zone uses, a reversed range or a malformed value is a 400 that
 * names the field, says what was wrong and what to send. One table over all of them.
 */
import { send, usePolicy, ORDER, VENDOR, paid } from './scenario';
import { serveApiOverFakes } from './live-api';

const api = serveApiOverFakes();

interface Row {
  route: string;
  method?: 'GET' | 'POST' | 'PUT';
  body?: unknown;
  field: string;
  /** What the problem says was wrong. */
  problem: RegExp;
  /** What the answer says to send. */
  expected: RegExp;
}

const BOUNDS = /from 2000-01-01(T00:00:00Z)? to (before 2100-01-01|2099-12-31)/;
const OFFSET = /an offset from -12:00 to \+14:00/;
const SWAP = /at or after from|swap them/;
const OUT = /before 2000|2100-01-01\S* or later/;

const RELEASE = `/orders/${ORDER}/vendors/${VENDOR}/release`;
const WHO = { actor: 'finance@example.com', reason: 'goods received' };

const rows: Row[] = [
  // GET /outcomes (contract 6.1): from/to as days or instants.
  { route: '/outcomes?from=0000-01-01', field: 'from', problem: OUT, expected: BOUNDS },
  { route: '/outcomes?to=2100-01-01', field: 'to', problem: OUT, expected: BOUNDS },
  { route: '/outcomes?by=settled&from=1999-12-31T23:59:59%2B05:30', field: 'from', problem: OUT, expected: BOUNDS },
  { route: '/outcomes?from=2022-12-02T16:00:00%2B99:00', field: 'from', problem: /offset \+99:00 is no UTC offset in use/, expected: OFFSET },
  { route: '/outcomes?to=2022-12-02T16:00:00-13:00', field: 'to', problem: /offset -13:00/, expected: OFFSET },
  { route: '/outcomes?from=2022-12-31&to=2022-12-01', field: 'to', problem: /before from .*reversed/, expected: SWAP },
  { route: '/outcomes?from=yesterday', field: 'from', problem: /not an ISO 8601 time/, expected: /ISO 8601 time with an offset/ },
  { route: '/outcomes?from=2022-02-30', field: 'from', problem: /not a date/, expected: BOUNDS },
  // GET /forecast and GET /vendors/{id}/forecast: India-time days, at most 366 of them.
  { route: '/forecast?from=1999-12-31', field: 'from', problem: OUT, expected: BOUNDS },
  { route: '/forecast?from=2099-12-01&to=2100-01-01', field: 'to', problem: OUT, expected: BOUNDS },
  { route: '/forecast?from=2022-12-31&to=2022-12-01', field: 'to', problem: /before from \(2022-12-31\).*reversed/, expected: SWAP },
  { route: '/forecast?from=2022-01-01&to=2023-12-31', field: 'to', problem: /range of 730 days/, expected: /at most 366 days/ },
  { route: '/forecast?from=2022-12-01T00:00:00%2B05:30', field: 'from', problem: /not a date/, expected: /India-time date YYYY-MM-DD/ },
  { route: `/vendors/${VENDOR}/forecast?from=0000-01-01`, field: 'from', problem: OUT, expected: BOUNDS },
  { route: `/vendors/${VENDOR}/forecast?from=2022-12-31&to=2022-12-30`, field: 'to', problem: /reversed/, expected: SWAP },
  // GET /reports/prediction-accuracy: both required.
  { route: '/reports/prediction-accuracy?from=0000-01-01&to=2022-12-31', field: 'from', problem: OUT, expected: BOUNDS },
  { route: '/reports/prediction-accuracy?from=2022-12-01&to=2222-12-31', field: 'to', problem: OUT, expected: BOUNDS },
  { route: '/reports/prediction-accuracy?from=2022-12-31&to=2022-12-01', field: 'to', problem: /reversed/, expected: SWAP },
  { route: '/reports/prediction-accuracy?from=2022-12-01T00:00:00%2B14:30&to=2022-12-31', field: 'from', problem: /offset \+14:30/, expected: OFFSET },
  { route: '/reports/prediction-accuracy?from=2022-12-01', field: 'to', problem: /is missing/, expected: BOUNDS },
  // GET /audit/export.
  { route: '/audit/export?from=0001-01-01', field: 'from', problem: OUT, expected: BOUNDS },
  { route: '/audit/export?from=2022-12-31&to=2022-12-01', field: 'to', problem: /reversed/, expected: SWAP },
  { route: '/audit/export?to=2022-12-02T16:00:00%2B99:00', field: 'to', problem: /offset \+99:00/, expected: OFFSET },
  // POST /predictions: an eligibility in either gateway form or ISO 8601.
  { route: '/predictions', method: 'POST', body: { eligibility: '1999-12-31 10:00:00', scheduleOption: 1 }, field: 'eligibility', problem: OUT, expected: BOUNDS },
  { route: '/predictions', method: 'POST', body: { eligibility: '2100-01-01T10:00:00+05:30', scheduleOption: 1 }, field: 'eligibility', problem: OUT, expected: BOUNDS },
  { route: '/predictions', method: 'POST', body: { eligibility: '2022-12-06T09:00:00+99:00', scheduleOption: 1 }, field: 'eligibility', problem: /offset \+99:00/, expected: OFFSET },
  // POST /orders/{id}/vendors/{v}/release: at.
  { route: RELEASE, method: 'POST', body: { ...WHO, at: '0001-12-06T09:00:00+05:30', confirmPast: true }, field: 'at', problem: OUT, expected: BOUNDS },
  { route: RELEASE, method: 'POST', body: { ...WHO, at: '2022-12-06T09:00:00+99:00' }, field: 'at', problem: /offset \+99:00/, expected: OFFSET },
  { route: RELEASE, method: 'POST', body: { ...WHO, at: '2021-12-06 09:00:00' }, field: 'at', problem: /in the past/, expected: /a future time/ },
  { route: RELEASE, method: 'POST', body: { ...WHO, at: '2022-12-20 09:00:00' }, field: 'at', problem: /after this release's max eligibility/, expected: /\(max eligibility\)/ },
  // PUT /settings: holidays are dates too.
  { route: '/settings', method: 'PUT', body: { holidays: ['1999-12-25'] }, field: 'holidays[0]', problem: OUT, expected: /2000-01-01 to 2099-12-31/ },
  { route: '/settings', method: 'PUT', body: { holidays: ['2022-12-25', '2100-01-01'] }, field: 'holidays[1]', problem: OUT, expected: /2000-01-01 to 2099-12-31/ },
];

test.each(rows.map((row) => ({ method: 'GET', ...row })))('$method $route $body: 400 naming $field', async ({ route, method = 'GET', body, field, problem, expected }) => {
  await usePolicy(api.world, { kind: 'after_payment', delay: 'P3D' });
  await send(api.world, 'order.paid', paid());
  const before = await api.world.orders.getRelease(ORDER, VENDOR);
  const response = await fetch(`${api.url}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as { error: { code: string; message: string; issues: { field: string; problem: string; expected: string }[] } };
  expect(response.status).toBe(400);
  expect(answer.error.code).toBe('validation_error');
  expect(answer.error.issues).toEqual([{ field, problem: expect.stringMatching(problem), expected: expect.stringMatching(expected) }]);
  expect(answer.error.message).toContain(field);
  // Nothing changed: the release, the settings and the gateway.
  expect(await api.world.orders.getRelease(ORDER, VENDOR)).toEqual(before);
  expect((await api.world.deps.settings.get()).holidays).toEqual([]);
  expect(api.world.gateway.calls).toEqual([]);
});

test('the bounds themselves are accepted: 2000-01-01 and 2099-12-31, offsets -12:00 and +14:00, a one-day range', async () => {
  for (const route of [
    '/outcomes?from=2000-01-01&to=2099-12-31', '/outcomes?from=2022-12-02T16:00:00%2B14:00&to=2022-12-02T16:00:00-12:00',
    '/forecast?from=2099-12-31&to=2099-12-31', '/forecast?from=2022-12-01&to=2023-12-01',
    '/reports/prediction-accuracy?from=2000-01-01&to=2099-12-31', '/audit/export?from=2022-12-01&to=2022-12-01',
  ]) {
    const response = await fetch(`${api.url}${route}`);
    await response.text();
    expect([route, response.status]).toEqual([route, 200]);
  }
});

test('an order event whose time carries an offset no zone uses is rejected and listed, naming the field', async () => {
  await send(api.world, 'order.paid', { ...paid(), transactionTime: '2022-12-02T16:00:00+99:00' });
  expect(await api.world.orders.getRelease(ORDER, VENDOR)).toBeNull();
  const listed = (await (await fetch(`${api.url}/rejected-events`)).json()) as { rejectedEvents: { reasons: string[] }[] };
  expect(listed.rejectedEvents[0].reasons).toEqual([expect.stringMatching(/transactionTime.*offset \+99:00 is no UTC offset in use.*-12:00 to \+14:00/)]);
});
