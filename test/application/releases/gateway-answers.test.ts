/** What the release use case does with each kind of gateway answer: retries rescheduled, drift reported, failures final. */
import type { GatewayAnswer } from '../../../functions/domain/types';
import { fakeWorld } from '../../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from '../scenario';

const answer = (message: string): GatewayAnswer => ({ kind: 'response', httpStatus: 400, status: 'ERROR', subCode: '400', message });

async function immediateOrder(first: GatewayAnswer) {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  world.gateway.answerNext(first);
  await send(world, 'order.paid', paid());
  return world;
}

describe('gateway answers', () => {
  test('"settlement in progress" is retried: rescheduled with a new key and a backoff, then applied', async () => {
    const world = await immediateOrder(answer('Settlement for the order is in progress'));

    const retrying = await release(world);
    expect(retrying.state).toBe('SCHEDULED');
    expect(retrying.attempts).toHaveLength(1);
    expect(retrying.attempts[0]).toMatchObject({ request: '2022-12-02 16:06:00', status: 'ERROR', subCode: '400' });
    expect(world.scheduler.pending.has(retrying.releaseKey!)).toBe(true);
    const retryAt = world.scheduler.created[0].at;
    expect(+retryAt).toBeGreaterThan(world.clock.now().ms);
    expect(world.publisher.events).toEqual([]);

    world.clock.set(retryAt.toISO()!);
    const fired = await world.fireDueSchedules();

    expect(fired.map((f) => f.outcome)).toEqual(['applied']);
    expect(world.gateway.calls).toHaveLength(2);
    const applied = await release(world);
    expect(applied.state).toBe('APPLIED');
    expect(applied.attempts).toHaveLength(2);
  });

  test('a 5xx is retried too: at once through a new claim that reads the recon (it holds nothing), with the backoff after three', async () => {
    const unavailable: GatewayAnswer = { kind: 'response', httpStatus: 503, status: 'ERROR', subCode: '503', message: 'unavailable' };
    const once = await immediateOrder(unavailable);
    expect(await release(once)).toMatchObject({ state: 'APPLIED', sends: 2 });
    expect(once.gatewayOrders.recons).toHaveLength(1);

    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'immediate' });
    world.gateway.answerNext(unavailable, unavailable, unavailable);
    await send(world, 'order.paid', paid());
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', sends: 3, reason: expect.stringMatching(/^retrying: gateway error \(HTTP 503\): unavailable \(it may have been applied: the gateway's order recon is read before anything is sent again\); send 4 at /) });
    expect(world.gateway.calls).toHaveLength(3);
    expect(world.gatewayOrders.recons).toHaveLength(2);
  });

  test('config drift ("beyond max_eligibity_date"): FAILED, config.drift_detected and vendor.release_failed emitted', async () => {
    const message = 'Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date';
    const world = await immediateOrder(answer(message));

    expect(await release(world)).toMatchObject({ state: 'FAILED', releaseKey: null, sendAt: null });
    expect(world.publisher.events.map((e) => e.type).sort()).toEqual(['config.drift_detected', 'vendor.release_failed']);
    expect(world.publisher.events.find((e) => e.type === 'config.drift_detected')!.detail).toMatchObject({ orderId: ORDER, vendorId: VENDOR });
    expect(world.scheduler.created).toHaveLength(0);
  });

  test('a terminal refusal ("Vendor ID does not exist") is FAILED with the reason and not retried', async () => {
    const world = await immediateOrder(answer('Vendor ID does not exist'));
    const failed = await release(world);
    expect(failed.state).toBe('FAILED');
    expect(failed.reason).toMatch(/Vendor ID does not exist/);
    expect(world.publisher.events).toEqual([{ type: 'vendor.release_failed', detail: { orderId: ORDER, vendorId: VENDOR, reason: failed.reason, retryable: false } }]);
  });
});
