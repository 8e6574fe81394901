/** The API handler over real HTTP (createApiServer on loopback) against in-memory ports: routes, validation, errors. */
import { ORDER, VENDOR, paid, send, usePolicy } from './scenario';
import { serveApiOverFakes } from './live-api';

const api = serveApiOverFakes();

const call = api.request;

test('GET /health', async () => {
  expect(await call('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
});

describe('settings', () => {
  test('GET answers the defaults as version 0', async () => {
    const { status, body } = await call('GET', '/settings');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      deferByDays: 15, timezone: 'Asia/Kolkata', defaultScheduleOption: 1, holidays: [], settlementDays: 'working', releaseLead: 'PT1H', version: 0,
    });
  });

  test('PUT with bad values: 400 naming each field and what to send', async () => {
    const { status, body } = await call('PUT', '/settings', { deferByDays: 400, timezone: 'Mars/Olympus', colour: 'red' });
    expect(status).toBe(400);
    expect(body.error.code).toBe('validation_error');
    expect(body.error.message).toMatch(/deferByDays: is 400, not a whole number of days from 0 to 365; send/);
    expect(body.error.message).toMatch(/timezone: is "Mars\/Olympus"/);
    expect(body.error.message).toMatch(/colour: is not a known field/);
    expect((await call('GET', '/settings')).body.version).toBe(0);
  });

  test('PUT with a body that is not JSON: 400 on body', async () => {
    const { status, body } = await call('PUT', '/settings', '{deferByDays: 3');
    expect(status).toBe(400);
    expect(body.error.message).toMatch(/^body: is not valid JSON; send a JSON object/);
  });

  test('PUT saves a new version (partial bodies merge); a stale version is a 409', async () => {
    const saved = await call('PUT', '/settings', { deferByDays: 10, actor: 'ops@example.com', reason: 'dashboard changed' });
    expect(saved).toMatchObject({ status: 200, body: { deferByDays: 10, timezone: 'Asia/Kolkata', version: 1, actor: 'ops@example.com', at: '2022-12-02T16:05:00+05:30' } });
    expect((await call('GET', '/settings')).body.deferByDays).toBe(10);

    const stale = await call('PUT', '/settings', { deferByDays: 12, version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('version_conflict');
  });

  test('retryBudget is answered, kept by a PUT that does not name it, and its change audited', async () => {
    expect((await call('GET', '/settings')).body.retryBudget).toBe('P1D');
    await call('PUT', '/settings', { retryBudget: 'PT6H' });
    const later = await call('PUT', '/settings', { deferByDays: 10 });
    expect(later.body).toMatchObject({ retryBudget: 'PT6H', deferByDays: 10, version: 2 });
    expect((await call('GET', '/settings')).body.retryBudget).toBe('PT6H');
    const changes = api.world.audit.entries.filter((e) => e.kind === 'settings_changed').map((e) => e.detail.changes);
    expect(changes).toEqual([{ retryBudget: { from: 'P1D', to: 'PT6H' } }, { deferByDays: { from: 15, to: 10 } }]);
  });
});

describe('vendor policies', () => {
  const body = { scheduleOption: 2, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'finance@example.com', reason: 'clean record' };

  test('a vendor without a policy answers version 0 and the default', async () => {
    expect((await call('GET', `/vendors/${VENDOR}/policy`)).body).toEqual({
      vendorId: VENDOR, version: 0, scheduleOption: 1, release: { kind: 'at_max' }, actor: 'system', reason: 'default policy', at: null,
    });
  });

  test('each PUT is a new version with actor, reason and time; history is newest first', async () => {
    const first = await call('PUT', `/vendors/${VENDOR}/policy`, body);
    expect(first).toMatchObject({ status: 200, body: { vendorId: VENDOR, version: 1, ...body, at: '2022-12-02T16:05:00+05:30' } });
    api.world.clock.advance({ hours: 1 });
    await call('PUT', `/vendors/${VENDOR}/policy`, { ...body, release: { kind: 'immediate' }, reason: 'promoted' });

    expect((await call('GET', `/vendors/${VENDOR}/policy`)).body).toMatchObject({ version: 2, release: { kind: 'immediate' } });
    const history = await call('GET', `/vendors/${VENDOR}/policy/history`);
    expect(history.body.vendorId).toBe(VENDOR);
    expect(history.body.versions.map((v: { version: number; reason: string }) => [v.version, v.reason])).toEqual([[2, 'promoted'], [1, 'clean record']]);
  });

  test('a bad policy is a 400 naming the fields; a bad vendor id in the path too', async () => {
    const bad = await call('PUT', `/vendors/${VENDOR}/policy`, { scheduleOption: 10, release: { kind: 'after_payment', delay: 'three days' }, actor: 'a' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/scheduleOption: /);
    expect(bad.body.error.message).toMatch(/release\.delay: /);
    expect(bad.body.error.message).toMatch(/reason: is missing/);

    const badId = await call('GET', '/vendors/a%20b/policy');
    expect(badId.status).toBe(400);
    expect(badId.body.error.message).toMatch(/^vendorId: is "a b", not a valid id; send 3 to 45 characters/);
  });
});

describe('orders', () => {
  test('an unknown order is a 404', async () => {
    const { status, body } = await call('GET', '/orders/order_404');
    expect(status).toBe(404);
    expect(body.error).toEqual({ code: 'not_found', message: 'order order_404 is unknown: no order event was received for it' });
  });

  test('an order seen only through early events shows no transaction time and no vendors yet', async () => {
    await send(api.world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T15:00:00+05:30' });
    expect((await call('GET', `/orders/${ORDER}`)).body).toEqual({
      orderId: ORDER, transactionTime: null, transactionTimeSource: null, maxEligibility: null, currency: null, vendors: [],
    });
  });

  test('a paid order shows each vendor as the contract says, times in the settings timezone', async () => {
    await usePolicy(api.world, { kind: 'immediate' });
    await send(api.world, 'order.paid', paid());

    expect((await call('GET', `/orders/${ORDER}`)).body).toEqual({
      orderId: ORDER,
      transactionTime: '2022-12-02T16:00:00+05:30',
      transactionTimeSource: 'marketplace',
      maxEligibility: '2022-12-17T16:00:00+05:30',
      currency: 'INR',
      vendors: [{
        vendorId: VENDOR,
        state: 'APPLIED',
        policyVersion: 1,
        targetEligibility: '2022-12-02T16:00:00+05:30',
        appliedEligibility: '2022-12-02T16:06:00+05:30',
        predictedSettlement: '2022-12-03T11:00:00+05:30',
        // The one projection: an applied release lands at its predicted settlement, firm.
        projectedSettlement: '2022-12-03T11:00:00+05:30',
        settlementProjected: false,
        attempts: [{ at: '2022-12-02T16:05:00+05:30', request: '2022-12-02 16:06:00', status: 'OK', subCode: '200', message: 'Updated vendor settlement eligibility date' }],
        // Why, with its numbers: the target had passed, so it went with the next gateway minute.
        amount: '1250.50',
        rule: { kind: 'immediate' },
        scheduleOption: 1,
        reason: 'applied: eligibility 2022-12-02T16:06:00+05:30 accepted by the gateway at send 1',
        holdReason: null,
        clamp: { requested: '2022-12-02T16:00:00+05:30', clampedTo: '2022-12-02T16:06:00+05:30', reason: 'in_the_past' },
        plannedSendAt: '2022-12-02T15:00:00+05:30',
        sendAt: null,
        sends: 1,
        manual: null,
        settledAt: null,
        settledFrom: null,
        // Contract 6.4: not waiting under a cap, not held, so no settle-anyway date.
        waitReason: null,
        holdSource: null,
        settlesAnywayAt: null,
      }],
    });

    await call('PUT', '/settings', { timezone: 'UTC' });
    const inUtc = (await call('GET', `/orders/${ORDER}`)).body;
    expect(inUtc.transactionTime).toBe('2022-12-02T10:30:00Z');
    expect(inUtc.vendors[0].appliedEligibility).toBe('2022-12-02T10:36:00Z');
  });
});

describe('predictions', () => {
  test('the interface example: eligibility 2022-12-06 09:00:00 on option 1 settles 7 Dec at 11:00', async () => {
    expect((await call('POST', '/predictions', { eligibility: '2022-12-06 09:00:00', scheduleOption: 1 })).body)
      .toEqual({ settlementAt: '2022-12-07T11:00:00+05:30' });
    expect((await call('POST', '/predictions', { eligibility: '2022-12-06T03:30:00Z', scheduleOption: 1 })).body)
      .toEqual({ settlementAt: '2022-12-07T11:00:00+05:30' });
  });

  test('bad input names the field', async () => {
    const { status, body } = await call('POST', '/predictions', { eligibility: 'tomorrow', scheduleOption: 10 });
    expect(status).toBe(400);
    expect(body.error.message).toMatch(/eligibility: is "tomorrow", not a date and time; send "YYYY-MM-DD HH:MM:SS"/);
    expect(body.error.message).toMatch(/scheduleOption: is 10/);
  });
});

test('GET /rejected-events lists malformed events with their reasons', async () => {
  await send(api.world, 'order.paid', { orderId: ORDER });
  const { body } = await call('GET', '/rejected-events?limit=10');
  expect(body.rejectedEvents).toHaveLength(1);
  expect(body.rejectedEvents[0].reasons).toEqual(expect.arrayContaining([expect.stringMatching(/^detail\.transactionTime: is missing/)]));
});

describe('errors', () => {
  test('an unknown route is a 404, a known route with another method a 405 with Allow', async () => {
    expect((await call('GET', '/nowhere')).body.error.code).toBe('route_not_found');
    const wrong = await call('DELETE', '/settings');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, PUT');
  });

  test('a failure inside is a 500 that does not leak its message', async () => {
    api.world.deps.settings.get = async () => { throw new Error('connect ECONNREFUSED 10.0.0.7:8000 table holdback-config'); };
    const { status, body } = await call('GET', '/settings');
    expect(status).toBe(500);
    expect(body.error.code).toBe('internal_error');
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|holdback-config/);
    expect(api.world.logger.lines.some((l) => l.level === 'error' && String(l.fields?.error).includes('ECONNREFUSED'))).toBe(true);
  });

  test('a stored release without its currency (nor its order\'s) is reported naming it, never totalled as INR', async () => {
    await usePolicy(api.world, { kind: 'at_max' });
    await send(api.world, 'order.paid', paid());
    for (const release of api.world.orders.releases.values()) delete release.currency;
    for (const order of api.world.orders.orders.values()) (order as { currency?: string }).currency = undefined;
    const { status, body } = await call('GET', '/vendors');
    expect(status).toBe(500);
    expect(body.error).toEqual({ code: 'stored_data_defect', message: expect.stringMatching(new RegExp(`^release ${ORDER}/${VENDOR} has no currency stored, nor has its order; repair the stored item`)) });
    expect((await call('GET', `/outcomes?vendorId=${VENDOR}`)).body.error.code).toBe('stored_data_defect');
  });
});
