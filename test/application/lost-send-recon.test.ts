/**
 * No release sent twice after a kill (contract section 7): a sender lost after the gateway applied its PUT leaves the
 * release APPLYING; the claimant that takes it over after its deadline asks the gateway's order recon first, and
 * records APPLIED from it when the gateway holds the date the lost send carried, without a second PUT.
 */
import { handleOrderEvent } from '../../functions/application/releases/handle-order-event';
import type { Dependencies } from '../../functions/application/ports';
import { releaseVendor } from '../../functions/application/releases/release-vendor';
import { sweep } from '../../functions/application/releases/sweep';
import { INDIA_TIME, formatInstant, parseGatewayDate } from '../../functions/domain/dates';
import type { ReleaseCommand } from '../../functions/domain/types';
import { fakeWorld, type FakeWorld } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, usePolicy } from './scenario';
import { at } from '../times';

/** The immediate release of the documented example, claimed at 16:05: it sends the next gateway minute, 16:06. */
const SENT = '2022-12-02 16:06:00';

async function dueRelease(): Promise<{ world: FakeWorld; command: ReleaseCommand }> {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  await handleOrderEvent(world.deps, 'order.paid', paid());
  const [command] = world.queue.take();
  return { world, command };
}

/**
 * The release function's dependencies with a process that dies during the PUT, after the attempt was recorded, before
 * or after the gateway applied it.
 */
function dyingSender(world: FakeWorld, gatewayApplies: boolean): Dependencies {
  return {
    ...world.deps,
    gateway: {
      async updateEligibility(orderId, vendorId, eligibility, beforePut) {
        if (gatewayApplies) {
          await world.gateway.updateEligibility(orderId, vendorId, eligibility, beforePut);
          const applied = parseGatewayDate(eligibility);
          world.gatewayOrders.eligibilities.set(`${orderId}/${vendorId}`, formatInstant(applied!, INDIA_TIME));
        } else {
          await beforePut?.(1, world.clock.now().in(INDIA_TIME).wholeSecond());
        }
        throw new Error('process killed during the PUT');
      },
    },
  };
}

/** The sender dies; after the claim deadline the sweep re-drives the release through the queue. */
async function dieThenSweep(world: FakeWorld, command: ReleaseCommand, gatewayApplies: boolean): Promise<void> {
  await expect(releaseVendor(dyingSender(world, gatewayApplies), command)).rejects.toThrow('process killed');
  const stuck = await release(world);
  expect(stuck.state).toBe('APPLYING');
  // What was about to be sent is on the record before it left: the release's attempt and the audit log.
  expect(stuck.sending?.request).toBe(SENT);
  expect(stuck.attempts).toEqual([{ at: '2022-12-02T16:05:00+05:30', request: SENT, httpStatus: null, status: 'SENT', subCode: null, message: 'sent; no answer recorded yet' }]);
  expect(world.audit.entries.filter((e) => e.kind === 'gateway_attempt').map((e) => e.detail)).toEqual([
    { phase: 'sent', send: 1, attempt: 1, request: { eligibility: SENT, at: '2022-12-02T16:05:00+05:30' } },
  ]);
  world.clock.advance({ minutes: 3 });
  expect((await sweep(world.deps)).redriven).toBe(1);
  await world.deliverQueued();
}

