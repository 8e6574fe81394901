/**
 * Contract 6.4, exposure and its cap, over the use cases and in-memory fakes: an early release enters the vendor's
 * exposure until its risk window closes; one that would pass the policy's maxExposure waits (WAITING, exposure_cap,
 * with the figures) and goes when a risk window closes; two concurrent claims cannot both pass the cap.
 */
import { putPolicy } from '../../../functions/application/config/manage-policies';
import { updateSettings } from '../../../functions/application/config/manage-settings';
import { handleOrderEvent } from '../../../functions/application/releases/handle-order-event';
import { releaseManually } from '../../../functions/application/releases/manage-releases';
import { releaseVendor } from '../../../functions/application/releases/release-vendor';
import { releaseExposure } from '../../../functions/application/releases/exposure-cap';
import { fakeWorld, type FakeWorld } from '../../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send } from '../scenario';
import { at } from '../../times';

const ORDER_2 = 'order_1002';
const ORDER_3 = 'order_1003';

async function capped(world: FakeWorld, maxExposure: Record<string, string>) {
  await updateSettings(world.deps, { riskWindow: 'P1D', actor: 'finance@example.com', reason: 'one day of risk' });
  return putPolicy(world.deps, VENDOR, { scheduleOption: 1, release: { kind: 'immediate' }, maxExposure, actor: 'finance@example.com', reason: 'cap' });
}

