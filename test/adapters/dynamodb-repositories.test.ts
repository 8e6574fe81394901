/** The DynamoDB repositories against a real dynalite: duplicates, version conflicts, due lists, history, ranges. */
import { DateTime } from 'luxon';
import { VersionConflictError } from '../../functions/application/ports';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import type { OrderRecord, StoredEvent, VendorPolicy, VendorRelease } from '../../functions/domain/types';
import { DynamoOrderRepository, dueShard } from '../../functions/adapters/dynamodb/order-repository';
import { DynamoSettingsRepository } from '../../functions/adapters/dynamodb/settings-repository';
import { DynamoPolicyRepository } from '../../functions/adapters/dynamodb/policy-repository';
import { DynamoConfigReader } from '../../functions/adapters/dynamodb/config-reader';
import { DynamoHoldRepository } from '../../functions/adapters/dynamodb/hold-repository';
import { DynamoRejectedEventRepository, MAX_DETAIL_CHARS } from '../../functions/adapters/dynamodb/rejected-event-repository';
import { createTableInputs, DEFAULT_TABLE_NAMES, DUE_SHARDS, tableNamesFromEnv } from '../../functions/definitions/tables';
import { startLocalDynamo, withLocalDynamo, type LocalDynamo } from './local-dynamodb';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

let dynamo: LocalDynamo;
const clock = { now: () => Instant.parse('2022-12-02T10:35:00Z', 'now') };

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => {
  await dynamo.close();
});

/** A client that records each BatchGetItem's keys (sorted) and consistency, then sends it. */
function recordingBatchGets(doc: LocalDynamo['doc']) {
  const reads: { keys: string[]; consistent: boolean }[] = [];
  const recording = Object.create(doc) as typeof doc;
  recording.batchGet = (table, keys, consistent) => {
    reads.push({ keys: keys.map((k) => `${k.pk}/${k.sk}`).sort(), consistent });
    return doc.batchGet(table, keys, consistent);
  };
  return { reads, recording };
}

function release(overrides: Partial<VendorRelease> & Pick<VendorRelease, 'orderId' | 'vendorId'>): VendorRelease {
  return {
    amount: '1234.50',
    state: 'SCHEDULED',
    policyVersion: 1,
    rule: { kind: 'after_payment', delay: 'P3D' },
    scheduleOption: 1,
    transactionTime: at('2022-12-02T16:00:00+05:30'),
    maxEligibility: at('2022-12-17T16:00:00+05:30'),
    targetEligibility: at('2022-12-05T16:00:00+05:30'),
    sendAt: at('2022-12-05T15:00:00+05:30'),
    releaseKey: null,
    appliedEligibility: null,
    predictedSettlement: null,
    clamp: null,
    attempts: [],
    reason: null,
    settledAt: null,
    version: 1,
    updatedAt: at('2022-12-02T16:05:00+05:30'),
    ...overrides,
  };
}

