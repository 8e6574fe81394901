/** A malformed event is listed with reasons naming its fields, and nothing of it is written. */
import { listRejectedEvents } from '../../../functions/application/reads/list-rejected-events';
import { fakeWorld } from '../../fakes/dependencies';
import { ROUTES } from '../../../functions/handlers/routes';
import type { ApiEvent } from '../../../functions/handlers/http';

const routeOf = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.path === path)!;
import { ORDER, send } from '../scenario';

describe('malformed events', () => {
  test('are rejected with reasons naming every bad field, and never half-applied', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    const result = await send(world, 'order.paid', {
      orderId: ORDER,
      transactionTime: '2022-12-02 16:00:00',
      vendors: [{ vendorId: 'v', amount: '10.005' }],
    });

    expect(result.outcome).toBe('rejected');
    const { rejectedEvents: [listed], count } = await listRejectedEvents(world.deps);
    expect(count).toBe(1);
    expect(listed).toMatchObject({ source: 'marketplace.orders', detailType: 'order.paid' });
    expect(listed.reasons).toEqual(expect.arrayContaining([
      expect.stringMatching(/^detail\.transactionTime: .*; send an ISO 8601 time with an offset/),
      expect.stringMatching(/^detail\.vendors\[0\]\.vendorId: /),
      expect.stringMatching(/^detail\.vendors\[0\]\.amount: has 3 decimals/),
    ]));
    expect(world.orders.events.size).toBe(0);
    expect(world.orders.orders.size).toBe(0);
    expect(world.orders.releases.size).toBe(0);
  });

  test('an unknown detail-type is rejected, and the same one redelivered is listed once', async () => {
    const world = fakeWorld();
    await send(world, 'order.shipped', { orderId: ORDER });
    await send(world, 'order.shipped', { orderId: ORDER });
    const { rejectedEvents: listed, count, nextCursor } = await listRejectedEvents(world.deps);
    expect(listed).toHaveLength(1);
    expect(count).toBe(1);
    expect(nextCursor).toBeNull();
    expect(listed[0].reasons[0]).toMatch(/^detail-type: is "order.shipped", not an order event; send one of order.paid/);
  });

  test('the list limit and cursor are validated by the route\'s schema', async () => {
    const world = fakeWorld();
    const list = (query: Record<string, string>) => routeOf('GET', '/rejected-events').run({ queryStringParameters: query } as unknown as ApiEvent, async () => world.deps);
    await expect(list({ limit: '0' })).rejects.toThrow(/^limit: /);
    await expect(list({ limit: '501' })).rejects.toThrow(/^limit: .*from 1 to 500/);
    await expect(list({ cursor: 'not-a-cursor' })).rejects.toThrow(/^cursor: is not a cursor of this list/);
  });
});
