/**
 * The contracts of the OrderRepository and ReleaseReads ports, run alike against the in-memory fakes the use-case tests
 * rely on and the DynamoDB adapter (the orders table and its indexes) on a real dynalite: a fake that drifts from its
 * adapter fails here.
 */
import { VersionConflictError, type OrderRepository, type OutcomeFilter, type PolicyRepository, type ReleaseReads } from '../../functions/application/ports';
import { DynamoOrderRepository } from '../../functions/adapters/dynamodb/order-repository';
import { DynamoPolicyRepository } from '../../functions/adapters/dynamodb/policy-repository';
import type { OrderRecord, StoredEvent, VendorRelease } from '../../functions/domain/types';
import { InMemoryOrderRepository, InMemoryPolicyRepository } from '../fakes/repositories';
import { InMemoryReleaseReads } from '../fakes/release-reads';
import { order, release } from '../adapters/release-fixtures';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { at } from '../times';

const SUBJECTS: Subjects<{ orders: OrderRepository; reads: ReleaseReads; policies: PolicyRepository }> = [
  ['the in-memory fakes', inMemory(() => {
    const orders = new InMemoryOrderRepository();
    const policies = new InMemoryPolicyRepository();
    return { orders, policies, reads: new InMemoryReleaseReads(orders, policies) };
  })],
  ['the DynamoDB adapters', onDynalite((local) => {
    const orders = new DynamoOrderRepository(local.doc, local.tables.orders);
    return { orders, reads: orders.reads, policies: new DynamoPolicyRepository(local.doc, local.tables.config, orders.reads.directory) };
  })],
];

const event = (orderId: string, key: string, receivedAt: string): StoredEvent => ({
  orderId, key, event: { type: 'order.delivered', orderId, deliveredAt: at('2022-12-04T12:00:00+05:30') }, receivedAt: at(receivedAt),
});

