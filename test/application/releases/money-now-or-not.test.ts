/**
 * Contract 6 over real HTTP: vendor hold and unhold, manual release, the retry of a FAILED release (issue 10.2), and
 * the replan of a vendor's open orders under a new policy (issue 7.2); each change audited.
 */
import type { GatewayAnswer } from '../../../functions/domain/types';
import { ORDER, VENDOR, paid, release, send, usePolicy } from '../scenario';
import { serveApiOverFakes } from '../live-api';

const api = serveApiOverFakes();

/** The request alone: what is in force at its answer, before any job step ran. */
const request = api.request;

/** The request and the work it handed on (jobs, queued releases). */
const call = api.settled;

const RISK = { actor: 'risk@example.com', reason: 'fraud review' };
const ORDER_2 = 'order_1002';

describe('POST /vendors/{vendorId}/hold and /unhold', () => {
  test('a hold keeps every unsent release HELD (vendor_hold), new orders too, and sends nothing; unhold plans them again', async () => {
    const { world } = api;
    await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
    await send(world, 'order.paid', paid());
    const scheduled = await release(world);
    expect(scheduled.state).toBe('SCHEDULED');

    const held = await call('POST', `/vendors/${VENDOR}/hold`, RISK);
    expect(held).toMatchObject({ status: 200, body: { vendorId: VENDOR, held: true, actor: 'risk@example.com', reason: 'fraud review', job: { kind: 'vendor_hold', state: 'queued' } } });
    expect(await release(world)).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold', sendAt: null, reason: expect.stringMatching(/^vendor hold by risk@example.com at .*: fraud review$/) });
    // Its schedule is deleted: nothing fires.
    expect(world.scheduler.cancelled).toEqual([scheduled.releaseKey]);

    // A new order of the held vendor, due at once, is HELD too.
    await usePolicy(world, { kind: 'immediate' });
    await send(world, 'order.paid', paid(ORDER_2));
    expect(await release(world, ORDER_2)).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold' });
    world.clock.set('2022-12-03T15:30:00+05:30');
    await world.fireDueSchedules();
    expect(world.gateway.calls).toEqual([]);

    const order = (await call('GET', `/orders/${ORDER}`)).body;
    expect(order.vendors[0]).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold', amount: '1250.50', rule: { kind: 'after_payment', delay: 'P1D' } });

    // Unhold: the first order's target (3 Dec 16:00) is still ahead, so it is scheduled again for 15:00, which has
    // passed: it goes at once with its target; the second order's (immediate) goes with the next gateway minute.
    expect(await call('POST', `/vendors/${VENDOR}/unhold`, { actor: 'risk@example.com', reason: 'cleared' }))
      .toMatchObject({ status: 200, body: { held: false, job: { kind: 'vendor_unhold' } } });
    // Both sent once, in no particular order (unhold enqueues them together).
    expect(world.gateway.calls.map((c) => [c.orderId, c.eligibility]).sort()).toEqual([[ORDER, '2022-12-03 16:00:00'], [ORDER_2, '2022-12-03 15:31:00']]);
    expect((await release(world)).state).toBe('APPLIED');
    expect((await release(world, ORDER_2)).state).toBe('APPLIED');

    const kinds = world.audit.entries.map((e) => [e.kind, e.vendorId, e.actor]);
    expect(kinds).toEqual(expect.arrayContaining([['hold', VENDOR, 'risk@example.com'], ['unhold', VENDOR, 'risk@example.com']]));
    expect(world.audit.entries.filter((e) => e.kind === 'planned' && e.detail.cause === 'hold')).toHaveLength(1);
  });

  test('unknown vendor 404; malformed body 400 naming the field', async () => {
    expect(await call('POST', '/vendors/nobody_here/hold', RISK)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    await usePolicy(api.world, { kind: 'immediate' });
    const bad = await call('POST', `/vendors/${VENDOR}/hold`, { actor: '', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { field: string }) => i.field)).toEqual(['colour', 'actor', 'reason']);
    expect((await call('POST', `/vendors/${VENDOR}/hold`, 'not json')).body.error.issues[0].field).toBe('body');
    expect((await call('POST', '/vendors/a%2Fb/hold', RISK)).status).toBe(400);
  });
});

