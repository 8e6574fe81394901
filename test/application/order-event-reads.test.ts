/**
 * The event path's round trips, counted: one batch read of the settings, policies and holds, one read of the whole
 * order, the order and event writes, and one write per release change; a release due at once is enqueued, and the
 * release function claims it, reads the order and the hold after its claim, and records the answer.
 */
import { handleOrderEvent } from '../../functions/application/releases/handle-order-event';
import { fakeWorld, type FakeWorld } from '../fakes/dependencies';
import { ORDER, paid, release, send, usePolicy } from './scenario';
import { at } from '../times';

/** Counts calls of the repositories' methods from now on (the world's ports are the objects the use cases get). */
function countReads(world: FakeWorld): Record<string, number> {
  const counts: Record<string, number> = {};
  const ports = { settings: world.settings, policies: world.policies, config: world.deps.config, orders: world.orders } as unknown as Record<string, Record<string, unknown>>;
  for (const [port, target] of Object.entries(ports)) {
    for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(target))) {
      const original = target[method];
      if (method === 'constructor' || method === 'inForce' || typeof original !== 'function') continue;
      target[method] = (...args: unknown[]) => {
        counts[`${port}.${method}`] = (counts[`${port}.${method}`] ?? 0) + 1;
        return (original as (...a: unknown[]) => unknown).apply(target, args);
      };
    }
  }
  return counts;
}

const vendors = [{ vendorId: 'vendor_a', amount: '100.00' }, { vendorId: 'vendor_b', amount: '200.00' }, { vendorId: 'vendor_c', amount: '300.00' }];

test('order.paid of a new order, three vendors, one due at once: one config read, no order read, one write per release change', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' }, 'vendor_a');
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' }, 'vendor_b');
  const counts = countReads(world);
  const appends: (readonly string[] | undefined)[] = [];
  const append = world.deps.audit.append.bind(world.deps.audit);
  world.deps.audit.append = (entries, options) => { appends.push(options?.newOrders); return append(entries, options); };

  const result = await handleOrderEvent(world.deps, 'order.paid', paid(ORDER, vendors));
  // The order is new, so is its audit stream: the log is told so, and does not read the stream's head.
  expect(appends).toEqual([[ORDER]]);

  // The payment sends nothing itself: vendor_a is PLANNED and its command is on the release queue.
  expect(result.outcome === 'accepted' && result.releases.map((r) => r.state)).toEqual(['PLANNED', 'SCHEDULED', 'AT_MAX']);
  expect(world.gateway.calls).toEqual([]);
  expect(world.queue.waiting.map((c) => c.vendorId)).toEqual(['vendor_a']);
  expect(counts).toEqual({
    'config.forPlanning': 1,
    // The payment is kept as the order record (no event item); nothing came before it, so there is nothing to read.
    'orders.createOrder': 1,
    'orders.putRelease': 3,
  });

  for (const key of Object.keys(counts)) delete counts[key];
  await world.deliverQueued();
  // The release function: its release, the claim, the order and the hold read AFTER the claim, the attempt recorded
  // before the PUT leaves, the answer.
  expect(counts).toEqual({ 'orders.getRelease': 1, 'orders.putRelease': 3, 'orders.loadOrder': 1, 'config.forPlanning': 1 });
  // The release function's appends name no new stream: the order's has records.
  expect(appends.slice(1).every((newOrders) => newOrders === undefined)).toBe(true);
  expect(appends.length).toBeGreaterThan(1);
  expect(world.gateway.calls.map((c) => c.vendorId)).toEqual(['vendor_a']);
  expect([...world.orders.releases.values()].map((r) => [r.vendorId, r.state])).toEqual([['vendor_a', 'APPLIED'], ['vendor_b', 'SCHEDULED'], ['vendor_c', 'AT_MAX']]);
});

