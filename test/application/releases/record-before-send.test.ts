/**
 * Every send is on the record before it leaves, and nothing is sent again before the gateway's order recon says the
 * last send did not arrive (issue 15, items 2 and 3): a lost answer is confirmed from the recon, never sent twice.
 */
import { handleGatewayWebhook, webhookSignature } from '../../../functions/application/releases/handle-gateway-webhook';
import { handleOrderEvent } from '../../../functions/application/releases/handle-order-event';
import { releaseVendor } from '../../../functions/application/releases/release-vendor';
import { sweep } from '../../../functions/application/releases/sweep';
import type { Dependencies } from '../../../functions/application/ports';
import type { GatewayAnswer } from '../../../functions/domain/types';
import { TEST_WEBHOOK_SECRET, fakeWorld, type FakeWorld } from '../../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from '../scenario';

/** The immediate release of the documented example at 16:05: it sends the next gateway minute, 16:06. */
const SENT = '2022-12-02 16:06:00';
const TIMEOUT: GatewayAnswer = { kind: 'timeout', message: 'no answer within 5000 ms' };
const RESET: GatewayAnswer = { kind: 'network', message: 'ECONNRESET: socket hang up' };

async function immediate(): Promise<FakeWorld> {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  return world;
}

const attemptRecords = (world: FakeWorld) => world.audit.entries.filter((e) => e.kind === 'gateway_attempt').map((e) => e.detail);

test('the attempt is in the release and the audit log when the PUT reaches the gateway', async () => {
  const world = await immediate();
  const seen: unknown[] = [];
  world.gateway.beforeStep = async (step) => {
    if (step !== 'gateway.updateEligibility') return;
    const stored = await world.orders.getRelease(ORDER, VENDOR);
    seen.push({ state: stored?.state, sending: stored?.sending?.request, attempts: stored?.attempts, audit: attemptRecords(world) });
  };
  await send(world, 'order.paid', paid());

  expect(seen).toEqual([{
    state: 'APPLYING',
    sending: SENT,
    attempts: [{ at: '2022-12-02T16:05:00+05:30', request: SENT, httpStatus: null, status: 'SENT', subCode: null, message: 'sent; no answer recorded yet' }],
    audit: [{ phase: 'sent', send: 1, attempt: 1, request: { eligibility: SENT, at: '2022-12-02T16:05:00+05:30' } }],
  }]);
  // The answer replaces the SENT attempt; the log keeps the request and, in a second record, the answer.
  const applied = await release(world);
  expect(applied).toMatchObject({ state: 'APPLIED', sends: 1, sending: null });
  expect(applied.attempts).toEqual([expect.objectContaining({ request: SENT, status: 'OK', subCode: '200' })]);
  expect(attemptRecords(world).map((d) => d.phase)).toEqual(['sent', 'answered']);
});

