/** At-least-once inputs, one gateway PUT: duplicate events, a release fired twice or concurrently, lost schedules re-driven. */
import { handleOrderEvent } from '../../functions/application/releases/handle-order-event';
import { releaseVendor } from '../../functions/application/releases/release-vendor';
import { sweep } from '../../functions/application/releases/sweep';
import { fakeWorld } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';
import { at } from '../times';

/** Paid 2 Dec 16:00 under "after_payment P1D": one schedule for 3 Dec 15:00 (an hour before the 16:00 target). */
async function scheduledForNextDay() {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  await send(world, 'order.paid', paid());
  expect(world.scheduler.created.map((s) => s.at.toMillis())).toEqual([Date.parse('2022-12-03T15:00:00+05:30')]);
  return { world, command: world.scheduler.created[0].command };
}

describe('exactly one PUT per release', () => {
  test('the same order.paid three times: one order record, one PUT', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'immediate' });

    const results = [];
    for (let i = 0; i < 3; i++) results.push(await send(world, 'order.paid', paid()));

    expect(results.map((r) => r.outcome === 'accepted' && r.duplicate)).toEqual([false, true, true]);
    // The payment is kept as the order record, not as an event item.
    expect(world.orders.orders.size).toBe(1);
    expect(world.orders.events.size).toBe(0);
    expect(world.gateway.calls).toHaveLength(1);
    expect(world.publisher.events).toHaveLength(1);
  });

  test('the same payment written with another offset is a duplicate, not a conflict', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await send(world, 'order.paid', paid());
    const again = await send(world, 'order.paid', { ...paid(), transactionTime: '2022-12-02T10:30:00Z', vendors: [{ vendorId: VENDOR, amount: 1250.5 }] });
    expect(again.outcome).toBe('accepted');
    expect(world.rejected.items).toHaveLength(0);
  });

  test('a different second order.paid for the same order is rejected as a conflict; the first is kept', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await send(world, 'order.paid', paid());
    const second = await send(world, 'order.paid', { ...paid(), transactionTime: '2022-12-02T17:00:00+05:30' });

    expect(second.outcome).toBe('rejected');
    // The rejection names the field that differs.
    expect(world.rejected.items[0].reasons[0]).toMatch(/^detail\.transactionTime: is 2022-12-02T17:00:00\+05:30, not 2022-12-02T16:00:00\+05:30: order_1001 was already paid at 2022-12-02T16:00:00\+05:30/);
    expect((await world.orders.getOrder(ORDER))!.transactionTime).toEqual('2022-12-02T16:00:00+05:30');
    expect(world.orders.events.size).toBe(0);
  });

  test('a release command fired twice: one PUT, the second finds nothing pending', async () => {
    const { world, command } = await scheduledForNextDay();

    world.clock.set('2022-12-03T15:00:00+05:30');
    const first = await releaseVendor(world.deps, command);
    const second = await releaseVendor(world.deps, command);

    expect(first.outcome).toBe('applied');
    expect(second).toMatchObject({ outcome: 'skipped' });
    expect(world.gateway.calls).toHaveLength(1);
  });

  test('the same command fired concurrently: the conditional move to APPLYING lets one through', async () => {
    const { world, command } = await scheduledForNextDay();
    world.clock.set('2022-12-03T15:00:00+05:30');

    const outcomes = await Promise.all([releaseVendor(world.deps, command), releaseVendor(world.deps, command), releaseVendor(world.deps, command)]);

    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['applied', 'skipped', 'skipped']);
    expect(world.gateway.calls).toHaveLength(1);
  });

  test('a schedule firing early by less than a minute still sends; earlier than that it does nothing', async () => {
    const { world, command } = await scheduledForNextDay();

    world.clock.set('2022-12-03T14:58:00+05:30');
    expect(await releaseVendor(world.deps, command)).toMatchObject({ outcome: 'skipped' });
    world.clock.set('2022-12-03T14:59:30+05:30');
    expect((await releaseVendor(world.deps, command)).outcome).toBe('applied');
  });

  test('an event racing the planner: the conditional write loses, the planner reloads and plans again', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', paid());
    // While the cancellation is being planned, a duplicate of the payment's planning writes first.
    world.orders.beforePut = async () => {
      const current = (await world.orders.getRelease(ORDER, VENDOR))!;
      await world.orders.putRelease({ ...current, version: current.version + 1 }, current.version);
    };
    await send(world, 'order.cancelled', { orderId: ORDER, cancelledAt: '2022-12-03T09:00:00+05:30' });
    expect((await release(world)).state).toBe('CANCELLED');
  });
});

describe('the sweep re-drives what was lost', () => {
  test('a lost schedule: the overdue release is sent by the sweep', async () => {
    const { world } = await scheduledForNextDay();
    world.scheduler.pending.clear();

    world.clock.set('2022-12-03T15:01:00+05:30');
    expect((await sweep(world.deps)).redriven).toBe(0);

    world.clock.set('2022-12-03T15:03:00+05:30');
    const result = await sweep(world.deps);

    expect(result).toMatchObject({ examined: 1, redriven: 1, errors: 0 });
    // The sweep only enqueues: the release function sends.
    expect(world.gateway.calls).toEqual([]);
    expect((await world.deliverQueued()).map((r) => r.outcome)).toEqual(['applied']);
    expect(world.gateway.calls.map((c) => c.eligibility)).toEqual(['2022-12-03 16:00:00']);
  });

  test('a lost invocation stuck in APPLYING is sent again after its deadline', async () => {
    const { world } = await scheduledForNextDay();
    world.clock.set('2022-12-03T15:00:00+05:30');
    // The invocation dies after moving to APPLYING, before calling the gateway.
    const pending = await release(world);
    await world.orders.putRelease({ ...pending, state: 'APPLYING', sendAt: at('2022-12-03T15:02:00+05:30'), version: pending.version + 1 }, pending.version);

    world.clock.set('2022-12-03T15:01:00+05:30');
    expect((await sweep(world.deps)).redriven).toBe(0);
    world.clock.set('2022-12-03T15:02:30+05:30');
    expect((await sweep(world.deps)).redriven).toBe(1);
    expect((await world.deliverQueued()).map((r) => r.outcome)).toEqual(['applied']);
    expect(world.gateway.calls).toHaveLength(1);
  });

  test('nothing overdue, nothing sent; a scheduled release on time is left to its schedule', async () => {
    const { world } = await scheduledForNextDay();
    world.clock.set('2022-12-03T15:00:30+05:30');
    expect(await sweep(world.deps)).toMatchObject({ examined: 1, redriven: 0 });
    expect(world.gateway.calls).toHaveLength(0);
  });
});

describe('events before the payment', () => {
  test('are stored and applied when order.paid arrives, whatever the arrival order', async () => {
    const world = fakeWorld('2022-12-04T12:00:00+05:30');
    await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });
    await handleOrderEvent(world.deps, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-03T10:00:00+05:30' });
    await handleOrderEvent(world.deps, 'order.dispute_opened', { orderId: ORDER, openedAt: '2022-12-03T11:00:00+05:30' });
    expect(world.orders.releases.size).toBe(0);

    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('HELD');
  });
});
