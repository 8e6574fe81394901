/** The Lambda entry points around the use cases: envelopes in, answers out, and what they must not throw. */
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { lazyDependencies } from '../../functions/handlers/dependencies';
import { makeOrderEventsHandler } from '../../functions/handlers/order-events';
import { makeReleaseHandler } from '../../functions/handlers/release';
import { makeSweepHandler } from '../../functions/handlers/sweep';
import { fakeWorld } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, usePolicy } from './scenario';

const context = {} as Context;
const envelope = (detailType: string, detail: unknown): EventBridgeEvent<string, unknown> => ({
  version: '0', id: 'evt-1', 'detail-type': detailType, source: 'marketplace.orders', account: '000000000000',
  time: '2022-12-02T10:30:00Z', region: 'ap-south-1', resources: [], detail,
});

test('order-events: a valid event is applied; a malformed one is answered as rejected, not thrown (no EventBridge retry)', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
  const handler = makeOrderEventsHandler(() => world.deps);

  expect(await handler(envelope('order.paid', paid()), context)).toEqual({
    outcome: 'accepted', orderId: ORDER, duplicate: false, states: { [VENDOR]: 'SCHEDULED' },
  });
  const rejected = await handler(envelope('order.paid', { orderId: ORDER }), context);
  expect(rejected).toMatchObject({ outcome: 'rejected', id: 'evt-1' });
  expect(world.rejected.items[0]).toMatchObject({ id: 'evt-1', source: 'marketplace.orders' });
});

test('release: a Scheduler input sends the release; something else is answered, not thrown', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  await makeOrderEventsHandler(() => world.deps)(envelope('order.paid', paid()), context);
  const handler = makeReleaseHandler(() => world.deps);
  world.clock.set('2022-12-03T15:00:00+05:30');

  expect(await handler({ orderId: ORDER, vendorId: VENDOR }, context)).toMatchObject({ outcome: 'skipped' });
  expect(world.logger.lines.some((l) => l.level === 'error')).toBe(true);
  expect((await handler(world.scheduler.created[0].command, context)).outcome).toBe('applied');
  expect((await release(world)).state).toBe('APPLIED');
});

test('sweep: runs the sweep and answers its counts', async () => {
  const world = fakeWorld();
  expect(await makeSweepHandler(() => world.deps)({}, context)).toEqual({ examined: 0, redriven: 0, outcomes: {}, errors: 0 });
});

test('dependencies are built once; a failed build is retried on the next invocation', async () => {
  let builds = 0;
  const world = fakeWorld();
  const deps = lazyDependencies(() => {
    builds += 1;
    if (builds === 1) throw new Error('HOLDBACK_ORDERS_TABLE is not set');
    return world.deps;
  });
  await expect(deps()).rejects.toThrow(/not set/);
  expect(await deps()).toBe(world.deps);
  expect(await deps()).toBe(world.deps);
  expect(builds).toBe(2);
});