describe('table definitions', () => {
  test('one CreateTable input per table, with the due, read-side and planning indexes on the orders table', () => {
    const inputs = createTableInputs(DEFAULT_TABLE_NAMES);
    expect(inputs.map((i) => i.TableName)).toEqual(['holdback-orders', 'holdback-config', 'holdback-rejected-events', 'holdback-audit']);
    expect(inputs[0].GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(['due', 'openByVendor', 'paidByMonth', 'appliedByMonth', 'settledByMonth', 'unsentByVendor']);
    expect(inputs.every((i) => i.BillingMode === 'PAY_PER_REQUEST')).toBe(true);
  });

  test('table names come from the environment, defaults otherwise', () => {
    expect(tableNamesFromEnv({ HOLDBACK_ORDERS_TABLE: 'o', HOLDBACK_REJECTED_TABLE: 'r' }))
      .toEqual({ orders: 'o', config: 'holdback-config', rejected: 'r' });
  });
});

describe('DynamoSettingsRepository', () => {
  test('defaults (version 0) until saved, then versions conditional on the latest', async () => {
    const repo = new DynamoSettingsRepository(dynamo.doc, dynamo.tables.config, clock);
    const initial = await repo.get();
    expect(initial).toMatchObject({ ...DEFAULT_SETTINGS, version: 0, actor: 'system' });
    expect(initial.at).toEqual('2022-12-02T16:05:00+05:30');
    expect(await repo.history()).toEqual([]);

    const first = await repo.save({ ...DEFAULT_SETTINGS, deferByDays: 15 }, {
      actor: 'finance@example.com', reason: 'mirror dashboard', at: at('2022-12-01T10:00:00+05:30'), expectedVersion: 0,
    });
    expect(first.version).toBe(1);
    const second = await repo.save({ ...DEFAULT_SETTINGS, deferByDays: 20, holidays: ['2022-12-25'] }, {
      actor: 'finance@example.com', reason: 'longer hold', at: at('2022-12-02T10:00:00+05:30'), expectedVersion: 1,
    });
    expect(second.version).toBe(2);
    expect(await repo.get()).toEqual(second);

    // A writer that read version 1 before the second save loses.
    await expect(repo.save({ ...DEFAULT_SETTINGS }, {
      actor: 'ops', reason: 'stale', at: at('2022-12-02T11:00:00+05:30'), expectedVersion: 1,
    })).rejects.toBeInstanceOf(VersionConflictError);
    // So does one claiming a version that does not exist yet.
    await expect(repo.save({ ...DEFAULT_SETTINGS }, {
      actor: 'ops', reason: 'ahead', at: at('2022-12-02T11:00:00+05:30'), expectedVersion: 5,
    })).rejects.toBeInstanceOf(VersionConflictError);

    expect((await repo.history()).map((s) => [s.version, s.deferByDays])).toEqual([[2, 20], [1, 15]]);
    expect((await repo.version(1))?.reason).toBe('mirror dashboard');
  });

  test('two writers racing from the same version: exactly one wins', async () => {
    await withLocalDynamo(async (local) => {
      const repo = new DynamoSettingsRepository(local.doc, local.tables.config, clock);
      const meta = { actor: 'a', reason: 'race', at: at('2022-12-02T11:00:00+05:30'), expectedVersion: 0 };
      const results = await Promise.allSettled([
        repo.save({ ...DEFAULT_SETTINGS, deferByDays: 3 }, meta),
        repo.save({ ...DEFAULT_SETTINGS, deferByDays: 4 }, meta),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(VersionConflictError);
      expect(await repo.history()).toHaveLength(1);
    });
  });
});

describe('DynamoPolicyRepository', () => {
  const policy = (version: number, scheduleOption: number): VendorPolicy => ({
    vendorId: 'vendor_A', version, scheduleOption, release: { kind: 'after_delivery', delay: 'P2D' },
    actor: 'ops@example.com', reason: `change ${version}`, at: at(`2022-12-0${version}T10:00:00+05:30`),
  });

  test('a policy and the settings read at once go out as one consistent BatchGetItem, each caller with a copy of its own', async () => {
    await withLocalDynamo(async (local) => {
      const policies = new DynamoPolicyRepository(local.doc, local.tables.config);
      const settings = new DynamoSettingsRepository(local.doc, local.tables.config, clock);
      await policies.save(policy(1, 1));
      const saved = await settings.save({ ...DEFAULT_SETTINGS, deferByDays: 15 }, { actor: 'finance@example.com', reason: 'r', at: at('2022-12-01T10:00:00+05:30'), expectedVersion: 0 });
      const gets = jest.spyOn(local.doc, 'get');
      const batches = jest.spyOn(local.doc, 'batchGet');
      const [a, b, c] = await Promise.all([policies.current('vendor_A'), policies.current('vendor_A'), settings.get()]);
      expect([gets.mock.calls.length, batches.mock.calls.length, batches.mock.calls[0]?.[2]]).toEqual([0, 1, true]);
      expect([a, b, c]).toEqual([policy(1, 1), policy(1, 1), saved]);
      expect(a).not.toBe(b);
      expect(a!.release).not.toBe(b!.release);
      // Alone, a read is a GetItem.
      expect(await policies.current('vendor_A')).toEqual(policy(1, 1));
      expect([gets.mock.calls.length, batches.mock.calls.length]).toEqual([1, 1]);
    });
  });

  test('null without a policy; versions kept; a taken version conflicts; history newest first', async () => {
    const repo = new DynamoPolicyRepository(dynamo.doc, dynamo.tables.config);
    expect(await repo.current('vendor_A')).toBeNull();
    await repo.save(policy(1, 1));
    await repo.save(policy(2, 13));
    await repo.save(policy(3, 2));
    await expect(repo.save(policy(2, 5))).rejects.toBeInstanceOf(VersionConflictError);
    expect(await repo.current('vendor_A')).toEqual(policy(3, 2));
    expect((await repo.history('vendor_A')).map((p) => p.version)).toEqual([3, 2, 1]);
    expect(await repo.version('vendor_A', 2)).toEqual(policy(2, 13));
    expect(await repo.version('vendor_A', 9)).toBeNull();
    expect(await repo.history('vendor_B')).toEqual([]);
  });
});

describe('DocumentClient (the low-level client, its middleware cached)', () => {
  test('concurrent calls of one operation each get their own answer, and conditions hold per call', async () => {
    const table = dynamo.tables.rejected;
    const keys = Array.from({ length: 40 }, (_, i) => ({ pk: 'DOC', sk: `item-${i}` }));
    await Promise.all(keys.map((key, i) => dynamo.doc.put({ TableName: table, Item: { ...key, n: i, nested: { list: [i, 'x'], gone: undefined } } })));
    const [items, again] = await Promise.all([
      Promise.all(keys.map((Key) => dynamo.doc.get({ TableName: table, Key, ConsistentRead: true }))),
      // Half of these must fail their condition (the item exists), the other half succeed.
      Promise.allSettled(keys.map((key, i) => dynamo.doc.put({
        TableName: table, Item: { ...key, sk: i % 2 ? key.sk : `${key.sk}-new`, n: -1 }, ConditionExpression: 'attribute_not_exists(pk)',
      }))),
    ]);
    expect(items).toEqual(keys.map((key, i) => ({ ...key, n: i, nested: { list: [i, 'x'] } })));
    expect(again.map((r) => r.status)).toEqual(keys.map((_, i) => (i % 2 ? 'rejected' : 'fulfilled')));
    const old = await dynamo.doc.put({ TableName: table, Item: { pk: 'DOC', sk: 'item-3', n: 33 }, ReturnValues: 'ALL_OLD' });
    expect(old).toEqual({ old: { pk: 'DOC', sk: 'item-3', n: 3, nested: { list: [3, 'x'] } } });
  });
});

describe('versioned config items', () => {
  test('a version whose history item was lost after it took effect is written back when the history is read', async () => {
    await withLocalDynamo(async (local) => {
      const repo = new DynamoPolicyRepository(local.doc, local.tables.config);
      const v1: VendorPolicy = { vendorId: 'vendor_R', version: 1, scheduleOption: 1, release: { kind: 'immediate' }, actor: 'ops', reason: 'first', at: at('2022-12-01T10:00:00+05:30') };
      const v2: VendorPolicy = { ...v1, version: 2, scheduleOption: 13, reason: 'second' };
      await repo.save(v1);
      await repo.save(v2);
      // As if the process died between the commit (CURRENT) and the history write of version 2.
      await local.doc.delete({ TableName: local.tables.config, Key: { pk: 'POLICY#vendor_R', sk: 'V#0000000002' } });

      expect(await repo.current('vendor_R')).toEqual(v2);
      expect(await repo.version('vendor_R', 2)).toEqual(v2);
      expect(await repo.history('vendor_R')).toEqual([v2, v1]);
      // Repaired for good: the item is back, so a second read finds it without the repair.
      const again = await repo.history('vendor_R');
      expect(again).toEqual([v2, v1]);
      await expect(repo.save({ ...v2, reason: 'stale writer' })).rejects.toBeInstanceOf(VersionConflictError);
    });
  });

  test('a version whose history item was lost is written back by the next save too, before anything reads the history', async () => {
    await withLocalDynamo(async (local) => {
      const repo = new DynamoPolicyRepository(local.doc, local.tables.config);
      const v1: VendorPolicy = { vendorId: 'vendor_S', version: 1, scheduleOption: 1, release: { kind: 'immediate' }, actor: 'ops', reason: 'first', at: at('2022-12-01T10:00:00+05:30') };
      const v2: VendorPolicy = { ...v1, version: 2, scheduleOption: 13, reason: 'second' };
      const v3: VendorPolicy = { ...v1, version: 3, scheduleOption: 2, reason: 'third' };
      await repo.save(v1);
      await repo.save(v2);
      // Version 2's history write lost (its caller got an error), then version 3 saved over it.
      await local.doc.delete({ TableName: local.tables.config, Key: { pk: 'POLICY#vendor_S', sk: 'V#0000000002' } });
      await repo.save(v3);

      // A release planned under version 2 still finds it.
      expect(await repo.version('vendor_S', 2)).toEqual(v2);
      expect(await repo.history('vendor_S')).toEqual([v3, v2, v1]);
    });
  });

  test('the planner reads the settings and every policy in force in one batch; absent ones are defaults and null', async () => {
    await withLocalDynamo(async (local) => {
      const reader = new DynamoConfigReader(local.doc, local.tables.config, clock);
      const none = await reader.forPlanning(['vendor_A', 'vendor_B']);
      expect(none.settings).toMatchObject({ ...DEFAULT_SETTINGS, version: 0 });
      expect([...none.policies]).toEqual([['vendor_A', null], ['vendor_B', null]]);

      const settings = new DynamoSettingsRepository(local.doc, local.tables.config, clock);
      const policies = new DynamoPolicyRepository(local.doc, local.tables.config);
      await settings.save({ ...DEFAULT_SETTINGS, deferByDays: 10 }, { actor: 'finance', reason: 'shorter', at: at('2022-12-01T10:00:00+05:30'), expectedVersion: 0 });
      const vendors = Array.from({ length: 130 }, (_, i) => `vendor_${i}`);
      for (const [i, vendorId] of vendors.entries()) {
        if (i % 2 === 0) await policies.save({ vendorId, version: 1, scheduleOption: 1 + (i % 15), release: { kind: 'immediate' }, actor: 'ops', reason: 'set', at: at('2022-12-01T10:00:00+05:30') });
      }
      // More than BatchGetItem's 100 keys, with a vendor asked twice.
      const config = await reader.forPlanning([...vendors, 'vendor_0']);
      expect(config.settings).toMatchObject({ deferByDays: 10, version: 1, actor: 'finance' });
      expect(config.policies.size).toBe(130);
      for (const [i, vendorId] of vendors.entries()) {
        expect(config.policies.get(vendorId)?.scheduleOption ?? null).toBe(i % 2 === 0 ? 1 + (i % 15) : null);
      }
    });
  });
});

test('keys BatchGetItem leaves unprocessed (throttling) are asked again until every one is answered', async () => {
  await withLocalDynamo(async (local) => {
    const policies = new DynamoPolicyRepository(local.doc, local.tables.config);
    const vendors = ['vendor_P', 'vendor_Q', 'vendor_R'];
    for (const [i, vendorId] of vendors.entries()) {
      await policies.save({ vendorId, version: 1, scheduleOption: 2 + i, release: { kind: 'immediate' }, actor: 'ops', reason: 'set', at: at('2022-12-01T10:00:00+05:30') });
    }
    // The real table's answers, except that a round of several keys leaves its last one unprocessed, as a throttled
    // table may.
    const rounds: number[] = [];
    const throttled = Object.create(local.doc) as typeof local.doc;
    throttled.batchGet = async (table, keys, consistent) => {
      rounds.push(keys.length);
      const held = keys.length > 1 ? keys.slice(-1) : [];
      const answer = await local.doc.batchGet(table, keys.slice(0, keys.length - held.length), consistent);
      return { items: answer.items, unprocessed: [...answer.unprocessed, ...held] };
    };
    const config = await new DynamoConfigReader(throttled, local.tables.config, clock).forPlanning(vendors.slice(0, 2));
    // Settings, two policies, two holds and two open orders' policies in one round; the one left unprocessed asked again alone.
    expect(rounds).toEqual([7, 1]);
    expect([...config.policies].map(([id, p]) => [id, p?.scheduleOption])).toEqual([['vendor_P', 2], ['vendor_Q', 3]]);
  });
});

describe('DynamoOrderRepository', () => {
  const order: OrderRecord = {
    orderId: 'order_1001',
    transactionTime: at('2022-12-02T16:00:00+05:30'),
    maxEligibility: at('2022-12-17T16:00:00+05:30'),
    deferByDays: 15,
    currency: 'INR',
    vendors: [{ vendorId: 'vendor_A', amount: '1000.00' }, { vendorId: 'vendor_B', amount: '234.50' }],
    recordedAt: at('2022-12-02T16:00:05+05:30'),
  };

  // Creating an order once and marking it awaiting its payment: test/contracts/orders-and-release-reads.test.ts, for
  // this adapter and the fake alike.

  test('a duplicate event (same key) is stored once', async () => {
    const repo = new DynamoOrderRepository(dynamo.doc, dynamo.tables.orders);
    const delivered: StoredEvent = {
      orderId: 'order_1002', key: 'order.delivered#abc123',
      event: { type: 'order.delivered', orderId: 'order_1002', deliveredAt: at('2022-12-04T12:00:00+05:30') },
      receivedAt: at('2022-12-04T12:00:01+05:30'),
    };
    const paid: StoredEvent = {
      orderId: 'order_1002', key: 'order.paid#def456',
      event: {
        type: 'order.paid', orderId: 'order_1002', transactionTime: at('2022-12-02T16:00:00+05:30'),
        vendors: [{ vendorId: 'vendor_A', amount: '10.00' }], currency: 'INR',
      },
      receivedAt: at('2022-12-04T07:00:00Z'),
    };
    expect(await repo.recordEvent(delivered)).toBe(true);
    expect(await repo.recordEvent(delivered)).toBe(false);
    expect(await repo.recordEvent({ ...delivered, receivedAt: at('2022-12-05T00:00:00+05:30') })).toBe(false);
    expect(await repo.recordEvent(paid)).toBe(true);
    // In order of receipt, comparing instants, not their offset text (07:00Z is 12:30 India time).
    expect(await repo.listEvents('order_1002')).toEqual([delivered, paid]);
  });

  test('loadOrder reads the record, the events in order of receipt and the releases in one go', async () => {
    const repo = new DynamoOrderRepository(dynamo.doc, dynamo.tables.orders);
    const id = 'order_1009';
    expect(await repo.loadOrder(id)).toEqual({ order: null, events: [], releases: [] });
    const later: StoredEvent = {
      orderId: id, key: 'order.delivered#1', event: { type: 'order.delivered', orderId: id, deliveredAt: at('2022-12-04T12:00:00+05:30') },
      receivedAt: at('2022-12-04T12:00:01+05:30'),
    };
    const earlier: StoredEvent = { ...later, key: 'order.dispute_opened#2', event: { type: 'order.dispute_opened', orderId: id, openedAt: at('2022-12-03T09:00:00+05:30') }, receivedAt: at('2022-12-03T09:00:01+05:30') };
    await repo.recordEvent(later);
    await repo.recordEvent(earlier);
    expect(await repo.loadOrder(id)).toEqual({ order: null, events: [earlier, later], releases: [] });
    await repo.createOrder({ ...order, orderId: id });
    const a = release({ orderId: id, vendorId: 'vendor_A' });
    const b = release({ orderId: id, vendorId: 'vendor_B', state: 'APPLIED', sendAt: null });
    await repo.putRelease(a, null);
    await repo.putRelease(b, null);
    expect(await repo.loadOrder(id)).toEqual({ order: { ...order, orderId: id }, events: [earlier, later], releases: [a, b] });
  });

  test('releases are written conditional on their version', async () => {
    const repo = new DynamoOrderRepository(dynamo.doc, dynamo.tables.orders);
    const first = release({ orderId: 'order_1003', vendorId: 'vendor_A', version: 1 });
    await repo.putRelease(first, null);
    await expect(repo.putRelease({ ...first, version: 1 }, null)).rejects.toBeInstanceOf(VersionConflictError);

    const applying = { ...first, state: 'APPLYING' as const, sendAt: null, version: 2 };
    await repo.putRelease(applying, 1);
    // A second writer still holding version 1 loses, and the stored release is unchanged.
    await expect(repo.putRelease({ ...first, state: 'CANCELLED', version: 2 }, 1)).rejects.toBeInstanceOf(VersionConflictError);
    await expect(repo.putRelease(release({ orderId: 'order_1003', vendorId: 'vendor_Z', version: 2 }), 1))
      .rejects.toBeInstanceOf(VersionConflictError);
    expect(await repo.getRelease('order_1003', 'vendor_A')).toEqual(applying);
    expect(await repo.getRelease('order_1003', 'vendor_Z')).toBeNull();

    await repo.putRelease(release({ orderId: 'order_1003', vendorId: 'vendor_B' }), null);
    expect((await repo.listReleases('order_1003')).map((r) => r.vendorId)).toEqual(['vendor_A', 'vendor_B']);
  });

  test('releases read at once (an SQS batch of the release function) are read by one consistent BatchGetItem, one alone by GetItem', async () => {
    const calls: string[] = [];
    const counting = Object.create(dynamo.doc) as typeof dynamo.doc;
    counting.get = async (input) => { calls.push(`get ${String(input.ConsistentRead)}`); return dynamo.doc.get(input); };
    counting.batchGet = async (table, keys, consistent) => { calls.push(`batchGet ${keys.length} ${String(consistent)}`); return dynamo.doc.batchGet(table, keys, consistent); };
    const repo = new DynamoOrderRepository(counting, dynamo.tables.orders);
    const vendors = Array.from({ length: 10 }, (_, i) => `vendor_${i}`);
    for (const vendorId of vendors) await repo.putRelease(release({ orderId: 'order_1009', vendorId }), null);
    // Written just before: each read goes out after it was asked, so it sees the write.
    await repo.putRelease(release({ orderId: 'order_1009', vendorId: 'vendor_0', state: 'APPLYING', sendAt: null, version: 2 }), 1);
    const read = await Promise.all([...vendors, 'vendor_none', 'vendor_3'].map((vendorId) => repo.getRelease('order_1009', vendorId)));
    expect(calls).toEqual(['batchGet 11 true']);
    expect(read.map((r) => r && [r.vendorId, r.state])).toEqual([
      ['vendor_0', 'APPLYING'], ...vendors.slice(1).map((v) => [v, 'SCHEDULED']), null, ['vendor_3', 'SCHEDULED'],
    ]);
    // Each caller has its own release (one may change what it got without touching another's).
    expect(read[3]).not.toBe(read[11]);
    calls.length = 0;
    expect((await repo.getRelease('order_1009', 'vendor_5'))?.vendorId).toBe('vendor_5');
    expect(calls).toEqual(['get true']);
  });

  test('an order read by several callers in one turn (the vendors of an order claimed at once) is one consistent query, each caller with its own copy', async () => {
    const queries: string[] = [];
    const counting = Object.create(dynamo.doc) as typeof dynamo.doc;
    counting.query = async (input) => { queries.push(`${String(input.ExpressionAttributeValues?.[':pk'])} ${String(input.ConsistentRead)}`); return dynamo.doc.query(input); };
    const repo = new DynamoOrderRepository(counting, dynamo.tables.orders);
    for (const vendorId of ['vendor_A', 'vendor_B']) await repo.putRelease(release({ orderId: 'order_1010', vendorId }), null);
    await repo.putRelease(release({ orderId: 'order_1011', vendorId: 'vendor_A' }), null);
    // Written just before: the read goes out after every caller asked, so each sees it.
    await repo.putRelease(release({ orderId: 'order_1010', vendorId: 'vendor_B', state: 'APPLYING', sendAt: null, version: 2 }), 1);
    const [a, b, other] = await Promise.all([repo.loadOrder('order_1010'), repo.loadOrder('order_1010'), repo.loadOrder('order_1011')]);
    expect(queries.sort()).toEqual(['ORDER#order_1010 true', 'ORDER#order_1011 true']);
    expect(a.releases.map((r) => [r.vendorId, r.state])).toEqual([['vendor_A', 'SCHEDULED'], ['vendor_B', 'APPLYING']]);
    expect(b).toEqual(a);
    expect(b.releases[0]).not.toBe(a.releases[0]);
    expect(other.releases.map((r) => r.vendorId)).toEqual(['vendor_A']);
  });

  test('listDue reads the shards one after another: one connection, not one a shard, on a cold container', async () => {
    await withLocalDynamo(async (local) => {
      let inFlight = 0;
      let most = 0;
      const query = local.doc.query.bind(local.doc);
      local.doc.query = async (input) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        try {
          return await query(input);
        } finally {
          inFlight -= 1;
        }
      };
      const repo = new DynamoOrderRepository(local.doc, local.tables.orders);
      for (let i = 0; i < 12; i += 1) await repo.putRelease(release({ orderId: `order_${3000 + i}`, vendorId: `vendor_${i % 3}`, sendAt: at('2022-12-05T09:00:00Z') }), null);
      expect(await repo.listDue(at('2022-12-05T10:00:00Z'), 100)).toHaveLength(12);
      expect(most).toBe(1);
    });
  });

  test('listDue merges every shard, oldest send first, up to the limit, and leaves releases without sendAt out', async () => {
    await withLocalDynamo(async (local) => {
      const repo = new DynamoOrderRepository(local.doc, local.tables.orders);
      // Send times in mixed offsets: text order differs from time order.
      const sendTimes = [
        '2022-12-05T15:00:00+05:30', // 09:30Z
        '2022-12-05T09:00:00Z', // 09:00Z
        '2022-12-05T14:45:00+05:30', // 09:15Z
        '2022-12-05T10:00:00Z', // 10:00Z
        '2022-12-05T04:00:00-05:00', // 09:00Z
        '2022-12-05T09:59:59Z',
        '2022-12-05T16:00:00+05:30', // 10:30Z
        '2022-12-04T23:00:00+05:30', // 17:30Z the day before
        '2022-12-05T15:29:00+05:30', // 09:59Z
        '2022-12-05T09:01:00Z',
        '2022-12-05T09:02:00Z',
        '2022-12-05T09:03:00Z',
      ];
      const releases = sendTimes.map((sendAt, i) => release({ orderId: `order_${2000 + i}`, vendorId: `vendor_${i % 3}`, sendAt: at(sendAt) }));
      releases.push(release({ orderId: 'order_2999', vendorId: 'vendor_0', sendAt: null, state: 'WAITING' }));
      for (const r of releases) await repo.putRelease(r, null);
      const shards = new Set(releases.map((r) => dueShard(r.orderId, r.vendorId)));
      expect(shards.size).toBeGreaterThan(3);
      expect(shards.size).toBeLessThanOrEqual(DUE_SHARDS);

      const instant = (time: Instant): number => time.ms;
      const before = at('2022-12-05T15:30:00+05:30'); // 10:00Z, inclusive
      const expected = releases
        .filter((r) => r.sendAt !== null && instant(r.sendAt) <= instant(before))
        .sort((a, b) => instant(a.sendAt!) - instant(b.sendAt!) || a.orderId.localeCompare(b.orderId));
      const due = await repo.listDue(before, 100);
      expect(due.map((r) => r.orderId)).toEqual(expected.map((r) => r.orderId));
      expect(due).toHaveLength(11);
      expect(due[0].sendAt).toEqual('2022-12-04T23:00:00+05:30'); // the item keeps its offset form
      expect(due.map((r) => r.orderId)).toContain('order_2003'); // exactly at `before`

      expect((await repo.listDue(before, 4)).map((r) => r.orderId)).toEqual(expected.slice(0, 4).map((r) => r.orderId));
      expect(await repo.listDue(at('2022-12-04T00:00:00Z'), 10)).toEqual([]);

      // Clearing sendAt takes a release out of the index.
      await repo.putRelease({ ...releases[7], sendAt: null, state: 'APPLIED', version: 2 }, 1);
      expect((await repo.listDue(before, 100)).map((r) => r.orderId)).not.toContain('order_2007');
      // A release read from the due index carries no index attributes.
      expect(Object.keys(due[0]).sort()).toEqual(Object.keys(releases[0]).sort());
    });
  });
});

describe('what a release write costs (issue 11)', () => {
  const rawItem = (local: LocalDynamo, orderId: string, vendorId: string) =>
    local.doc.get({ TableName: local.tables.orders, Key: { pk: `ORDER#${orderId}`, sk: `VENDOR#${vendorId}` }, ConsistentRead: true });

  test('a claim keeps the due key it was claimed at (no move of the entry); a sent release leaves the index; a retry moves the key', async () => {
    await withLocalDynamo(async (local) => {
      const repo = new DynamoOrderRepository(local.doc, local.tables.orders);
      const planned = release({ orderId: 'order_3001', vendorId: 'vendor_A', releaseKey: 'rel-1', sendAt: at('2022-12-05T15:00:00+05:30') });
      await repo.putRelease(planned, null);
      expect((await rawItem(local, 'order_3001', 'vendor_A'))?.dueSk).toEqual('2022-12-05T09:30:00.000Z');

      // The release function reads the release, then claims it: the deadline is its sendAt, the key stays.
      const read = (await repo.getRelease('order_3001', 'vendor_A'))!;
      const applying = { ...read, state: 'APPLYING' as const, sendAt: at('2022-12-05T15:07:00+05:30'), version: 2 };
      await repo.putRelease(applying, 1);
      expect((await rawItem(local, 'order_3001', 'vendor_A'))?.dueSk).toEqual('2022-12-05T09:30:00.000Z');
      // Listed from its claimed send time (the caller checks sendAt, the deadline), with its deadline as stored.
      expect((await repo.listDue(at('2022-12-05T15:01:00+05:30'), 10)).map((r) => [r.state, r.sendAt])).toEqual([['APPLYING', '2022-12-05T15:07:00+05:30']]);

      // A failed send waits for its retry: the key moves to the retry time, so nothing lists it before.
      const retry = { ...applying, state: 'SCHEDULED' as const, sendAt: at('2022-12-05T18:00:00+05:30'), version: 3 };
      await repo.putRelease(retry, 2);
      expect((await rawItem(local, 'order_3001', 'vendor_A'))?.dueSk).toEqual('2022-12-05T12:30:00.000Z');
      expect(await repo.listDue(at('2022-12-05T17:59:00+05:30'), 10)).toEqual([]);

      // Sent: out of the index.
      await repo.putRelease({ ...retry, state: 'APPLIED', sendAt: null, releaseKey: null, appliedEligibility: at('2022-12-05T19:00:00+05:30'), version: 4 }, 3);
      expect((await rawItem(local, 'order_3001', 'vendor_A'))?.dueSk).toBeUndefined();
      expect(await repo.listDue(at('2022-12-06T00:00:00+05:30'), 10)).toEqual([]);

      // A writer that does not know the stored key (another process) keys a claim by its deadline: later, never missed.
      const other = release({ orderId: 'order_3002', vendorId: 'vendor_A', releaseKey: 'rel-2' });
      await repo.putRelease(other, null);
      await new DynamoOrderRepository(local.doc, local.tables.orders).putRelease({ ...other, state: 'APPLYING', sendAt: at('2022-12-05T15:07:00+05:30'), version: 2 }, 1);
      expect((await rawItem(local, 'order_3002', 'vendor_A'))?.dueSk).toEqual('2022-12-05T09:37:00.000Z');
    });
  });

  test('a release item keeps neither its ids, nor its nulls, nor what settling kept, and reads back as the same release', async () => {
    await withLocalDynamo(async (local) => {
      const repo = new DynamoOrderRepository(local.doc, local.tables.orders);
      const settled: VendorRelease = release({
        orderId: 'order_3003', vendorId: 'vendor_A', state: 'SETTLED', sendAt: null,
        appliedEligibility: at('2022-12-05T16:00:00+05:30'), predictedSettlement: at('2022-12-06T11:00:00+05:30'), settledAt: at('2022-12-06T11:00:00+05:30'),
        settledFrom: { state: 'APPLIED', appliedEligibility: at('2022-12-05T16:00:00+05:30'), predictedSettlement: at('2022-12-06T11:00:00+05:30') },
        // Optional fields: null ones come back null, absent ones absent.
        holdReason: null, manual: null, sending: null,
      });
      await repo.putRelease(settled, null);
      const item = (await rawItem(local, 'order_3003', 'vendor_A'))!;
      for (const name of ['orderId', 'vendorId', 'sendAt', 'releaseKey', 'clamp', 'holdReason', 'manual', 'sending']) expect(item).not.toHaveProperty(name);
      expect(item.settledFrom).toEqual({ state: 'APPLIED' });
      expect(await repo.getRelease('order_3003', 'vendor_A')).toEqual(settled);
      const back = (await repo.loadOrder('order_3003')).releases[0];
      expect(back).toEqual(settled);
      expect(back).not.toHaveProperty('settlementMismatch');
      expect(back).toHaveProperty('holdReason', null);

      // What settling changed is kept (a settlement reported while nothing was applied, say).
      const early = release({
        orderId: 'order_3004', vendorId: 'vendor_A', state: 'SETTLED', sendAt: null, appliedEligibility: null, settledAt: at('2022-12-06T11:00:00+05:30'),
        predictedSettlement: at('2022-12-06T11:00:00+05:30'), settledFrom: { state: 'SCHEDULED', appliedEligibility: null, predictedSettlement: null },
      });
      await repo.putRelease(early, null);
      expect((await rawItem(local, 'order_3004', 'vendor_A'))?.settledFrom).toEqual({ state: 'SCHEDULED', predictedSettlement: null });
      expect(await repo.getRelease('order_3004', 'vendor_A')).toEqual(early);

      // An item written before (ids and nulls stored) reads as it did.
      await local.doc.put({ TableName: local.tables.orders, Item: { pk: 'ORDER#order_3005', sk: 'VENDOR#vendor_A', ...release({ orderId: 'order_3005', vendorId: 'vendor_A', holdReason: null }) } });
      expect(await repo.getRelease('order_3005', 'vendor_A')).toEqual(release({ orderId: 'order_3005', vendorId: 'vendor_A', holdReason: null }));
    });
  });

  test('a planning read asks for the settings, policies, holds and open-order policies consistently, in one call', async () => {
    await withLocalDynamo(async (local) => {
      const { reads, recording } = recordingBatchGets(local.doc);
      await local.doc.put({ TableName: local.tables.config, Item: { pk: 'POLICY#vendor_B', sk: 'HOLD', vendorId: 'vendor_B', held: true, actor: 'risk', reason: 'review', at: '2022-12-01T10:00:00+05:30' } });
      const reader = new DynamoConfigReader(recording, local.tables.config, clock);
      const hot = await reader.forPlanning(['vendor_A', 'vendor_B']);
      expect(hot.holds.get('vendor_B')).toMatchObject({ held: true });
      expect(hot.holds.get('vendor_A')).toBeNull();
      // The open orders' policy with the holds: an apply to open orders is in force from its answer (contract 6.3). The
      // settings and policies ride in the same consistent call.
      expect(reads).toEqual([{
        keys: ['POLICY#vendor_A/CURRENT', 'POLICY#vendor_A/HOLD', 'POLICY#vendor_A/OPEN_ORDERS', 'POLICY#vendor_B/CURRENT', 'POLICY#vendor_B/HOLD',
          'POLICY#vendor_B/OPEN_ORDERS', 'SETTINGS/CURRENT'],
        consistent: true,
      }]);
      reads.length = 0;
      // Another read reads again (the stamp is not armed here: nothing is kept; config-stamp.test.ts keeps).
      await reader.forPlanning(['vendor_A']);
      expect(reads).toEqual([{ keys: ['POLICY#vendor_A/CURRENT', 'POLICY#vendor_A/HOLD', 'POLICY#vendor_A/OPEN_ORDERS', 'SETTINGS/CURRENT'], consistent: true }]);
    });
  });

  test('config reads asked in one turn (the invocations a container runs at once) share one call, each after its caller asked', async () => {
    await withLocalDynamo(async (local) => {
      const { reads, recording } = recordingBatchGets(local.doc);
      const holds = new DynamoHoldRepository(recording, local.tables.config);
      const reader = new DynamoConfigReader(recording, local.tables.config, clock);
      // Written just before the reads are asked: every one of them sees it.
      await holds.put({ vendorId: 'vendor_B', held: true, actor: 'risk', reason: 'review', at: Instant.parse('2022-12-01T10:00:00+05:30', 'at') });
      const [one, two, hold, person] = await Promise.all([
        reader.forPlanning(['vendor_A', 'vendor_B']),
        reader.forPlanning(['vendor_B', 'vendor_C']),
        holds.get('vendor_B'),
        reader.forPlanning(['vendor_D']),
      ]);
      expect([one, two].map((c) => [...c.holds].map(([vendorId, h]) => [vendorId, h?.held ?? null]))).toEqual([
        [['vendor_A', null], ['vendor_B', true]], [['vendor_B', true], ['vendor_C', null]],
      ]);
      expect(hold).toMatchObject({ held: true, reason: 'review' });
      expect([...person.policies.keys()]).toEqual(['vendor_D']);
      expect(reads).toEqual([{
        keys: ['POLICY#vendor_A/CURRENT', 'POLICY#vendor_A/HOLD', 'POLICY#vendor_A/OPEN_ORDERS', 'POLICY#vendor_B/CURRENT', 'POLICY#vendor_B/HOLD',
          'POLICY#vendor_B/OPEN_ORDERS', 'POLICY#vendor_C/CURRENT', 'POLICY#vendor_C/HOLD', 'POLICY#vendor_C/OPEN_ORDERS', 'POLICY#vendor_D/CURRENT',
          'POLICY#vendor_D/HOLD', 'POLICY#vendor_D/OPEN_ORDERS', 'SETTINGS/CURRENT'],
        consistent: true,
      }]);
      // A hold stored after that turn is seen by the next read (the stamp not armed here: nothing is kept between turns).
      await holds.put({ vendorId: 'vendor_B', held: false, actor: 'risk', reason: 'cleared', at: Instant.parse('2022-12-01T11:00:00+05:30', 'at') });
      expect((await reader.forPlanning(['vendor_B'])).holds.get('vendor_B')).toMatchObject({ held: false });
    });
  });
});

describe('DynamoRejectedEventRepository', () => {
  test('in order of arrival (newest first), whatever their times say; retries stored once; details kept verbatim, huge ones truncated', async () => {
    await withLocalDynamo(async (local) => {
      const repo = new DynamoRejectedEventRepository(local.doc, local.tables.rejected);
      const base = { source: 'marketplace.orders', detailType: 'order.paid', reasons: ['orderId: is missing; send 3 to 45 characters'] };
      await repo.add({ ...base, id: 'r1', at: at('2022-12-02T16:00:00+05:30'), detail: { amount: 12.345678901234567, note: '' } });
      await repo.add({ ...base, id: 'r2', at: at('2022-12-02T11:00:00Z'), detail: ['not', 'an', 'object'] }); // 16:30 India
      await repo.add({ ...base, id: 'r3', at: at('2022-12-02T16:10:00+05:30'), detail: null, source: null, detailType: null });
      // The same event again (a retry): listed once.
      await repo.add({ ...base, id: 'r2', at: at('2022-12-02T11:00:00Z'), detail: ['not', 'an', 'object'] });
      // Arrived last although its time is the earliest (another container's clock, or the event's own time).
      await repo.add({ ...base, id: 'r4', at: at('2022-12-01T00:00:00+05:30'), detail: { blob: 'x'.repeat(MAX_DETAIL_CHARS + 10) } });

      const all = await repo.page({ limit: 10 });
      expect(all.items.map((r) => [r.id, r.sequence])).toEqual([['r4', 4], ['r3', 3], ['r2', 2], ['r1', 1]]);
      expect(all.count).toBe(4);
      expect(all.next).toBeNull();
      expect(all.items[3].detail).toEqual({ amount: 12.345678901234567, note: '' });
      expect(all.items[1]).toEqual({ sequence: 3, id: 'r3', at: '2022-12-02T16:10:00+05:30', source: null, detailType: null, reasons: base.reasons, detail: null });
      expect(all.items[0].detail).toMatchObject({ truncated: true });

      const first = await repo.page({ limit: 3 });
      expect(first.items.map((r) => r.id)).toEqual(['r4', 'r3', 'r2']);
      expect(first.next).not.toBeNull();
      const second = await repo.page({ limit: 3, after: first.next });
      expect(second.items.map((r) => r.id)).toEqual(['r1']);
      expect(second.next).toBeNull();
      expect(second.count).toBe(4);
    });
  });
});