describe('POST /orders/{orderId}/vendors/{vendorId}/release', () => {
  const FINANCE = { actor: 'finance@example.com', reason: 'goods received' };

  test('from SCHEDULED: sent as soon as the gateway accepts, recorded as a manual release', async () => {
    const { world } = api;
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', paid());

    const answer = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, FINANCE);

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ orderId: ORDER, vendorId: VENDOR, state: 'PLANNED', manual: { actor: 'finance@example.com', reason: 'goods received', at: null, override: false } });
    expect(world.gateway.calls.map((c) => c.eligibility)).toEqual(['2022-12-02 16:06:00']);
    expect(await release(world)).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30' });
    expect(world.audit.entries.find((e) => e.kind === 'manual_release')).toMatchObject({ orderId: ORDER, vendorId: VENDOR, actor: 'finance@example.com', detail: { from: 'SCHEDULED', to: 'PLANNED' } });
  });

  test('from AT_MAX with a chosen eligibility: scheduled releaseLead before it, then sent with it', async () => {
    const { world } = api;
    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('AT_MAX');

    await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { ...FINANCE, at: '2022-12-06 09:00:00' });
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-06T09:00:00+05:30', sendAt: '2022-12-06T08:00:00+05:30' });
    world.clock.set('2022-12-06T08:00:00+05:30');
    await world.fireDueSchedules();
    // The interface's example: 2022-12-06 09:00 on option 1 settles 7 Dec 11:00.
    expect(await release(world)).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-06T09:00:00+05:30', predictedSettlement: '2022-12-07T11:00:00+05:30' });
  });

  test('HELD by a dispute: 409 invalid_state naming the state, unless override', async () => {
    const { world } = api;
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', paid());
    await send(world, 'order.dispute_opened', { orderId: ORDER, openedAt: '2022-12-02T16:04:00+05:30' });

    const refused = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, FINANCE);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('is HELD') });
    expect(world.gateway.calls).toEqual([]);

    expect((await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { ...FINANCE, override: true })).status).toBe(200);
    expect((await release(world)).state).toBe('APPLIED');
    // Sent: a second manual release is refused, naming APPLIED.
    const again = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, FINANCE);
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'invalid_state', message: expect.stringContaining('is APPLIED') } } });
    expect(world.gateway.calls).toHaveLength(1);
  });

  test('an at in the past (a wrong year) is refused 400 naming at, unless confirmPast: then it goes with the next gateway minute', async () => {
    const { world } = api;
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', paid());
    const before = await release(world);

    // The clock is 2 Dec 2022 16:05 India time; 2021 is a typing error for 2022.
    const refused = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { ...FINANCE, at: '2021-12-06 09:00:00' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.issues).toEqual([{
      field: 'at',
      problem: expect.stringContaining('is 2021-12-06T09:00:00+05:30, in the past'),
      expected: expect.stringMatching(/a future time.*leave "at" out.*"confirmPast": true/),
    }]);
    expect(world.gateway.calls).toEqual([]);
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', version: before.version, manual: null });

    // Confirmed: the past time means now, sent with the first whole minute at least 30 s ahead.
    const confirmed = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { ...FINANCE, at: '2022-12-02 16:01:00', confirmPast: true });
    expect(confirmed.status).toBe(200);
    expect(world.gateway.calls.map((c) => c.eligibility)).toEqual(['2022-12-02 16:06:00']);
    expect(await release(world)).toMatchObject({ state: 'APPLIED', manual: { at: '2022-12-02T16:01:00+05:30' } });
  });

  test('an at outside the window is refused 400 naming at, confirmed or not; a non-boolean confirmPast is named', async () => {
    const { world } = api;
    await send(world, 'order.paid', paid());
    const before = await release(world);
    // Max eligibility is 17 Dec 16:00 (Defer by Days 15): the gateway settles there anyway.
    for (const body of [{ ...FINANCE, at: '2022-12-20 09:00:00' }, { ...FINANCE, at: '2022-12-20T09:00:00+05:30', confirmPast: true }]) {
      const late = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, body);
      expect(late.status).toBe(400);
      expect(late.body.error.issues).toEqual([{
        field: 'at',
        problem: expect.stringContaining("after this release's max eligibility 2022-12-17T16:00:00+05:30"),
        expected: expect.stringContaining('to 2022-12-17T16:00:00+05:30 (max eligibility)'),
      }]);
    }
    const ancient = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { ...FINANCE, at: '0001-12-06T09:00:00+05:30', confirmPast: true });
    expect(ancient.body.error.issues).toEqual([expect.objectContaining({ field: 'at', problem: expect.stringContaining('before 2000') })]);
    const flag = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { ...FINANCE, at: '2022-12-06 09:00:00', confirmPast: 'yes' });
    expect(flag.body.error.issues.map((i: { field: string }) => i.field)).toEqual(['confirmPast']);
    expect(world.gateway.calls).toEqual([]);
    expect(await release(world)).toMatchObject({ state: 'AT_MAX', version: before.version });
  });

  test('unknown order or vendor 404; a bad body 400 naming the field', async () => {
    await send(api.world, 'order.paid', paid());
    expect((await call('POST', `/orders/order_404/vendors/${VENDOR}/release`, FINANCE)).status).toBe(404);
    expect((await call('POST', `/orders/${ORDER}/vendors/vendor_zz/release`, FINANCE)).body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('vendor vendor_zz is not in order order_1001') });
    const bad = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/release`, { ...FINANCE, at: 'tomorrow', override: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { field: string }) => i.field)).toEqual(['at', 'override']);
  });
});

describe('long faults (issue 10.2)', () => {
  const failing: GatewayAnswer = { kind: 'response', httpStatus: 400, status: 'ERROR', subCode: '400', message: 'Order ID does not exist' };

  test('"Order ID does not exist" past the retry budget is FAILED; the operator retry route sends it again once the gateway knows the order', async () => {
    const { world } = api;
    await call('PUT', '/settings', { retryBudget: 'PT10M' });
    await usePolicy(world, { kind: 'immediate' });
    // The gateway does not know the order, for longer than the budget.
    world.gateway.answerNext(failing);
    await send(world, 'order.paid', paid());
    for (let i = 0; i < 6 && (await release(world)).state !== 'FAILED'; i++) {
      world.gateway.answerNext(failing);
      world.clock.advance({ minutes: 5 });
      await world.fireDueSchedules();
    }
    const failed = await release(world);
    expect(failed).toMatchObject({ state: 'FAILED', reason: expect.stringMatching(/^gave up after \d+ sends: Order ID does not exist since 2022-12-02T16:05:00\+05:30 \(retry budget PT10M\)$/) });
    expect(world.publisher.events.at(-1)).toMatchObject({ type: 'vendor.release_failed', detail: { retryable: false } });

    const refused = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/retry`, { actor: 'ops@example.com' });
    expect(refused.body.error.issues.map((i: { field: string }) => i.field)).toEqual(['reason']);
    const retried = await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/retry`, { actor: 'ops@example.com', reason: 'gateway knows the order now' });
    expect(retried.status).toBe(200);
    expect(await release(world)).toMatchObject({ state: 'APPLIED', orderNotFoundSince: null });
    expect(world.audit.entries.find((e) => e.kind === 'retry')).toMatchObject({ actor: 'ops@example.com', detail: { from: 'FAILED' } });
    // Only a FAILED release can be retried.
    expect(await call('POST', `/orders/${ORDER}/vendors/${VENDOR}/retry`, { actor: 'ops@example.com', reason: 'again' }))
      .toMatchObject({ status: 409, body: { error: { code: 'invalid_state', message: expect.stringContaining('is APPLIED') } } });
  });
});

describe('PUT policy with applyTo open_orders', () => {
  test('every unsent release is planned again under the new version, as a job: schedules moved, at_max released, sent ones untouched', async () => {
    const { world } = api;
    await usePolicy(world, { kind: 'after_payment', delay: 'P10D' });
    await send(world, 'order.paid', paid());
    await usePolicy(world, { kind: 'immediate' }, 'vendor_b');
    await send(world, 'order.paid', paid(ORDER_2, [{ vendorId: VENDOR, amount: '10.00' }, { vendorId: 'vendor_b', amount: '20.00' }]));
    const before = await release(world);
    expect(before).toMatchObject({ state: 'SCHEDULED', policyVersion: 1 });
    expect((await release(world, ORDER_2, 'vendor_b')).state).toBe('APPLIED');

    const put = await call('PUT', `/vendors/${VENDOR}/policy`, {
      scheduleOption: 1, release: { kind: 'after_payment', delay: 'P1D' }, actor: 'finance@example.com', reason: 'trusted now', applyTo: 'open_orders',
    });
    expect(put).toMatchObject({ status: 200, body: { version: 2, job: { kind: 'policy_apply', state: 'queued', params: { vendorId: VENDOR, version: 2 } } } });
    expect((await call('GET', `/jobs/${put.body.job.jobId}`)).body).toMatchObject({ state: 'succeeded', total: 2, done: 2, failed: 0, failures: [] });

    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', policyVersion: 2, targetEligibility: '2022-12-03T16:00:00+05:30', sendAt: '2022-12-03T15:00:00+05:30' });
    expect(world.scheduler.cancelled).toContain(before.releaseKey);
    expect(world.audit.entries.filter((e) => e.kind === 'planned' && e.detail.cause === 'policy_replan').map((e) => e.orderId).sort()).toEqual([ORDER, ORDER_2]);
    world.clock.set('2022-12-03T15:00:00+05:30');
    await world.fireDueSchedules();
    expect(world.gateway.calls.filter((c) => c.vendorId === VENDOR).map((c) => [c.orderId, c.eligibility]))
      .toEqual([[ORDER, '2022-12-03 16:00:00'], [ORDER_2, '2022-12-03 16:00:00']]);
    // Sent releases keep their version and are not sent again.
    expect(await release(world, ORDER_2, 'vendor_b')).toMatchObject({ state: 'APPLIED', policyVersion: 1 });
  });
});

describe('in force at the answer, before the job reaches a release (contract 6.3)', () => {
  test('a release that comes due right after the hold answered is not sent: its claim reads the hold', async () => {
    const { world } = api;
    await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
    await send(world, 'order.paid', paid());
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', sendAt: '2022-12-03T15:00:00+05:30' });
    const held = await request('POST', `/vendors/${VENDOR}/hold`, RISK);
    expect(held.body.job).toMatchObject({ kind: 'vendor_hold', state: 'queued', total: 0, done: 0 });
    // The job has not run: the release is still SCHEDULED when it comes due.
    expect((await release(world)).state).toBe('SCHEDULED');
    world.clock.set('2022-12-03T15:00:00+05:30');
    const fired = await world.fireDueSchedules();
    expect(fired.map((r) => r.outcome)).toEqual(['held']);
    expect(world.gateway.calls).toEqual([]);
    expect(await release(world)).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold' });
    // The job then finds it HELD already: planned again, nothing changes twice.
    await world.runJobs();
    expect((await call('GET', `/jobs/${held.body.job.jobId}`)).body).toMatchObject({ state: 'succeeded', total: 1, done: 1 });
    expect(world.gateway.calls).toEqual([]);
  });

  test('a release that comes due right after an apply answered is planned under the new version instead of sent', async () => {
    const { world } = api;
    await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
    await send(world, 'order.paid', paid());
    const put = await request('PUT', `/vendors/${VENDOR}/policy`, {
      scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, actor: 'finance@example.com', reason: 'slower', applyTo: 'open_orders',
    });
    expect(put.body).toMatchObject({ version: 2, job: { state: 'queued' } });
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', policyVersion: 1, sendAt: '2022-12-03T15:00:00+05:30' });
    world.clock.set('2022-12-03T15:00:00+05:30');
    await world.fireDueSchedules();
    expect(world.gateway.calls).toEqual([]);
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', policyVersion: 2, targetEligibility: '2022-12-05T16:00:00+05:30', sendAt: '2022-12-05T15:00:00+05:30' });
    // A step delivered twice changes nothing twice.
    const step = { jobId: put.body.job.jobId, step: `${VENDOR}:0`, vendorId: VENDOR, after: null };
    await world.jobQueue.enqueue([step, step]);
    await world.runJobs();
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', policyVersion: 2, sendAt: '2022-12-05T15:00:00+05:30' });
    expect((await call('GET', `/jobs/${put.body.job.jobId}`)).body).toMatchObject({ state: 'succeeded', total: 1, done: 1 });
  });
});