test('a sender killed after the gateway applied its PUT: APPLIED from the order recon, exactly one PUT in all', async () => {
  const { world, command } = await dueRelease();
  await dieThenSweep(world, command, true);

  expect(world.gateway.calls.map((c) => c.eligibility)).toEqual([SENT]);
  expect(world.gatewayOrders.recons).toEqual([{ orderId: ORDER, vendorId: VENDOR }]);
  const applied = await release(world);
  expect(applied).toMatchObject({
    state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30', sends: 1, sendAt: null, releaseKey: null, sending: null,
  });
  expect(applied.predictedSettlement).not.toBeNull();
  expect(applied.reason).toContain("found at the gateway's order recon");
  expect(world.publisher.events.filter((e) => e.type === 'vendor.release_applied')).toEqual([{
    type: 'vendor.release_applied',
    detail: { orderId: ORDER, vendorId: VENDOR, eligibility: '2022-12-02T16:06:00+05:30', predictedSettlement: applied.predictedSettlement },
  }]);
  // Its attempt is on the record, answered from the recon and marked so; the log has the request and the confirmation.
  expect(applied.attempts).toEqual([{
    at: '2022-12-02T16:05:00+05:30', request: SENT, httpStatus: null, status: 'OK', subCode: null,
    message: "no answer recorded: its sender was lost (taken over at 2022-12-02T16:08:00+05:30); confirmed from the gateway's order recon at 2022-12-02T16:08:00+05:30: eligibility 2022-12-02T16:06:00+05:30 held",
    confirmedFromRecon: { at: '2022-12-02T16:08:00+05:30', eligibility: '2022-12-02T16:06:00+05:30' },
  }]);
  const attempts = world.audit.entries.filter((e) => e.kind === 'gateway_attempt').map((e) => e.detail);
  expect(attempts).toEqual([
    { phase: 'sent', send: 1, attempt: 1, request: { eligibility: SENT, at: '2022-12-02T16:05:00+05:30' } },
    expect.objectContaining({
      phase: 'confirmed_from_recon', send: 1, request: { eligibility: SENT, at: '2022-12-02T16:05:00+05:30' },
      answer: expect.objectContaining({ source: 'recon', gatewayEligibility: '2022-12-02T16:06:00+05:30', status: 'OK' }),
      from: 'APPLYING', to: 'APPLIED',
    }),
  ]);
  // Nothing left to send: a late duplicate of the command does nothing.
  expect(await releaseVendor(world.deps, command)).toMatchObject({ outcome: 'skipped' });
  expect(world.gateway.calls).toHaveLength(1);
});

test('a sender killed before its PUT reached the gateway: the recon shows no such date, so the release is sent once', async () => {
  const { world, command } = await dueRelease();
  await dieThenSweep(world, command, false);

  expect(world.gatewayOrders.recons).toHaveLength(1);
  expect(world.gateway.calls).toHaveLength(1);
  expect(await release(world)).toMatchObject({ state: 'APPLIED', sends: 1 });
  expect(world.logger.lines.some((l) => l.message.includes('send without a clear answer not found at the gateway'))).toBe(true);
  expect(world.audit.entries.filter((e) => e.detail.phase === 'confirmed_from_recon')).toHaveLength(0);
  // The lost send stays on the record, without an answer, before the one that was applied.
  expect((await release(world)).attempts.map((a) => a.status)).toEqual(['NO_ANSWER', 'OK']);
});

test('the recon cannot be read: nothing is sent (the lost send may have arrived); the retry reads the recon first', async () => {
  const { world, command } = await dueRelease();
  world.gatewayOrders.failNext(new Error('HTTP 503 internal_error: try later'));
  await dieThenSweep(world, command, true);

  expect(world.gateway.calls.map((c) => c.eligibility)).toEqual([SENT]);
  const waiting = await release(world);
  expect(waiting).toMatchObject({ state: 'SCHEDULED', reason: expect.stringContaining("the gateway's order recon could not be read (HTTP 503 internal_error: try later)") });
  const warning = world.logger.lines.find((l) => l.message.includes('the order recon could not be read'));
  expect(warning?.fields).toMatchObject({ orderId: ORDER, vendorId: VENDOR, unresolved: [SENT], error: 'HTTP 503 internal_error: try later' });

  world.clock.set(waiting.sendAt!);
  await world.fireDueSchedules();
  expect(world.gateway.calls).toHaveLength(1);
  expect(await release(world)).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30', sends: 1 });
});

test('a date that moved after the claim is recorded before the PUT, so a taker-over compares with what was really sent', async () => {
  const { world, command } = await dueRelease();
  // The claim is made at 16:05:30 and the plan read after it at 16:06:10: the next gateway minute moved to 16:07.
  world.clock.set('2022-12-02T16:05:30+05:30');
  const readOrder = world.orders.loadOrder.bind(world.orders);
  const deps: Dependencies = {
    ...dyingSender(world, true),
    orders: Object.assign(Object.create(world.orders), {
      async loadOrder(orderId: string) {
        world.clock.set('2022-12-02T16:06:10+05:30');
        return readOrder(orderId);
      },
    }),
  };
  await expect(releaseVendor(deps, command)).rejects.toThrow('process killed');
  expect((await release(world)).sending?.request).toBe('2022-12-02 16:07:00');
  world.clock.advance({ minutes: 3 });
  await sweep(world.deps);
  await world.deliverQueued();
  expect(world.gateway.calls.map((c) => c.eligibility)).toEqual(['2022-12-02 16:07:00']);
  expect(await release(world)).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-02T16:07:00+05:30' });
});
