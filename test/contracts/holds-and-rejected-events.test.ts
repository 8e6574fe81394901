/**
 * The contracts of the VendorHoldRepository and RejectedEventRepository ports, run alike against the in-memory fakes
 * the use-case tests rely on and the DynamoDB adapters on a real dynalite: a fake that drifts from its adapter fails here.
 */
import type { RejectedEventRepository, VendorHoldRepository } from '../../functions/application/ports';
import { DynamoHoldRepository } from '../../functions/adapters/dynamodb/hold-repository';
import { DynamoRejectedEventRepository } from '../../functions/adapters/dynamodb/rejected-event-repository';
import type { RejectedEvent } from '../../functions/domain/types';
import { InMemoryHoldRepository, InMemoryRejectedEventRepository } from '../fakes/repositories';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { at } from '../times';

const SUBJECTS: Subjects<{ holds: VendorHoldRepository; rejected: RejectedEventRepository }> = [
  ['the in-memory fakes', inMemory(() => ({ holds: new InMemoryHoldRepository(), rejected: new InMemoryRejectedEventRepository() }))],
  ['the DynamoDB adapters', onDynalite((local) => ({
    holds: new DynamoHoldRepository(local.doc, local.tables.config),
    rejected: new DynamoRejectedEventRepository(local.doc, local.tables.rejected),
  }))],
];

const rejectedEvent = (id: string, minute: number): RejectedEvent => ({
  id, at: at(`2022-12-02T16:${String(minute).padStart(2, '0')}:00+05:30`), source: 'marketplace.orders', detailType: 'order.paid',
  reasons: [`detail.orderId: is missing; send an order id (${id})`], detail: { vendors: [{ vendorId: 'v', amount: '10.005' }], note: id },
});

describeEachSubject(SUBJECTS, (subject) => {

  describe('VendorHoldRepository', () => {
    test('null for a vendor never held; the last put is what get answers, per vendor', async () => {
      expect(await subject().holds.get('vendor_a')).toBeNull();
      await subject().holds.put({ vendorId: 'vendor_a', held: true, actor: 'risk@example.com', reason: 'fraud review', at: at('2022-12-02T16:00:00+05:30') });
      await subject().holds.put({ vendorId: 'vendor_b', held: true, actor: 'risk@example.com', reason: 'kyc', at: at('2022-12-02T16:01:00+05:30') });
      await subject().holds.put({ vendorId: 'vendor_a', held: false, actor: 'risk@example.com', reason: 'review cleared', at: at('2022-12-03T10:00:00+05:30') });
      expect(await subject().holds.get('vendor_a')).toEqual({ vendorId: 'vendor_a', held: false, actor: 'risk@example.com', reason: 'review cleared', at: '2022-12-03T10:00:00+05:30' });
      expect(await subject().holds.get('vendor_b')).toMatchObject({ held: true, reason: 'kyc' });
    });

    test('what get answers is a copy: changing it changes nothing stored', async () => {
      await subject().holds.put({ vendorId: 'vendor_a', held: true, actor: 'risk@example.com', reason: 'fraud review', at: at('2022-12-02T16:00:00+05:30') });
      const read = (await subject().holds.get('vendor_a'))!;
      read.held = false;
      expect((await subject().holds.get('vendor_a'))!.held).toBe(true);
    });
  });

  describe('RejectedEventRepository', () => {
    test('numbered in order of arrival, listed newest first, the detail kept as received; count of every one', async () => {
      for (const [i, id] of ['evt-1', 'evt-2', 'evt-3'].entries()) await subject().rejected.add(rejectedEvent(id, i));
      const page = await subject().rejected.page({ limit: 10 });
      expect(page.items.map((r) => [r.id, r.sequence])).toEqual([['evt-3', 3], ['evt-2', 2], ['evt-1', 1]]);
      expect(page.items[2]).toEqual({ ...rejectedEvent('evt-1', 0), sequence: 1 });
      expect([page.count, page.next]).toEqual([3, null]);
    });

    test('the same event refused again (a retry, same id) is listed once', async () => {
      await subject().rejected.add(rejectedEvent('evt-1', 0));
      await subject().rejected.add(rejectedEvent('evt-1', 5));
      const page = await subject().rejected.page({ limit: 10 });
      expect(page.items.map((r) => r.id)).toEqual(['evt-1']);
      expect(page.count).toBe(1);
    });

    test('pages: limit of them, next continues after the last, the last page has no next', async () => {
      for (let i = 1; i <= 5; i += 1) await subject().rejected.add(rejectedEvent(`evt-${i}`, i));
      const first = await subject().rejected.page({ limit: 2 });
      const second = await subject().rejected.page({ limit: 2, after: first.next });
      const third = await subject().rejected.page({ limit: 2, after: second.next });
      expect([first, second, third].map((p) => p.items.map((r) => r.sequence))).toEqual([[5, 4], [3, 2], [1]]);
      expect([first.next === null, second.next === null, third.next]).toEqual([false, false, null]);
      expect(third.count).toBe(5);
    });
  });
});
