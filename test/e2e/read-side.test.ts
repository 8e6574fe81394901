/** End to end through HTTP: outcomes (JSON pages, streamed CSV), vendors, forecasts, prediction accuracy and drift, rejected events. */
import { startHarness, type Harness } from './harness';

describe('finance and auditors read what happened, through the local stack', () => {
  let h: Harness;
  const first = 'ord-read-1';
  const second = 'ord-read-2';

  beforeAll(async () => {
    h = await startHarness();
    // Holdback's mirror says 20 days; the sandbox merchant's dashboard says 15 (its default): drift to be detected.
    const settings = await h.api('PUT', '/settings', { deferByDays: 20, actor: 'finance@test', reason: 'e2e: a wrong mirror' });
    expect(settings.status).toBe(200);
    await h.createVendors([
      { id: 'v-now', scheduleOption: 1 }, { id: 'v-max', scheduleOption: 1 }, { id: '-v-dash', scheduleOption: 1 },
      { id: 'v-opt', scheduleOption: 2 },
    ]);
    await h.setPolicy('v-now', { kind: 'immediate' });
    await h.setPolicy('-v-dash', { kind: 'immediate' });
    // The gateway settles v-opt by option 2; this policy says 1.
    await h.setPolicy('v-opt', { kind: 'at_max' }, 1);
    // v-max keeps the default policy (version 0: at_max, schedule option 1).
    const paidAt = await h.createPaidOrder(first, [
      { vendorId: 'v-now', amount: 1000 }, { vendorId: 'v-max', amount: 100 }, { vendorId: '-v-dash', amount: 250.25 },
    ]);
    await h.send('order.paid', {
      orderId: first, transactionTime: paidAt,
      vendors: [{ vendorId: 'v-now', amount: 1000 }, { vendorId: 'v-max', amount: 100 }, { vendorId: '-v-dash', amount: '250.25' }],
    });
    await h.advance('PT1H');
    const secondPaidAt = await h.createPaidOrder(second, [{ vendorId: 'v-now', amount: 10 }]);
    await h.send('order.paid', { orderId: second, transactionTime: secondPaidAt, vendors: [{ vendorId: 'v-now', amount: '10' }] });
  });
  afterAll(() => h.close());

  test('GET /outcomes: JSON pages that a cursor walks, in transaction time order, every release once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const { status, body } = await h.api('GET', `/outcomes?limit=2${query}`);
      expect(status).toBe(200);
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((i: { orderId: string; vendorId: string }) => `${i.orderId}/${i.vendorId}`));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual([`${first}/-v-dash`, `${first}/v-max`, `${first}/v-now`, `${second}/v-now`]);

    const { body } = await h.api('GET', `/outcomes?vendorId=v-now&state=APPLIED`);
    expect(body.nextCursor).toBeNull();
    expect(body.items).toEqual([
      expect.objectContaining({ orderId: first, vendorId: 'v-now', state: 'APPLIED', amount: '1000.00', currency: 'INR', transactionTime: '2022-12-02T16:05:00+05:30', appliedEligibility: '2022-12-02T16:06:00+05:30', predictedSettlement: '2022-12-03T11:00:00+05:30', settlementMismatch: null }),
      expect.objectContaining({ orderId: second, vendorId: 'v-now', state: 'APPLIED', amount: '10.00' }),
    ]);
    expect((await h.api('GET', `/outcomes?orderId=${second}`)).body.items.map((i: { vendorId: string }) => i.vendorId)).toEqual(['v-now']);
    expect((await h.api('GET', '/outcomes?from=2022-12-02T17:00:00%2B05:30')).body.items.map((i: { orderId: string }) => i.orderId)).toEqual([second]);
  });

  test('GET /outcomes refuses bad filters naming each, and a cursor of another query', async () => {
    const bad = await h.api('GET', '/outcomes?limit=0&by=paid&state=DONE&from=yesterday&vendorId=a');
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { field: string }) => i.field).sort()).toEqual(['by', 'from', 'limit', 'state', 'vendorId']);
    const page = await h.api('GET', '/outcomes?limit=1');
    const foreign = await h.api('GET', `/outcomes?limit=1&vendorId=v-now&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toMatch(/^cursor: is not a cursor of this list/);
    expect((await h.api('GET', '/outcomes?format=csv&cursor=abc')).status).toBe(400);
  });

  test('GET /outcomes?format=csv: streamed RFC 4180 with the contract\'s columns, formula-like text escaped, amounts and times as they are', async () => {
    const response = await fetch(`${h.runtime.api.url}/outcomes?format=csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    // Streamed: no length known up front, sent in chunks.
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const lines = (await response.text()).split('\r\n');
    expect(lines[0]).toBe('order_id,vendor_id,amount,currency,state,policy_version,schedule_option,transaction_time,max_eligibility,target_eligibility,applied_eligibility,predicted_settlement,settled_at,attempts,last_gateway_status,last_gateway_message,reason,hold_reason,manual_actor,manual_reason,settlement_mismatch_minutes');
    expect(lines).toHaveLength(6); // header, four rows, and the empty string after the last CRLF
    expect(lines[5]).toBe('');
    expect(lines[1]).toBe(`${first},'-v-dash,250.25,INR,APPLIED,1,1,2022-12-02T16:05:00+05:30,2022-12-22T16:05:00+05:30,2022-12-02T16:05:00+05:30,2022-12-02T16:06:00+05:30,2022-12-03T11:00:00+05:30,,1,OK,Updated vendor settlement eligibility date,applied: eligibility 2022-12-02T16:06:00+05:30 accepted by the gateway at send 1,,,,`);
    expect(lines[2]).toBe(`${first},v-max,100.00,INR,AT_MAX,0,1,2022-12-02T16:05:00+05:30,2022-12-22T16:05:00+05:30,2022-12-22T16:05:00+05:30,,2022-12-23T11:00:00+05:30,,0,,,"rule at_max: no update, the gateway settles from max eligibility 2022-12-22T16:05:00+05:30",,,,`);
  });

  test('GET /vendors: every vendor from orders and policies, with policy, hold and open amount, in cursor pages', async () => {
    expect((await h.api('POST', '/vendors/v-max/hold', { actor: 'risk@test', reason: 'fraud review' })).status).toBe(200);
    const { status, body } = await h.api('GET', '/vendors?limit=3');
    expect(status).toBe(200);
    expect(body.items.map((v: { vendorId: string }) => v.vendorId)).toEqual(['-v-dash', 'v-max', 'v-now']);
    const max = body.items[1];
    expect(max).toMatchObject({ policyVersion: 0, scheduleOption: 1, release: { kind: 'at_max' }, held: true, hold: { held: true, actor: 'risk@test', reason: 'fraud review' } });
    expect(max.open).toEqual([{ currency: 'INR', count: 1, amount: '100.00' }]);
    expect(body.items[2].open).toEqual([{ currency: 'INR', count: 2, amount: '1010.00' }]);
    const rest = await h.api('GET', `/vendors?limit=3&cursor=${encodeURIComponent(body.nextCursor)}&checkGateway=true`);
    expect(rest.body.nextCursor).toBeNull();
    expect(rest.body.items).toEqual([expect.objectContaining({ vendorId: 'v-opt', policyVersion: 1, scheduleOption: 1, open: [], gateway: expect.objectContaining({ answer: 'disagrees', scheduleOption: 2, policyDisagrees: true }) })]);
    expect((await h.api('POST', '/vendors/v-max/unhold', { actor: 'risk@test', reason: 'cleared' })).status).toBe(200);
  });

  test('GET /forecast and /vendors/{id}/forecast: per India day, firm (applied) and projected (unsent, at their predicted settlement)', async () => {
    const { status, body } = await h.api('GET', '/forecast?from=2022-12-03&to=2022-12-23');
    expect(status).toBe(200);
    expect(body.days).toHaveLength(21);
    const day = (date: string) => body.days.find((d: { date: string }) => d.date === date);
    expect(day('2022-12-03')).toEqual({ date: '2022-12-03', currency: 'INR', firm: { count: 3, amount: '1260.25' }, projected: { count: 0, amount: '0.00' } });
    // v-max never moves: Holdback expects the gateway's default, the slot after its max eligibility (22 Dec 16:05).
    expect(day('2022-12-23')).toEqual({ date: '2022-12-23', currency: 'INR', firm: { count: 0, amount: '0.00' }, projected: { count: 1, amount: '100.00' } });
    expect(day('2022-12-10')).toEqual({ date: '2022-12-10', currency: 'INR', firm: { count: 0, amount: '0.00' }, projected: { count: 0, amount: '0.00' } });
    const vendor = await h.api('GET', '/vendors/v-now/forecast?from=2022-12-03&to=2022-12-03');
    expect(vendor.body).toEqual({ from: '2022-12-03', to: '2022-12-03', vendorId: 'v-now', days: [{ date: '2022-12-03', currency: 'INR', firm: { count: 2, amount: '1010.00' }, projected: { count: 0, amount: '0.00' } }] });
    expect((await h.api('GET', '/vendors/v-nobody/forecast')).status).toBe(404);
    expect((await h.api('GET', '/forecast?from=2022-12-03&to=2024-01-01')).status).toBe(400);
  });

  test('settlements against predictions: a mismatch is an outcome of its own, emits config.drift_detected, and shows in the accuracy report', async () => {
    // The sandbox settles every vendor; at_max v-max at the gateway's 15 days (17 Dec 16:05 -> Monday 19 Dec 11:00),
    // where Holdback, mirroring 20 days, predicted Friday 23 Dec 11:00.
    await h.advance('P21D');
    const { body } = await h.api('GET', '/outcomes?by=settled&from=2022-12-01&to=2022-12-31');
    expect(body.items.map((i: { vendorId: string; state: string }) => `${i.vendorId}:${i.state}`).sort()).toEqual(['-v-dash:SETTLED', 'v-max:SETTLED', 'v-now:SETTLED', 'v-now:SETTLED']);
    const max = body.items.find((i: { vendorId: string }) => i.vendorId === 'v-max');
    expect(max.settledAt).toBe('2022-12-19T11:00:00+05:30');
    expect(max.settlementMismatch).toEqual({
      predicted: '2022-12-23T11:00:00+05:30',
      settledAt: '2022-12-19T11:00:00+05:30',
      differenceMinutes: -5760,
      message: expect.stringMatching(/Defer by Days is likely shorter than settings\.deferByDays \(20\)/),
    });
    expect(body.items.filter((i: { settlementMismatch: unknown }) => i.settlementMismatch === null)).toHaveLength(3);

    const listed = await fetch(`${h.runtime.edge.url}/_local/events?source=holdback&detailType=config.drift_detected`);
    const { events } = await listed.json() as { events: { detail: unknown }[] };
    const drift = events.map((e) => (typeof e.detail === 'string' ? JSON.parse(e.detail) : e.detail));
    expect(drift).toEqual(expect.arrayContaining([expect.objectContaining({ orderId: first, vendorId: 'v-max', message: max.settlementMismatch.message })]));

    const accuracy = await h.api('GET', '/reports/prediction-accuracy?from=2022-12-01&to=2022-12-31');
    expect(accuracy.status).toBe(200);
    expect(accuracy.body.scheduleOptions).toEqual([{ scheduleOption: 1, settled: 4, asPredicted: 3, maxDifferenceMinutes: 5760, predicted: 4, unpredicted: 0, unpredictedReasons: [] }]);
    expect([accuracy.body.from, accuracy.body.to]).toEqual(['2022-12-01T00:00:00+05:30', '2022-12-31T23:59:59+05:30']);
    expect((await h.api('GET', '/reports/prediction-accuracy?from=2022-12-01')).body.error.issues).toEqual([expect.objectContaining({ field: 'to' })]);
  });

  test('GET /rejected-events: in order of arrival with a count and a cursor', async () => {
    for (const orderId of ['x', 'y', 'z']) await h.send('order.paid', { orderId });
    const page = await h.api('GET', '/rejected-events?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(3);
    expect(page.body.rejectedEvents.map((r: { sequence: number; detail: { orderId: string } }) => [r.sequence, r.detail.orderId])).toEqual([[3, 'z'], [2, 'y']]);
    const rest = await h.api('GET', `/rejected-events?limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect(rest.body.rejectedEvents.map((r: { sequence: number }) => r.sequence)).toEqual([1]);
    expect(rest.body.nextCursor).toBeNull();
  });
});
