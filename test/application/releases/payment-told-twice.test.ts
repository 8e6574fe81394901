/**
 * The payment told twice (issue 9.6): the gateway's payment webhook (turned into order.paid by Holdback's receiver) and
 * the marketplace's order.paid describe one payment in two clocks. One order is kept, its window counts from the
 * gateway's payment time, and only a real conflict is refused, naming the field that differs.
 */
import { fakeWorld } from '../../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from '../scenario';

const gatewayPaid = (transactionTime: string) => ({ ...paid(), transactionTime, transactionTimeSource: 'gateway' });

describe('the same payment from the gateway and the marketplace', () => {
  test('marketplace first, gateway 250 ms later: one order, the gateway\'s time trusted, nothing rejected', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
    await send(world, 'order.paid', { ...paid(), transactionTime: '2022-12-02T16:00:00.250+05:30' });
    expect(await world.orders.getOrder(ORDER)).toMatchObject({ transactionTimeSource: 'marketplace' });

    const second = await send(world, 'order.paid', gatewayPaid('2022-12-02T16:00:00+05:30'));

    expect(second).toMatchObject({ outcome: 'accepted', duplicate: true });
    expect(world.rejected.items).toEqual([]);
    expect(await world.orders.getOrder(ORDER)).toMatchObject({
      transactionTime: '2022-12-02T16:00:00+05:30', maxEligibility: '2022-12-17T16:00:00+05:30', transactionTimeSource: 'gateway',
    });
    // The unsent release follows the gateway's window.
    expect(await release(world)).toMatchObject({ state: 'SCHEDULED', transactionTime: '2022-12-02T16:00:00+05:30', targetEligibility: '2022-12-05T16:00:00+05:30' });
  });

  test('gateway first: the marketplace\'s later event with its own milliseconds is the same payment; the gateway\'s time stays', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await send(world, 'order.paid', gatewayPaid('2022-12-02T16:00:00+05:30'));
    const again = await send(world, 'order.paid', { ...paid(), transactionTime: '2022-12-02T16:00:00.731+05:30' });
    expect(again).toMatchObject({ outcome: 'accepted', duplicate: true });
    expect(world.rejected.items).toEqual([]);
    expect(await world.orders.getOrder(ORDER)).toMatchObject({ transactionTime: '2022-12-02T16:00:00+05:30', transactionTimeSource: 'gateway' });
  });

  test('a real conflict is refused naming the differing field: an amount, a vendor, the currency, or the time from one source', async () => {
    const world = fakeWorld('2022-12-02T16:05:00+05:30');
    await send(world, 'order.paid', gatewayPaid('2022-12-02T16:00:00+05:30'));
    const reasons = async (detail: object) => {
      const result = await send(world, 'order.paid', detail);
      return result.outcome === 'rejected' ? result.rejected.reasons[0] : 'accepted';
    };
    expect(await reasons({ ...paid(), vendors: [{ vendorId: VENDOR, amount: '1250.60' }] })).toMatch(/^detail\.vendors\[0\]\.amount: is 1250\.60 for vendor_a, not 1250\.50: order_1001 was already paid at 2022-12-02T16:00:00\+05:30 \(told by the gateway\)/);
    expect(await reasons({ ...paid(), vendors: [{ vendorId: 'vendor_b', amount: '1250.50' }] })).toMatch(/^detail\.vendors\[0\]\.vendorId: names vendor_b, not a vendor of the recorded payment \(vendor_a\)/);
    expect(await reasons({ ...paid(), currency: 'USD' })).toMatch(/^detail\.currency: is USD, not INR/);
    expect(await reasons(gatewayPaid('2022-12-02T17:00:00+05:30'))).toMatch(/^detail\.transactionTime: is 2022-12-02T17:00:00\+05:30, not 2022-12-02T16:00:00\+05:30/);
    expect(await reasons({ ...paid(), transactionTimeSource: 'bank' })).toMatch(/^detail\.transactionTimeSource: is "bank"/);
    expect(await world.orders.getOrder(ORDER)).toMatchObject({ transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: VENDOR, amount: '1250.50' }] });
  });
});