describe('exposure of early releases and the maxExposure cap', () => {
  test('an early release is exposure until its risk window closes (after payment without a delivery)', async () => {
    const world = fakeWorld();
    await updateSettings(world.deps, { riskWindow: 'P1D', actor: 'finance@example.com', reason: 'one day of risk' });
    await putPolicy(world.deps, VENDOR, { scheduleOption: 1, release: { kind: 'immediate' }, actor: 'finance@example.com', reason: 'early' });
    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('APPLIED');
    const open = await world.exposure.open(VENDOR, at('2022-12-02T16:05:00+05:30'));
    // Payment 2 Dec 16:00 IST + P1D: the order can no longer come back from 3 Dec 16:00 IST.
    expect(open).toEqual([expect.objectContaining({ orderId: ORDER, currency: 'INR', amount: '1250.50', closesAt: '2022-12-03T16:00:00+05:30' })]);
    expect(await world.exposure.open(VENDOR, at('2022-12-03T16:00:00+05:30'))).toEqual([]);
  });

  test('a delivery after the early release moves its risk close to riskWindow after the delivery', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '5000.00' });
    await send(world, 'order.paid', paid());
    world.clock.set('2022-12-02T20:00:00+05:30');
    await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T19:30:00+05:30' });
    expect((await world.exposure.open(VENDOR, at('2022-12-02T20:00:00+05:30'))).map((e) => [e.orderId, e.closesAt])).toEqual([[ORDER, '2022-12-03T19:30:00+05:30']]);
    // Still exposure after the payment's day has passed, gone after the delivery's.
    expect(await world.exposure.open(VENDOR, at('2022-12-03T17:00:00+05:30'))).toHaveLength(1);
    expect(await world.exposure.open(VENDOR, at('2022-12-03T19:30:00+05:30'))).toHaveLength(0);
  });

  test('a release at max eligibility is no exposure', async () => {
    const world = fakeWorld();
    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('AT_MAX');
    expect(await world.exposure.open(VENDOR, at('2022-12-02T16:05:00+05:30'))).toEqual([]);
  });

  test('the next early release waits under the cap with the figures, and goes when the risk window closes', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '2000.00' });
    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('APPLIED');

    world.clock.set('2022-12-02T20:00:00+05:30');
    await send(world, 'order.paid', { ...paid(ORDER_2), transactionTime: '2022-12-02T20:00:00+05:30' });
    const waiting = await release(world, ORDER_2);
    expect(waiting).toMatchObject({ state: 'WAITING', waitReason: 'exposure_cap', sendAt: '2022-12-03T16:00:00+05:30' });
    expect(waiting.reason).toBe('exposure_cap: exposure now 1250.50 INR plus this release\'s 1250.50 INR would pass the policy\'s maxExposure 2000.00 INR; it fits when a risk window closes at 2022-12-03T16:00:00+05:30');
    expect(world.gateway.calls.map((c) => c.orderId)).toEqual([ORDER]);

    // The first order's risk window closes: the waiting release is claimed again, fits, and goes.
    world.clock.set('2022-12-03T16:00:00+05:30');
    await world.fireDueSchedules();
    expect(await release(world, ORDER_2)).toMatchObject({ state: 'APPLIED', waitReason: null });
    expect(world.gateway.calls.map((c) => c.orderId)).toEqual([ORDER, ORDER_2]);
    expect((await world.exposure.open(VENDOR, at('2022-12-03T16:00:00+05:30'))).map((e) => e.orderId)).toEqual([ORDER_2]);
  });

  test('a release alone over the cap waits until max eligibility, where the gateway settles it anyway', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '1000.00' });
    await send(world, 'order.paid', paid());
    const waiting = await release(world);
    expect(waiting).toMatchObject({ state: 'WAITING', waitReason: 'exposure_cap', sendAt: '2022-12-17T16:00:00+05:30' });
    expect(waiting.reason).toMatch(/this release alone is over the cap: it goes at max eligibility$/);
    world.clock.set('2022-12-17T16:00:00+05:30');
    await world.fireDueSchedules();
    expect(await release(world)).toMatchObject({ state: 'AT_MAX' });
    expect(world.gateway.calls).toEqual([]);
  });

  test('a cap below today\'s exposure stops new early releases and says by how much it is exceeded', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '5000.00' });
    await send(world, 'order.paid', paid());
    await capped(world, { INR: '1000.00' });
    await send(world, 'order.paid', paid(ORDER_2, [{ vendorId: VENDOR, amount: '10.00' }]));
    expect((await release(world, ORDER_2)).reason).toMatch(/^exposure_cap: exposure now 1250.50 INR plus this release's 10.00 INR would pass the policy's maxExposure 1000.00 INR; the cap is already exceeded by 250.50 INR/);
  });

  test('a manual early release is held to the cap too', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '1000.00' });
    await send(world, 'order.paid', paid(ORDER, [{ vendorId: VENDOR, amount: '900.00' }]));
    await putPolicy(world.deps, VENDOR, { scheduleOption: 1, release: { kind: 'at_max' }, maxExposure: { INR: '1000.00' }, actor: 'finance@example.com', reason: 'no more early' });
    await send(world, 'order.paid', paid(ORDER_2, [{ vendorId: VENDOR, amount: '200.00' }]));
    expect((await release(world, ORDER_2)).state).toBe('AT_MAX');
    await releaseManually(world.deps, ORDER_2, VENDOR, { actor: 'finance@example.com', reason: 'vendor in hardship' });
    await world.deliverQueued();
    expect(await release(world, ORDER_2)).toMatchObject({ state: 'WAITING', waitReason: 'exposure_cap' });
    expect(world.gateway.calls.map((c) => c.orderId)).toEqual([ORDER]);
  });

  test('a PUT of the policy without maxExposure removes the cap (the PUT is the whole policy)', async () => {
    const world = fakeWorld();
    expect((await capped(world, { INR: '1000.00' })).maxExposure).toEqual({ INR: '1000.00' });
    await send(world, 'order.paid', paid());
    expect(await release(world)).toMatchObject({ state: 'WAITING', waitReason: 'exposure_cap' });
    const uncapped = await putPolicy(world.deps, VENDOR, { scheduleOption: 1, release: { kind: 'immediate' }, actor: 'finance@example.com', reason: 'no cap' });
    expect(uncapped).not.toHaveProperty('maxExposure');
    expect(await world.policies.current(VENDOR)).not.toHaveProperty('maxExposure');
    // The next early release of the vendor goes at once: nothing caps it any more.
    await send(world, 'order.paid', paid(ORDER_2));
    expect((await release(world, ORDER_2)).state).toBe('APPLIED');
    expect(world.gateway.calls.map((c) => c.orderId)).toEqual([ORDER_2]);
  });

  test('a send the gateway refuses for good leaves the exposure', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '5000.00' });
    world.gateway.answerNext({ kind: 'response', httpStatus: 400, status: 'ERROR', subCode: '400', message: 'Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date' });
    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('FAILED');
    expect(await world.exposure.open(VENDOR, at('2022-12-02T16:05:00+05:30'))).toEqual([]);
  });

  test('two claims at once cannot both pass the cap: the loser of the conditional write reads again and waits', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '2000.00' });
    // Both orders planned (due now) before either is claimed.
    await handleOrderEvent(world.deps, 'order.paid', paid(), { id: null, source: 'marketplace.orders' });
    await handleOrderEvent(world.deps, 'order.paid', paid(ORDER_3), { id: null, source: 'marketplace.orders' });
    const commands = world.queue.take();
    expect(commands).toHaveLength(2);
    await Promise.all(commands.map((c) => releaseVendor(world.deps, c)));
    const states = [(await release(world)).state, (await release(world, ORDER_3)).state].sort();
    expect(states).toEqual(['APPLIED', 'WAITING']);
    expect(world.gateway.calls).toHaveLength(1);
  });
  test('a delivery moves its own entry by key: it never reads the vendor\'s other open entries, however many', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '1000000.00' });
    for (let n = 0; n < 40; n += 1) await send(world, 'order.paid', paid(`order_${2000 + n}`));
    await send(world, 'order.paid', paid());
    expect(await world.exposure.open(VENDOR, at('2022-12-02T16:05:00+05:30'))).toHaveLength(41);
    const reads = jest.spyOn(world.exposure, 'open');
    world.clock.set('2022-12-02T20:00:00+05:30');
    await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T19:30:00+05:30' });
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    const mine = (await world.exposure.open(VENDOR, at('2022-12-02T20:00:00+05:30'))).filter((e) => e.orderId === ORDER);
    expect(mine.map((e) => e.closesAt)).toEqual(['2022-12-03T19:30:00+05:30']);
    // The same delivery again finds the entry where it moved it, and changes nothing.
    await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T19:30:00+05:30' });
    expect((await world.exposure.open(VENDOR, at('2022-12-02T20:00:00+05:30'))).filter((e) => e.orderId === ORDER).map((e) => e.closesAt)).toEqual(['2022-12-03T19:30:00+05:30']);
  });

  test('a release that ends without its money leaving removes its entry wherever a delivery moved it (read from the vendor\'s entries when the key cannot tell)', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '5000.00' });
    await send(world, 'order.paid', paid());
    const sent = await release(world);
    expect(sent.exposure).toMatchObject({ closesAt: '2022-12-03T16:00:00+05:30' });
    world.clock.set('2022-12-02T20:00:00+05:30');
    await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T19:30:00+05:30' });
    // The entered key holds the removed entry; the money is at the delivery's close, which releaseExposure cannot know.
    await releaseExposure(world.deps, { ...(await release(world)), state: 'FAILED' });
    expect(await world.exposure.open(VENDOR, at('2022-12-02T20:00:00+05:30'))).toEqual([]);
  });

  test('a release that ends without its money leaving, never delivered, removes its entry by key', async () => {
    const world = fakeWorld();
    await capped(world, { INR: '5000.00' });
    await send(world, 'order.paid', paid(`order_2001`));
    await send(world, 'order.paid', paid());
    const reads = jest.spyOn(world.exposure, 'open');
    await releaseExposure(world.deps, { ...(await release(world)), state: 'FAILED' });
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    expect((await world.exposure.open(VENDOR, at('2022-12-02T16:05:00+05:30'))).map((e) => e.orderId)).toEqual(['order_2001']);
  });
});
