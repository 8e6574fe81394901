/** The event path reads each thing once: settings, the order, its releases (one query), each vendor's policy. */
import { fakeWorld, type FakeWorld } from '../fakes/dependencies';
import { ORDER, paid, release, send, usePolicy } from './scenario';

/** Counts calls of the repositories' methods from now on (the world's ports are the objects the use cases get). */
function countReads(world: FakeWorld): Record<string, number> {
  const counts: Record<string, number> = {};
  const ports = { settings: world.settings, policies: world.policies, orders: world.orders } as unknown as Record<string, Record<string, unknown>>;
  for (const [port, target] of Object.entries(ports)) {
    for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(target))) {
      const original = target[method];
      if (method === 'constructor' || typeof original !== 'function') continue;
      target[method] = (...args: unknown[]) => {
        counts[`${port}.${method}`] = (counts[`${port}.${method}`] ?? 0) + 1;
        return (original as (...a: unknown[]) => unknown).apply(target, args);
      };
    }
  }
  return counts;
}

const vendors = [{ vendorId: 'vendor_a', amount: '100.00' }, { vendorId: 'vendor_b', amount: '200.00' }, { vendorId: 'vendor_c', amount: '300.00' }];

test('order.paid for three vendors, one sent at once: settings and order read once, releases of the order it created not read, policies once per vendor', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' }, 'vendor_a');
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' }, 'vendor_b');
  const counts = countReads(world);

  const result = await send(world, 'order.paid', paid(ORDER, vendors));

  // The answer is what the planner wrote; vendor_a's send happened after all three were written.
  expect(result.outcome === 'accepted' && result.releases.map((r) => r.state)).toEqual(['PLANNED', 'SCHEDULED', 'AT_MAX']);
  expect(world.gateway.calls.map((c) => c.vendorId)).toEqual(['vendor_a']);
  expect(counts).toEqual({
    'orders.getOrder': 1,
    'orders.recordEvent': 1,
    'settings.get': 1,
    'orders.createOrder': 1,
    'orders.listEvents': 1,
    'policies.current': 3,
    // Three planned releases, then vendor_a's move to APPLYING and its answer.
    'orders.putRelease': 5,
  });
  expect([...world.orders.releases.values()].map((r) => [r.vendorId, r.state])).toEqual([['vendor_a', 'APPLIED'], ['vendor_b', 'SCHEDULED'], ['vendor_c', 'AT_MAX']]);
});

test('a later event of a paid order reads the order, the settings and the releases once', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' }, 'vendor_a');
  await send(world, 'order.paid', paid(ORDER, vendors));
  const counts = countReads(world);

  await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T18:00:00+05:30', vendorIds: ['vendor_a'] });

  expect(counts).toMatchObject({ 'orders.getOrder': 1, 'settings.get': 1, 'orders.listReleases': 1, 'policies.current': 3 });
  expect(counts['orders.getRelease']).toBeUndefined();
  expect((await release(world, ORDER, 'vendor_a')).state).toBe('SCHEDULED');
});

test('order.paid that created the order still plans from a release a concurrent event wrote meanwhile: one send', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' }, 'vendor_a');
  // A delivery processed right after the order is created, before the payment's own planning: it writes the releases.
  const createOrder = world.orders.createOrder.bind(world.orders);
  world.orders.createOrder = async (order) => {
    const created = await createOrder(order);
    world.orders.createOrder = createOrder;
    await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T18:00:00+05:30' });
    return created;
  };

  const result = await send(world, 'order.paid', paid(ORDER, vendors));

  expect(result.outcome).toBe('accepted');
  // The delivery's planning sent vendor_a; the payment's write found it and did not send again.
  expect(world.gateway.calls.map((c) => c.vendorId)).toEqual(['vendor_a']);
  expect((await release(world, ORDER, 'vendor_a')).state).toBe('APPLIED');
});