test('a later event of a paid order reads the order once, and the config (policies and holds) of its vendors in one batch', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' }, 'vendor_a');
  await send(world, 'order.paid', paid(ORDER, vendors));
  const counts = countReads(world);
  const configAsked: string[][] = [];
  const forPlanning = world.deps.config.forPlanning.bind(world.deps.config);
  world.deps.config.forPlanning = (vendorIds) => { configAsked.push([...vendorIds]); return forPlanning(vendorIds); };

  await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T18:00:00+05:30', vendorIds: ['vendor_a'] });

  // The paid order refuses the mark (a failed conditional write) before the event is stored. After its write the order
  // is read once more (write, then read), so that an event stored meanwhile is never planned away.
  expect(counts).toEqual({
    'orders.markAwaitingPayment': 1, 'orders.recordEvent': 1, 'orders.loadOrder': 2, 'config.forPlanning': 1, 'orders.putRelease': 1,
  });
  // Every vendor: a vendor's hold applies to releases planned already.
  expect(configAsked).toEqual([['vendor_a', 'vendor_b', 'vendor_c']]);
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

test('an event whose write loses to a concurrent event plans again from the events stored meanwhile: a dispute is not lost', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });
  await send(world, 'order.paid', paid());
  expect((await release(world)).state).toBe('WAITING');
  // The delivery has read the order (no dispute yet); before its write lands, a dispute is stored and planned in full.
  world.orders.beforePut = async () => {
    await send(world, 'order.dispute_opened', { orderId: ORDER, openedAt: '2022-12-02T18:30:00+05:30' });
  };

  await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T18:00:00+05:30' });

  // The delivery's write lost to the dispute's; planned again from both events, the release stays held.
  expect((await release(world)).state).toBe('HELD');
  expect([...world.scheduler.pending.keys()]).toEqual([]);
  expect(world.gateway.calls).toEqual([]);
});

test('a delivery before the payment marks the order; the payment reads it', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });
  const early = await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T18:00:00+05:30' });
  expect(early).toMatchObject({ outcome: 'accepted', releases: [] });
  expect([...world.orders.awaiting]).toEqual([ORDER]);
  const counts = countReads(world);

  await send(world, 'order.paid', paid());

  // Read once to plan, once after the write (write, then read).
  expect(counts).toMatchObject({ 'orders.createOrder': 1, 'orders.loadOrder': 2 });
  expect(await release(world)).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-04T18:00:00+05:30' });
});

test('a payment that lands between a delivery\'s mark and its storing: the delivery plans the order itself', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });
  // The payment finds the order awaited, reads it before the delivery is stored, and plans without it.
  const mark = world.orders.markAwaitingPayment.bind(world.orders);
  world.orders.markAwaitingPayment = async (orderId) => {
    world.orders.markAwaitingPayment = mark;
    const marked = await mark(orderId);
    await send(world, 'order.paid', paid());
    expect((await release(world)).state).toBe('WAITING');
    return marked;
  };

  const delivered = await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T18:00:00+05:30' });

  expect(delivered.outcome === 'accepted' && delivered.releases.map((r) => r.state)).toEqual(['SCHEDULED']);
  expect(await release(world)).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-04T18:00:00+05:30' });
  expect(world.orders.awaiting.size).toBe(0);
});

test('a delivery whose handler died right after storing it is still read by the payment (the mark came first)', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_delivery', delay: 'P2D' });
  const recordEvent = world.orders.recordEvent.bind(world.orders);
  world.orders.recordEvent = async (event) => {
    world.orders.recordEvent = recordEvent;
    await recordEvent(event);
    throw new Error('the container died');
  };
  await expect(send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T18:00:00+05:30' })).rejects.toThrow('the container died');
  expect(world.orders.events.size).toBe(1);

  // No retry of the delivery yet: the payment alone must plan from it.
  await send(world, 'order.paid', paid());

  expect(await release(world)).toMatchObject({ state: 'SCHEDULED', targetEligibility: '2022-12-04T18:00:00+05:30' });
});

test('after a lost write, the vendors planned next use the events read again too: a dispute stored meanwhile holds them', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  const two = vendors.slice(0, 2);
  for (const { vendorId } of two) await usePolicy(world, { kind: 'after_delivery', delay: 'PT1M' }, vendorId);
  await send(world, 'order.paid', paid(ORDER, two));
  // The delivery has read the order (no dispute). Before its first write lands, a dispute of the whole order is stored
  // and its handler has written vendor_a's hold, not yet vendor_b's (as a concurrent handler half-way through would).
  world.orders.beforePut = async () => {
    await world.orders.recordEvent({
      orderId: ORDER,
      key: 'dispute',
      event: { type: 'order.dispute_opened', orderId: ORDER, openedAt: at('2022-12-02T16:04:00+05:30') },
      receivedAt: at('2022-12-02T16:05:00+05:30'),
    });
    const a = await release(world, ORDER, 'vendor_a');
    await world.orders.putRelease({ ...a, state: 'HELD', reason: 'dispute open', version: a.version + 1 }, a.version);
  };

  await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T16:03:00+05:30' });

  // vendor_b was due at once from the delivery alone; planned from the events read after the lost write, it is held.
  expect((await release(world, ORDER, 'vendor_b')).state).toBe('HELD');
  expect(world.gateway.calls).toEqual([]);
});