describeEachSubject(SUBJECTS, (subject) => {
  /** Writes the order and its releases as the use cases do: the order record, then each release from version 1. */
  async function paid(o: OrderRecord, overrides: Record<string, Partial<VendorRelease>> = {}): Promise<VendorRelease[]> {
    await subject().orders.createOrder(o);
    const written: VendorRelease[] = [];
    for (const { vendorId } of o.vendors) {
      const r = release(o, vendorId, overrides[vendorId]);
      await subject().orders.putRelease(r, null);
      written.push(r);
    }
    return written;
  }

  async function outcomes(filter: OutcomeFilter, after: string | null = null): Promise<string[]> {
    const rows: string[] = [];
    for await (const row of subject().reads.outcomes(filter, after)) rows.push(`${row.release.orderId}/${row.release.vendorId}`);
    return rows;
  }

  describe('OrderRepository', () => {
    const o = order('order_1001', '2022-12-02T16:00:00+05:30', ['vendor_A', 'vendor_B']);

    test('an order is created once (the first one stays); too late then to mark it awaiting its payment', async () => {
      const { orders } = subject();
      expect(await orders.getOrder(o.orderId)).toBeNull();
      expect(await orders.createOrder(o)).toBe('new');
      expect(await orders.createOrder({ ...o, deferByDays: 3 })).toBe('exists');
      expect(await orders.getOrder(o.orderId)).toEqual(o);
      expect(await orders.markAwaitingPayment(o.orderId)).toBe(false);
      expect(await orders.getOrder(o.orderId)).toEqual(o);
    });

    test('an order marked awaiting its payment reads as no order until the payment, which learns it was awaited', async () => {
      const { orders } = subject();
      expect(await orders.markAwaitingPayment(o.orderId)).toBe(true);
      expect(await orders.markAwaitingPayment(o.orderId)).toBe(true);
      expect(await orders.getOrder(o.orderId)).toBeNull();
      expect((await orders.loadOrder(o.orderId)).order).toBeNull();
      expect(await orders.createOrder(o)).toBe('awaited');
      expect((await orders.loadOrder(o.orderId)).order).toEqual(o);
      expect(await orders.createOrder(o)).toBe('exists');
    });

    test('the gateway\'s account of the payment replaces the record once; never an order that is not paid', async () => {
      const { orders } = subject();
      const gateway: OrderRecord = { ...o, transactionTime: at('2022-12-02T15:59:30+05:30'), transactionTimeSource: 'gateway' };
      expect(await orders.adoptGatewayPayment(gateway)).toBe(false);
      expect(await orders.getOrder(o.orderId)).toBeNull();
      await orders.createOrder(o);
      expect(await orders.adoptGatewayPayment(gateway)).toBe(true);
      expect(await orders.getOrder(o.orderId)).toEqual(gateway);
      expect(await orders.adoptGatewayPayment({ ...gateway, transactionTime: at('2022-12-02T15:59:00+05:30') })).toBe(false);
      expect(await orders.getOrder(o.orderId)).toEqual(gateway);
    });

    test('a duplicate event (same key) is stored once; events are listed in order of receipt, as instants', async () => {
      const { orders } = subject();
      const later = event('order_1002', 'order.delivered#abc123', '2022-12-04T12:00:01+05:30');
      // 07:00Z is 12:30 India time: after `later` although its text sorts first; recorded first.
      const latest = event('order_1002', 'order.delivered#def456', '2022-12-04T07:00:00Z');
      const earliest = event('order_1002', 'order.dispute_opened#1', '2022-12-03T09:00:01+05:30');
      expect(await orders.recordEvent(latest)).toBe(true);
      expect(await orders.recordEvent(later)).toBe(true);
      expect(await orders.recordEvent(later)).toBe(false);
      expect(await orders.recordEvent({ ...later, receivedAt: at('2022-12-05T00:00:00+05:30') })).toBe(false);
      expect(await orders.recordEvent(earliest)).toBe(true);
      expect(await orders.listEvents('order_1002')).toEqual([earliest, later, latest]);
      expect(await orders.loadOrder('order_1002')).toEqual({ order: null, events: [earliest, later, latest], releases: [] });
      expect(await orders.listEvents('order_other')).toEqual([]);
    });

    test('loadOrder reads the record, its events and its releases together', async () => {
      const { orders } = subject();
      expect(await orders.loadOrder(o.orderId)).toEqual({ order: null, events: [], releases: [] });
      const delivered = event(o.orderId, 'order.delivered#1', '2022-12-04T12:00:01+05:30');
      await orders.recordEvent(delivered);
      const [a, b] = await paid(o, { vendor_B: { state: 'APPLIED', sendAt: null, releaseKey: null } });
      const loaded = await orders.loadOrder(o.orderId);
      expect({ ...loaded, releases: [...loaded.releases].sort((x, y) => x.vendorId.localeCompare(y.vendorId)) }).toEqual({ order: o, events: [delivered], releases: [a, b] });
    });

    test('releases are written conditional on their version; a lost race changes nothing stored', async () => {
      const { orders } = subject();
      const first = release(o, 'vendor_A');
      await orders.putRelease(first, null);
      await expect(orders.putRelease(first, null)).rejects.toBeInstanceOf(VersionConflictError);
      const applying: VendorRelease = { ...first, state: 'APPLYING', sendAt: null, version: 2 };
      await orders.putRelease(applying, 1);
      await expect(orders.putRelease({ ...first, state: 'CANCELLED', version: 2 }, 1)).rejects.toBeInstanceOf(VersionConflictError);
      await expect(orders.putRelease(release(o, 'vendor_Z', { version: 2 }), 1)).rejects.toBeInstanceOf(VersionConflictError);
      expect(await orders.getRelease(o.orderId, 'vendor_A')).toEqual(applying);
      expect(await orders.getRelease(o.orderId, 'vendor_Z')).toBeNull();
      await orders.putRelease(release(o, 'vendor_B'), null);
      expect((await orders.listReleases(o.orderId)).map((r) => r.vendorId).sort()).toEqual(['vendor_A', 'vendor_B']);
    });

    test('what a read answers is a copy: changing it changes nothing stored', async () => {
      const { orders } = subject();
      await paid(o);
      const read = (await orders.getRelease(o.orderId, 'vendor_A'))!;
      read.state = 'CANCELLED';
      (await orders.getOrder(o.orderId))!.vendors.length = 0;
      expect((await orders.getRelease(o.orderId, 'vendor_A'))!.state).toBe('SCHEDULED');
      expect((await orders.getOrder(o.orderId))!.vendors).toHaveLength(2);
    });

    test('listDue: oldest send first as instants (ties by order), up to the limit, `before` inclusive; no sendAt, not due', async () => {
      const { orders } = subject();
      const sendTimes = [
        '2022-12-05T15:00:00+05:30', // 09:30Z
        '2022-12-05T09:00:00Z',
        '2022-12-05T04:00:00-05:00', // 09:00Z, the same instant as the one before
        '2022-12-05T10:00:00Z', // exactly `before`
        '2022-12-05T16:00:00+05:30', // 10:30Z, not due
        '2022-12-04T23:00:00+05:30', // 17:30Z the day before
      ];
      const due = sendTimes.map((sendAt, i) => release(order(`order_${2000 + i}`, '2022-12-02T16:00:00+05:30', ['v']), 'v', { sendAt: at(sendAt) }));
      // Written in reverse, so that neither the order of the writes nor the text of the times decides.
      for (const r of [...due].reverse()) await orders.putRelease(r, null);
      await orders.putRelease(release(order('order_2999', '2022-12-02T16:00:00+05:30', ['v']), 'v', { sendAt: null, state: 'WAITING' }), null);
      const before = at('2022-12-05T15:30:00+05:30');
      expect((await orders.listDue(before, 100)).map((r) => r.orderId)).toEqual(['order_2005', 'order_2001', 'order_2002', 'order_2000', 'order_2003']);
      expect((await orders.listDue(before, 2)).map((r) => r.orderId)).toEqual(['order_2005', 'order_2001']);
      expect((await orders.listDue(before, 1))[0]).toEqual(due[5]);
      expect(await orders.listDue(at('2022-12-04T00:00:00Z'), 10)).toEqual([]);
      // A sent release (no sendAt) is no longer due.
      await orders.putRelease({ ...due[5], sendAt: null, state: 'APPLIED', version: 2 }, 1);
      expect((await orders.listDue(before, 100)).map((r) => r.orderId)).not.toContain('order_2005');
    });
  });

  describe('ReleaseReads', () => {
    // India months: 1 Dec 02:00 India time is still 30 Nov in UTC.
    const a = order('order_r1', '2022-12-01T02:00:00+05:30', ['ven_b', 'ven_a']);
    const b = order('order_r2', '2022-11-30T23:00:00+05:30', ['ven_a']);
    const c = order('order_r3', '2022-12-02T16:00:00+05:30', ['ven_a', 'ven_c']);

    async function threeOrders(): Promise<void> {
      await paid(a);
      await paid(b, { ven_a: { targetEligibility: at('2022-12-04T10:00:00+05:30'), sendAt: at('2022-12-04T09:00:00+05:30') } });
      const [applied] = await paid(c);
      const appliedRelease: VendorRelease = {
        ...applied, state: 'APPLIED', sendAt: null, releaseKey: null, appliedEligibility: at('2022-12-05T16:00:00+05:30'),
        predictedSettlement: at('2022-12-06T11:00:00+05:30'), version: 2,
      };
      await subject().orders.putRelease(appliedRelease, 1);
      await subject().orders.putRelease({ ...appliedRelease, state: 'SETTLED', settledAt: at('2022-12-06T11:00:00+05:30'), version: 3 }, 2);
    }

    test('outcomes by transaction time: in time order then order and vendor id, filtered by range, vendor and state', async () => {
      await threeOrders();
      expect(await outcomes({ by: 'transaction' })).toEqual(['order_r2/ven_a', 'order_r1/ven_a', 'order_r1/ven_b', 'order_r3/ven_a', 'order_r3/ven_c']);
      expect(await outcomes({ by: 'transaction', from: at('2022-12-01T00:00:00+05:30') })).toEqual(['order_r1/ven_a', 'order_r1/ven_b', 'order_r3/ven_a', 'order_r3/ven_c']);
      expect(await outcomes({ by: 'transaction', to: at('2022-12-01T02:00:00+05:30') })).toEqual(['order_r2/ven_a', 'order_r1/ven_a', 'order_r1/ven_b']);
      expect(await outcomes({ by: 'transaction', vendorId: 'ven_a' })).toEqual(['order_r2/ven_a', 'order_r1/ven_a', 'order_r3/ven_a']);
      expect(await outcomes({ by: 'transaction', state: 'SETTLED' })).toEqual(['order_r3/ven_a']);
      expect(await outcomes({ by: 'transaction', from: at('2022-12-03T00:00:00+05:30'), to: at('2022-12-02T00:00:00+05:30') })).toEqual([]);
    });

    test('outcomes by applied eligibility and by settlement time hold only the releases that have one; one order alike', async () => {
      await threeOrders();
      expect(await outcomes({ by: 'applied' })).toEqual(['order_r3/ven_a']);
      expect(await outcomes({ by: 'settled', from: at('2022-12-06T11:00:00+05:30'), to: at('2022-12-06T11:00:00+05:30') })).toEqual(['order_r3/ven_a']);
      expect(await outcomes({ by: 'settled', to: at('2022-12-06T10:59:59+05:30') })).toEqual([]);
      expect(await outcomes({ by: 'transaction', orderId: 'order_r1' })).toEqual(['order_r1/ven_a', 'order_r1/ven_b']);
      expect(await outcomes({ by: 'transaction', orderId: 'order_r1', vendorId: 'ven_b' })).toEqual(['order_r1/ven_b']);
      expect(await outcomes({ by: 'settled', orderId: 'order_r1' })).toEqual([]);
    });

    test('a position is `<UTC time>#<orderId>#<vendorId>` and resumes exactly after the row it names; each row carries its order', async () => {
      await threeOrders();
      const rows = [];
      for await (const row of subject().reads.outcomes({ by: 'transaction' }, null)) rows.push(row);
      expect(rows[0].position).toBe('2022-11-30T17:30:00.000Z#order_r2#ven_a');
      expect(rows[0].order).toEqual(b);
      expect(await outcomes({ by: 'transaction' }, rows[1].position)).toEqual(['order_r1/ven_b', 'order_r3/ven_a', 'order_r3/ven_c']);
      expect(await outcomes({ by: 'transaction' }, rows[4].position)).toEqual([]);
    });

    test('open releases: in the order of their maximum eligibility, settled ones gone, a range keeps each window that meets it', async () => {
      await threeOrders();
      const open = async (vendorId: string, range?: { from: string; to: string }) => {
        const ids: string[] = [];
        for await (const row of subject().reads.openReleases(vendorId, range && { from: at(range.from), to: at(range.to) })) ids.push(row.release.orderId);
        return ids;
      };
      expect(await open('ven_a')).toEqual(['order_r2', 'order_r1']);
      expect(await open('ven_a', { from: '2022-12-01T00:00:00+05:30', to: '2022-12-31T00:00:00+05:30' })).toEqual(['order_r2', 'order_r1']);
      // order_r2's window closes 2022-12-15T23:00 India time; order_r1's opens 2022-12-01T02:00.
      expect(await open('ven_a', { from: '2022-12-16T00:00:00+05:30', to: '2022-12-31T00:00:00+05:30' })).toEqual(['order_r1']);
      expect(await open('ven_a', { from: '2022-11-01T00:00:00+05:30', to: '2022-12-01T00:00:00+05:30' })).toEqual(['order_r2']);
      expect(await open('ven_nobody')).toEqual([]);
      expect(await subject().reads.openCountUpTo('ven_a', 5)).toBe(2);
      expect(await subject().reads.openCountUpTo('ven_a', 1)).toBe(2);
      expect(await subject().reads.openCountUpTo('ven_nobody', 5)).toBe(0);
      const toPlan = await subject().reads.openReleasesToPlan('ven_a');
      expect(toPlan.map((r) => [r.orderId, r.attempts])).toEqual([['order_r2', []], ['order_r1', []]]);
    });

    test('open order ids page in the index\'s order; open totals per currency; the ends move with a new order', async () => {
      await threeOrders();
      const first = await subject().reads.openOrderIds('ven_a', null, 1);
      expect(first.orderIds).toEqual(['order_r2']);
      expect(first.next).not.toBeNull();
      // A full page may be followed by an empty last one (the adapter cannot tell without reading on): follow `next`.
      const pages = [first.orderIds];
      for (let next = first.next; next !== null;) {
        const page = await subject().reads.openOrderIds('ven_a', next, 1);
        pages.push(page.orderIds);
        next = page.next;
      }
      expect(pages.flat()).toEqual(['order_r2', 'order_r1']);
      expect(await subject().reads.openOrderIds('ven_a', null, 5)).toEqual({ orderIds: ['order_r2', 'order_r1'], next: null });
      expect(await subject().reads.openTotals('ven_a')).toEqual([{ currency: 'INR', count: 2, amount: '201.00' }]);
      expect(await subject().reads.openTotals('ven_nobody')).toEqual([]);
      const ends = await subject().reads.openEnds('ven_a');
      expect(await subject().reads.openEnds('ven_a')).toBe(ends);
      await paid(order('order_r4', '2022-12-03T10:00:00+05:30', ['ven_a']));
      expect(await subject().reads.openEnds('ven_a')).not.toBe(ends);
    });

    test('the vendors seen in an order or a policy, by id in pages; a vendor never seen is not known', async () => {
      await threeOrders();
      await subject().policies.save({ vendorId: 'ven_policy_only', version: 1, scheduleOption: 2, release: { kind: 'immediate' }, actor: 'ops', reason: 'set', at: at('2022-12-01T10:00:00+05:30') });
      expect(await subject().reads.vendors(null, 10)).toEqual({ vendorIds: ['ven_a', 'ven_b', 'ven_c', 'ven_policy_only'], more: false });
      expect(await subject().reads.vendors(null, 2)).toEqual({ vendorIds: ['ven_a', 'ven_b'], more: true });
      expect(await subject().reads.vendors('ven_b', 2)).toEqual({ vendorIds: ['ven_c', 'ven_policy_only'], more: false });
      expect(await subject().reads.knowsVendor('ven_policy_only')).toBe(true);
      expect(await subject().reads.knowsVendor('ven_c')).toBe(true);
      expect(await subject().reads.knowsVendor('ven_never')).toBe(false);
    });
  });
});
