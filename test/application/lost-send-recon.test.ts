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

/** The immediate release of the documented example, claimed at 16:05: it sends the next gateway minute, 16:06. */
const SENT = '2022-12-02 16:06:00';

async function dueRelease(): Promise<{ world: FakeWorld; command: ReleaseCommand }> {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  await handleOrderEvent(world.deps, 'order.paid', paid());
  const [command] = world.queue.take();
  return { world, command };
}

/** The release function's dependencies with a process that dies during the PUT, before or after the gateway applied it. */
function dyingSender(world: FakeWorld, gatewayApplies: boolean): Dependencies {
  return {
    ...world.deps,
    gateway: {
      async updateEligibility(orderId, vendorId, eligibility) {
        if (gatewayApplies) {
          await world.gateway.updateEligibility(orderId, vendorId, eligibility);
          const applied = parseGatewayDate(eligibility);
          world.gatewayOrders.eligibilities.set(`${orderId}/${vendorId}`, formatInstant(applied!, INDIA_TIME));
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
  // The claim stored what it was about to send before sending it.
  expect(stuck.sending?.request).toBe(SENT);
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
  const confirmed = world.audit.entries.filter((e) => e.kind === 'planned' && e.detail.cause === 'recon');
  expect(confirmed).toHaveLength(1);
  expect(confirmed[0].detail).toMatchObject({ from: 'APPLYING', to: 'APPLIED', request: SENT, gatewayEligibility: '2022-12-02T16:06:00+05:30' });
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
  expect(world.logger.lines.some((l) => l.message.includes('lost send not found at the gateway'))).toBe(true);
  expect(world.audit.entries.filter((e) => e.detail.cause === 'recon')).toHaveLength(0);
});

test('the recon cannot be read: sent again as before the recon existed, and the log says why', async () => {
  const { world, command } = await dueRelease();
  world.gatewayOrders.failNext(new Error('HTTP 503 internal_error: try later'));
  await dieThenSweep(world, command, true);

  // The re-drive at 16:08 sends the next gateway minute again, as any send after an unknown outcome does.
  expect(world.gateway.calls.map((c) => c.eligibility)).toEqual([SENT, '2022-12-02 16:09:00']);
  expect(await release(world)).toMatchObject({ state: 'APPLIED' });
  const warning = world.logger.lines.find((l) => l.message.includes('the order recon could not be read'));
  expect(warning?.fields).toMatchObject({ orderId: ORDER, vendorId: VENDOR, lostRequest: SENT, error: 'HTTP 503 internal_error: try later' });
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