test('an answer lost after the gateway applied the PUT (hang_after_apply): confirmed from the order recon, one PUT', async () => {
  const world = await immediate();
  world.gateway.answerNext({ ...TIMEOUT, appliedFirst: true });
  await send(world, 'order.paid', paid());

  // The timeout is retried through a new claim, which reads the recon before it sends: the gateway holds 16:06.
  expect(world.gateway.calls.map((c) => c.eligibility)).toEqual([SENT]);
  expect(world.gatewayOrders.recons).toEqual([{ orderId: ORDER, vendorId: VENDOR }]);
  const applied = await release(world);
  expect(applied).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30', sends: 1, sending: null });
  expect(applied.reason).toMatch(/found at the gateway's order recon after send 1 had no clear answer; not sent again$/);
  expect(applied.attempts).toEqual([{
    at: '2022-12-02T16:05:00+05:30', request: SENT, httpStatus: null, status: 'OK', subCode: null,
    message: "no answer within 5000 ms; confirmed from the gateway's order recon at 2022-12-02T16:05:00+05:30: eligibility 2022-12-02T16:06:00+05:30 held",
    confirmedFromRecon: { at: '2022-12-02T16:05:00+05:30', eligibility: '2022-12-02T16:06:00+05:30' },
  }]);
  expect(attemptRecords(world).map((d) => [d.phase, (d.answer as { status?: string } | undefined)?.status ?? null, d.to ?? null])).toEqual([
    ['sent', null, null], ['answered', 'TIMEOUT', 'SCHEDULED'], ['confirmed_from_recon', 'OK', 'APPLIED'],
  ]);
  expect(world.publisher.events.filter((e) => e.type === 'vendor.release_applied')).toHaveLength(1);
});

test('a reset before the gateway applied the PUT: the recon holds nothing, so it is sent again, and applied once', async () => {
  const world = await immediate();
  world.gateway.answerNext(RESET);
  await send(world, 'order.paid', paid());

  expect(world.gatewayOrders.recons).toHaveLength(1);
  expect(world.gateway.calls.map((c) => c.eligibility)).toEqual([SENT, SENT]);
  const applied = await release(world);
  expect(applied).toMatchObject({ state: 'APPLIED', sends: 2 });
  expect(applied.attempts.map((a) => a.status)).toEqual(['NETWORK', 'OK']);
});

test('answers that leave the outcome open are retried at once twice in a row, then with the backoff, each after a recon', async () => {
  const world = await immediate();
  world.gateway.answerNext(TIMEOUT, RESET, { kind: 'response', httpStatus: 502, status: 'ERROR', subCode: '502', message: 'Bad gateway' });
  await send(world, 'order.paid', paid());

  const waiting = await release(world);
  expect(waiting).toMatchObject({ state: 'SCHEDULED', sends: 3, sendAt: '2022-12-02T16:09:00+05:30' });
  expect(waiting.reason).toMatch(/^retrying: gateway error \(HTTP 502\): Bad gateway \(it may have been applied: the gateway's order recon is read before anything is sent again\); send 4 at/);
  expect(world.gateway.calls).toHaveLength(3);
  expect(world.gatewayOrders.recons).toHaveLength(2);

  world.clock.set(waiting.sendAt!);
  await world.fireDueSchedules();
  expect(world.gatewayOrders.recons).toHaveLength(3);
  expect(await release(world)).toMatchObject({ state: 'APPLIED', sends: 4 });
});

test('a 429 is a clean refusal: retried without reading the recon', async () => {
  const world = await immediate();
  world.gateway.answerNext({ kind: 'response', httpStatus: 429, status: 'ERROR', subCode: '429', message: 'too many requests', retryAfterSeconds: 1 });
  await send(world, 'order.paid', paid());
  const waiting = await release(world);
  expect(waiting.state).toBe('SCHEDULED');
  world.clock.set(waiting.sendAt!);
  await world.fireDueSchedules();
  expect(await release(world)).toMatchObject({ state: 'APPLIED', sends: 2 });
  expect(world.gatewayOrders.recons).toEqual([]);
});

/** A release function that records its attempt, reaches the gateway (which applies it) and dies before the answer. */
function killedAfterPut(world: FakeWorld): Dependencies {
  return {
    ...world.deps,
    gateway: {
      async updateEligibility(orderId, vendorId, eligibility, beforePut) {
        world.gateway.answerNext({ ...TIMEOUT, appliedFirst: true });
        await world.gateway.updateEligibility(orderId, vendorId, eligibility, beforePut);
        throw new Error('process killed after the PUT left');
      },
    },
  };
}

function settlementWebhook(world: FakeWorld, settledAt: string) {
  const rawBody = Buffer.from(JSON.stringify({
    type: 'VENDOR_SETTLEMENT_SUCCESS',
    event_time: settledAt,
    data: { settlement: { order_id: ORDER, vendor_id: VENDOR, settlement_id: 7, settlement_amount: 1250.5, settled_at: settledAt } },
  }));
  const timestamp = String(world.clock.now().ms);
  return { headers: { 'x-webhook-timestamp': timestamp, 'x-webhook-signature': webhookSignature(TEST_WEBHOOK_SECRET, timestamp, rawBody) }, rawBody };
}

test('a settlement that comes while the release is APPLYING after a kill records the eligibility from the recon', async () => {
  const killed = await immediate();
  await handleOrderEvent(killed.deps, 'order.paid', paid());
  const [command] = killed.queue.take();
  await expect(releaseVendor(killedAfterPut(killed), command)).rejects.toThrow('process killed');
  expect((await release(killed)).state).toBe('APPLYING');

  // No sweep ran (a long clock jump): the gateway settles first.
  killed.clock.set('2022-12-03T11:00:05+05:30');
  const result = await handleGatewayWebhook(killed.deps, settlementWebhook(killed, '2022-12-03T11:00:00+05:30'));
  expect(result).toEqual({ action: 'release_settled', orderId: ORDER, vendorId: VENDOR });
  const settled = await release(killed);
  expect(settled).toMatchObject({
    state: 'SETTLED', appliedEligibility: '2022-12-02T16:06:00+05:30', sends: 1,
    settledFrom: { state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30', predictedSettlement: '2022-12-03T11:00:00+05:30' },
    settlementMismatch: null,
  });
  expect(settled.attempts).toEqual([expect.objectContaining({ request: SENT, status: 'OK', confirmedFromRecon: { at: '2022-12-03T11:00:05+05:30', eligibility: '2022-12-02T16:06:00+05:30' } })]);
  expect(attemptRecords(killed).map((d) => d.phase)).toEqual(['sent', 'confirmed_from_recon']);
  expect(killed.publisher.events.filter((e) => e.type === 'vendor.release_applied')).toHaveLength(1);
  expect(killed.gateway.calls).toHaveLength(1);
  // The sweep finds nothing left to re-drive.
  expect((await sweep(killed.deps)).redriven).toBe(0);
});
