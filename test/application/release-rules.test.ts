/** Each release rule of contract section 4, end to end through the use cases with in-memory ports. */
import { releaseVendor } from '../../functions/application/releases/release-vendor';
import { fakeWorld } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';

describe('release rules', () => {
  test('immediate: applied at once with the next gateway minute, since the target (the payment) has passed', async () => {
    const world = fakeWorld('2022-12-02T16:05:20+05:30');
    await usePolicy(world, { kind: 'immediate' });

    const result = await send(world, 'order.paid', paid());

    expect(result.outcome).toBe('accepted');
    expect(world.gateway.calls).toEqual([expect.objectContaining({ orderId: ORDER, vendorId: VENDOR, eligibility: '2022-12-02 16:06:00' })]);
    const r = await release(world);
    expect(r).toMatchObject({
      state: 'APPLIED',
      policyVersion: 1,
      appliedEligibility: '2022-12-02T16:06:00+05:30',
      // Option 1 is T+1 at 11:00; 3 Dec 2022 is the first Saturday of the month, a bank working day.
      predictedSettlement: '2022-12-03T11:00:00+05:30',
      sendAt: null,
      releaseKey: null,
    });
    expect(r.attempts).toHaveLength(1);
    expect(world.publisher.events).toEqual([{
      type: 'vendor.release_applied',
      detail: { orderId: ORDER, vendorId: VENDOR, eligibility: '2022-12-02T16:06:00+05:30', predictedSettlement: '2022-12-03T11:00:00+05:30' },
    }]);
    expect(world.scheduler.created).toHaveLength(0);
  });

  test('after_payment P3D: SCHEDULED one hour (releaseLead) before the target, then the schedule fires and it is APPLIED', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });

    await send(world, 'order.paid', paid());

    const scheduled = await release(world);
    expect(scheduled).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T16:00:00+05:30', maxEligibility: '2022-12-17T16:00:00+05:30' });
    expect(+new Date(String(scheduled.sendAt!))).toBe(+new Date('2022-12-05T15:00:00+05:30'));
    expect(world.scheduler.created).toHaveLength(1);
    expect(world.scheduler.created[0].command).toEqual({ orderId: ORDER, vendorId: VENDOR, releaseKey: scheduled.releaseKey });
    expect(+world.scheduler.created[0].at).toBe(+new Date('2022-12-05T15:00:00+05:30'));
    expect(world.gateway.calls).toHaveLength(0);

    world.clock.set('2022-12-05T15:00:00+05:30');
    const fired = await world.fireDueSchedules();

    expect(fired.map((f) => f.outcome)).toEqual(['applied']);
    expect(world.gateway.calls.map((c) => c.eligibility)).toEqual(['2022-12-05 16:00:00']);
    expect(await release(world)).toMatchObject({
      state: 'APPLIED', appliedEligibility: '2022-12-05T16:00:00+05:30', predictedSettlement: '2022-12-06T11:00:00+05:30',
    });
  });

  test('after_delivery P2D with the delivery arriving before the payment: planned from the delivery once paid', async () => {
    const world = fakeWorld('2022-12-03T10:30:00+05:30');
    await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });

    const early = await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-03T10:00:00+05:30' });
    expect(early).toMatchObject({ outcome: 'accepted', releases: [] });
    expect(await world.orders.getRelease(ORDER, VENDOR)).toBeNull();

    await send(world, 'order.paid', paid());

    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-05T10:00:00+05:30' });
    expect(+world.scheduler.created[0].at).toBe(+new Date('2022-12-05T09:00:00+05:30'));
  });

  test('after_delivery waits for the delivery (WAITING), then schedules', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });

    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('WAITING');
    expect(world.scheduler.created).toHaveLength(0);

    world.clock.set('2022-12-04T12:00:00+05:30');
    await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-04T11:00:00+05:30' });
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-06T11:00:00+05:30' });
  });

  test('a dispute holds a scheduled release (schedule cancelled); merchant_won releases it again', async () => {
    const world = fakeWorld('2022-12-03T12:00:00+05:30');
    await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });
    await send(world, 'order.paid', paid());
    await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-03T10:00:00+05:30' });
    const firstKey = (await release(world)).releaseKey!;

    await send(world, 'order.dispute_opened', { orderId: ORDER, openedAt: '2022-12-03T13:00:00+05:30' });
    expect(await release(world)).toMatchObject({ state: 'HELD', releaseKey: null });
    expect(world.scheduler.cancelled).toEqual([firstKey]);

    world.clock.set('2022-12-04T09:00:00+05:30');
    await send(world, 'order.dispute_closed', { orderId: ORDER, closedAt: '2022-12-04T08:00:00+05:30', resolution: 'merchant_won' });
    const resumed = await release(world);
    expect(resumed.state).toBe('SCHEDULED');
    expect(resumed.releaseKey).not.toBe(firstKey);
    expect(world.scheduler.pending.has(resumed.releaseKey!)).toBe(true);

    // The old schedule, had it fired anyway, finds a key that is no longer pending.
    world.clock.set('2022-12-05T09:00:00+05:30');
    expect(await releaseVendor(world.deps, { orderId: ORDER, vendorId: VENDOR, releaseKey: firstKey })).toMatchObject({ outcome: 'skipped' });
    const fired = await world.fireDueSchedules();
    expect(fired.map((f) => f.outcome)).toEqual(['applied']);
    expect(world.gateway.calls).toHaveLength(1);
    expect((await release(world)).appliedEligibility).toEqual('2022-12-05T10:00:00+05:30');
  });

  test('a dispute closed customer_won leaves the gateway default: AT_MAX, nothing sent', async () => {
    const world = fakeWorld('2022-12-03T12:00:00+05:30');
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', paid());
    await send(world, 'order.dispute_opened', { orderId: ORDER, openedAt: '2022-12-03T11:00:00+05:30' });
    await send(world, 'order.dispute_closed', { orderId: ORDER, closedAt: '2022-12-03T11:30:00+05:30', resolution: 'customer_won' });

    expect(await release(world)).toMatchObject({ state: 'AT_MAX', releaseKey: null });
    world.clock.set('2022-12-06T00:00:00+05:30');
    expect(await world.fireDueSchedules()).toEqual([]);
    expect(world.gateway.calls).toHaveLength(0);
  });

  test('a cancellation drops a scheduled release and cancels its schedule', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', paid());
    const key = (await release(world)).releaseKey!;

    await send(world, 'order.cancelled', { orderId: ORDER, cancelledAt: '2022-12-03T09:00:00+05:30' });

    expect((await release(world)).state).toBe('CANCELLED');
    expect(world.scheduler.cancelled).toEqual([key]);
    expect(world.scheduler.pending.size).toBe(0);
  });

  test('a vendor without a policy stays at the gateway default (AT_MAX, policy version 0)', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await send(world, 'order.paid', paid());
    expect(await release(world)).toMatchObject({ state: 'AT_MAX', policyVersion: 0, targetEligibility: '2022-12-17T16:00:00+05:30' });
    expect(world.gateway.calls).toHaveLength(0);
  });

  test('vendors of one order get their own rules', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'immediate' }, 'vendor_a');
    await usePolicy(world, { kind: 'after_payment', delay: 'P1D' }, 'vendor_b');
    await send(world, 'order.paid', paid(ORDER, [{ vendorId: 'vendor_a', amount: '100' }, { vendorId: 'vendor_b', amount: '200.5' }]));

    expect((await release(world, ORDER, 'vendor_a')).state).toBe('APPLIED');
    expect(await release(world, ORDER, 'vendor_b')).toMatchObject({ state: 'SCHEDULED', amount: '200.50', targetEligibility: '2022-12-03T16:00:00+05:30' });
  });
});
