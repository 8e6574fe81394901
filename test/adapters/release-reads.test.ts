/** The read side's indexes against a real dynalite: kept by the release writes, queried by outcomes, forecasts and vendors. */
import { DynamoOrderRepository } from '../../functions/adapters/dynamodb/order-repository';
import { DynamoPolicyRepository } from '../../functions/adapters/dynamodb/policy-repository';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { APPLIED_INDEX, LEGACY_PLAN_INDEX, OPEN_INDEX, PLAN_INDEX, OPEN_SHARDS, PAID_INDEX, SETTLED_INDEX, WIDE_PLAN_INDEX, createTableInputs } from '../../functions/definitions/tables';
import type { OutcomeFilter } from '../../functions/application/ports';
import type { OrderRecord, VendorRelease } from '../../functions/domain/types';
import { order, release } from './release-fixtures';
import { startLocalDynamo, type LocalDynamo } from './local-dynamodb';
import { at } from '../times';
import { isUnsent } from '../../functions/domain/release';
import { backfillIndexKeys } from '../../functions/adapters/dynamodb/backfill/index-backfill';

let dynamo: LocalDynamo;
let orders: DynamoOrderRepository;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  orders = new DynamoOrderRepository(dynamo.doc, dynamo.tables.orders);
});
afterAll(() => dynamo.close());

/** Writes the order and its releases as the use cases do: the order record, then each release from version 1. */
async function paid(o: OrderRecord, overrides: Record<string, Partial<VendorRelease>> = {}): Promise<VendorRelease[]> {
  await orders.createOrder(o);
  const written: VendorRelease[] = [];
  for (const { vendorId } of o.vendors) {
    const r = release(o, vendorId, overrides[vendorId]);
    await orders.putRelease(r, null);
    written.push(r);
  }
  return written;
}

/**
 * A release as a preview reads it: the fields that can change a preview's answer (open-index-counts.ts PREVIEW_FIELDS),
 * the others a release always has null, no attempts.
 */
function previewView(r: VendorRelease): VendorRelease {
  return {
    orderId: r.orderId, vendorId: r.vendorId, amount: r.amount, currency: r.currency, state: r.state, holdReason: r.holdReason ?? null,
    reasonCode: r.reasonCode, rule: r.rule, scheduleOption: r.scheduleOption, manual: r.manual ?? null, transactionTime: r.transactionTime,
    maxEligibility: r.maxEligibility, targetEligibility: r.targetEligibility, version: r.version,
    sendAt: null, releaseKey: null, appliedEligibility: null, predictedSettlement: null, clamp: null, reason: null, settledAt: null, attempts: [],
  } as unknown as VendorRelease;
}

async function all(filter: OutcomeFilter, after: string | null = null): Promise<string[]> {
  const rows: string[] = [];
  for await (const row of orders.reads.outcomes(filter, after)) rows.push(`${row.release.orderId}/${row.release.vendorId}`);
  return rows;
}

test('the orders table has the due index and the four read-side indexes, sparse and narrow; the vendor index is gone', () => {
  const [table] = createTableInputs();
  expect(table.GlobalSecondaryIndexes?.map((i) => [i.IndexName, i.Projection?.ProjectionType, i.Projection?.NonKeyAttributes ?? []])).toEqual([
    ['due', 'KEYS_ONLY', []],
    [OPEN_INDEX.name, 'INCLUDE', ['amount', 'currency']],
    [PAID_INDEX.name, 'INCLUDE', ['vendors']],
    [APPLIED_INDEX.name, 'KEYS_ONLY', []],
    [SETTLED_INDEX.name, 'KEYS_ONLY', []],
    [PLAN_INDEX.name, 'INCLUDE', [...PLAN_INDEX.include]],
  ]);
  // The planning index has keys of its own (sparse: only unsent releases carry them); the legacy one is gone.
  const plan = table.GlobalSecondaryIndexes!.find((i) => i.IndexName === PLAN_INDEX.name)!;
  expect(plan.KeySchema).toEqual([{ AttributeName: PLAN_INDEX.pk, KeyType: 'HASH' }, { AttributeName: PLAN_INDEX.sk, KeyType: 'RANGE' }]);
  expect(table.GlobalSecondaryIndexes!.map((i) => i.IndexName)).not.toContain(LEGACY_PLAN_INDEX.name);
  expect(table.GlobalSecondaryIndexes!.map((i) => i.IndexName)).not.toContain(WIDE_PLAN_INDEX.name);
  // Narrow: what can change a preview's answer, not every planning field as the index before it projected.
  expect([...PLAN_INDEX.include].sort()).toEqual(['amount', 'currency', 'holdReason', 'manual', 'reasonCode', 'rule', 'scheduleOption', 'state', 'targetEligibility', 'transactionTime', 'version']);
  expect(WIDE_PLAN_INDEX.include).toEqual(expect.arrayContaining([...PLAN_INDEX.include]));
});

describe('outcomes through the indexes', () => {
  // India months: 1 Dec 02:00 India time is still 30 Nov in UTC; it belongs to December.
  const a = order('order_r1', '2022-12-01T02:00:00+05:30', ['ven_b', 'ven_a']);
  const b = order('order_r2', '2022-11-30T23:00:00+05:30', ['ven_a']);
  const c = order('order_r3', '2022-12-02T16:00:00+05:30', ['ven_a', 'ven_c']);

  beforeAll(async () => {
    await paid(a);
    // Paid a day earlier: first in the open index, which is ordered by maximum eligibility.
    await paid(b, { ven_a: { targetEligibility: at('2022-12-04T10:00:00+05:30'), sendAt: at('2022-12-04T09:00:00+05:30') } });
    const [applied] = await paid(c);
    // The release of order_r3 / ven_a is applied, then settled: each write keeps its indexes.
    const appliedRelease = { ...applied, state: 'APPLIED' as const, sendAt: null, releaseKey: null, appliedEligibility: at('2022-12-05T16:00:00+05:30'), predictedSettlement: at('2022-12-06T11:00:00+05:30'), version: 2 };
    await orders.putRelease(appliedRelease, 1);
    await orders.putRelease({ ...appliedRelease, state: 'SETTLED', settledAt: at('2022-12-06T11:00:00+05:30'), version: 3 }, 2);
  });

  // By transaction time (order, filters, India months): test/contracts/orders-and-release-reads.test.ts, for this
  // adapter and the fake alike.

  test('by applied eligibility and by settlement time: only the releases that have one', async () => {
    expect(await all({ by: 'applied' })).toEqual(['order_r3/ven_a']);
    expect(await all({ by: 'settled', from: at('2022-12-06T11:00:00+05:30'), to: at('2022-12-06T11:00:00+05:30') })).toEqual(['order_r3/ven_a']);
    expect(await all({ by: 'settled', to: at('2022-12-06T10:59:59+05:30') })).toEqual([]);
    expect(await all({ by: 'settled', vendorId: 'ven_c' })).toEqual([]);
  });

  test('one order: read from its own partition, filtered alike', async () => {
    expect(await all({ by: 'transaction', orderId: 'order_r1' })).toEqual(['order_r1/ven_a', 'order_r1/ven_b']);
    expect(await all({ by: 'transaction', orderId: 'order_r1', vendorId: 'ven_b' })).toEqual(['order_r1/ven_b']);
    expect(await all({ by: 'settled', orderId: 'order_r1' })).toEqual([]);
  });

  test('a position resumes exactly after the row it names, inside an order too', async () => {
    const rows: string[] = [];
    for await (const row of orders.reads.outcomes({ by: 'transaction' }, null)) rows.push(row.position);
    expect(await all({ by: 'transaction' }, rows[1])).toEqual(['order_r1/ven_b', 'order_r3/ven_a', 'order_r3/ven_c']);
    expect(await all({ by: 'transaction' }, rows[4])).toEqual([]);
  });

  test('each row carries its order (currency, vendors)', async () => {
    for await (const row of orders.reads.outcomes({ by: 'transaction', orderId: 'order_r3' }, null)) {
      expect(row.order).toMatchObject({ orderId: 'order_r3', currency: 'INR' });
      expect(row.order).not.toHaveProperty(PAID_INDEX.pk);
    }
  });

  test('open releases leave the open index once settled; totals are summed from the index alone', async () => {
    expect(await orders.reads.openTotals('ven_a')).toEqual([{ currency: 'INR', count: 2, amount: '201.00' }]);
    expect(await orders.reads.openTotals('ven_c')).toEqual([{ currency: 'INR', count: 1, amount: '100.50' }]);
    expect(await orders.reads.openTotals('ven_nobody')).toEqual([]);
    const open: string[] = [];
    for await (const row of orders.reads.openReleases('ven_a', { from: at('2022-12-01T00:00:00+05:30'), to: at('2022-12-31T00:00:00+05:30') })) open.push(row.release.orderId);
    expect(open).toEqual(['order_r2', 'order_r1']);
    const everyOpen: string[] = [];
    for await (const row of orders.reads.openReleases('ven_a')) everyOpen.push(row.release.orderId);
    expect(everyOpen).toEqual(['order_r2', 'order_r1']);
  });

  test('the vendors seen in orders, and in policies, listed by id in pages', async () => {
    const policies = new DynamoPolicyRepository(dynamo.doc, dynamo.tables.config, orders.reads.directory);
    await policies.save({ vendorId: 'ven_policy_only', version: 1, scheduleOption: 2, release: { kind: 'immediate' }, actor: 'ops', reason: 'set', at: at('2022-12-01T10:00:00+05:30') });
    expect(await orders.reads.vendors(null, 10)).toEqual({ vendorIds: ['ven_a', 'ven_b', 'ven_c', 'ven_policy_only'], more: false });
    expect(await orders.reads.vendors(null, 2)).toEqual({ vendorIds: ['ven_a', 'ven_b'], more: true });
    expect(await orders.reads.vendors('ven_b', 2)).toEqual({ vendorIds: ['ven_c', 'ven_policy_only'], more: false });
    expect(await orders.reads.knowsVendor('ven_policy_only')).toBe(true);
    expect(await orders.reads.knowsVendor('ven_never')).toBe(false);
  });
});

describe('the open index, ordered by maximum eligibility (issue 11)', () => {
  test('its key is set once: a target set later (a delivery) does not move it; a range keeps every release whose window meets it', async () => {
    // Transaction 1 Dec, max 16 Dec: waiting for its delivery, then a target of 3 Dec.
    const o = order('order_open1', '2022-12-01T10:00:00+05:30', ['ven_open']);
    const [waiting] = await paid(o, { ven_open: { state: 'WAITING', targetEligibility: null, sendAt: null } });
    const key = async () => (await dynamo.doc.get({ TableName: dynamo.tables.orders, Key: { pk: 'ORDER#order_open1', sk: 'VENDOR#ven_open' } }))?.[OPEN_INDEX.sk];
    expect(await key()).toBe('2022-12-16T04:30:00.000Z#order_open1');
    await orders.putRelease({ ...waiting, state: 'SCHEDULED', targetEligibility: at('2022-12-03T16:00:00+05:30'), sendAt: at('2022-12-03T15:00:00+05:30'), version: 2 }, 1);
    expect(await key()).toBe('2022-12-16T04:30:00.000Z#order_open1');
    // Another, paid 10 Dec (max 25 Dec), target 12 Dec.
    await paid(order('order_open2', '2022-12-10T10:00:00+05:30', ['ven_open']), { ven_open: { targetEligibility: at('2022-12-12T10:00:00+05:30') } });

    const open = async (from: string, to: string) => {
      const ids: string[] = [];
      for await (const row of orders.reads.openReleases('ven_open', { from: at(from), to: at(to) })) ids.push(row.release.orderId);
      return ids;
    };
    // Windows: [1 Dec, 16 Dec] and [10 Dec, 25 Dec]. Wherever a release's money lands (its target, or its max
    // eligibility when a dispute or a hold keeps it) lies in its window, so a range reads every window it meets.
    expect(await open('2022-12-02T00:00:00+05:30', '2022-12-04T00:00:00+05:30')).toEqual(['order_open1']);
    expect(await open('2022-12-15T00:00:00+05:30', '2022-12-20T00:00:00+05:30')).toEqual(['order_open1', 'order_open2']);
    expect(await open('2022-12-17T00:00:00+05:30', '2022-12-20T00:00:00+05:30')).toEqual(['order_open2']);
    expect(await open('2022-12-01T00:00:00+05:30', '2022-12-31T00:00:00+05:30')).toEqual(['order_open1', 'order_open2']);

    // An item the previous version wrote, keyed by its eligibility (3 Dec), is still found by a range around it.
    const item = (await dynamo.doc.get({ TableName: dynamo.tables.orders, Key: { pk: 'ORDER#order_open1', sk: 'VENDOR#ven_open' } }))!;
    await dynamo.doc.put({ TableName: dynamo.tables.orders, Item: { ...item, [OPEN_INDEX.sk]: '2022-12-03T10:30:00.000Z#order_open1' } });
    expect(await open('2022-12-02T00:00:00+05:30', '2022-12-04T00:00:00+05:30')).toEqual(['order_open1']);
    expect(await open('2022-12-15T00:00:00+05:30', '2022-12-20T00:00:00+05:30')).toEqual(['order_open2']);
  });
});

describe('open totals per currency, never guessed (issue 19)', () => {
  test('a release written before it kept its currency takes its order\'s; one with neither is reported naming it', async () => {
    // Written without `currency` on the release (as releases were before it was kept there): the order says USD.
    const usd = { ...order('order_legacy_usd', '2022-12-01T10:00:00+05:30', ['ven_legacy']), currency: 'USD' };
    await paid(usd);
    await paid(order('order_legacy_inr', '2022-12-01T11:00:00+05:30', ['ven_legacy']), { ven_legacy: { currency: 'INR' } });
    expect(await orders.reads.openTotals('ven_legacy')).toEqual([
      { currency: 'INR', count: 1, amount: '100.50' }, { currency: 'USD', count: 1, amount: '100.50' },
    ]);
    // The order record is read only for the release that lacks its currency (an export reads one item a row, not two).
    const rows = [];
    for await (const row of orders.reads.outcomes({ by: 'transaction', vendorId: 'ven_legacy' }, null)) rows.push(row);
    expect(rows.map((r) => [r.release.orderId, r.release.currency ?? null, r.order?.currency ?? null])).toEqual([
      ['order_legacy_usd', null, 'USD'], ['order_legacy_inr', 'INR', null],
    ]);
    // The order record lost its currency too: a defect, named, not counted as INR.
    const meta = (await dynamo.doc.get({ TableName: dynamo.tables.orders, Key: { pk: 'ORDER#order_legacy_usd', sk: 'META' } }))!;
    delete meta.currency;
    await dynamo.doc.put({ TableName: dynamo.tables.orders, Item: meta });
    await expect(orders.reads.openTotals('ven_legacy')).rejects.toThrow('release order_legacy_usd/ven_legacy has no currency stored, nor has its order');
  });
});

describe('one vendor on every order: the open index spread over OPEN_SHARDS partitions (issue 17 item 6)', () => {
  test('its releases land in every shard; reads fan out over them (and the pre-shard key) in one order; previews read narrow', async () => {
    const vendorId = 'ven_hot';
    const count = 40;
    for (let i = 0; i < count; i += 1) {
      await paid(order(`order_hot${String(i).padStart(3, '0')}`, `2022-12-01T10:${String(i).padStart(2, '0')}:00+05:30`, [vendorId]), {
        [vendorId]: { currency: 'INR', attempts: i === 0 ? [{ at: '2022-12-01T10:00:00+05:30', status: 500, message: 'x'.repeat(50) } as never] : [] },
      });
    }
    // A release written before the shards: its entry under OPEN#<vendorId> is still read.
    const legacy = (await dynamo.doc.get({ TableName: dynamo.tables.orders, Key: { pk: 'ORDER#order_hot039', sk: `VENDOR#${vendorId}` } }))!;
    await dynamo.doc.put({ TableName: dynamo.tables.orders, Item: { ...legacy, [OPEN_INDEX.pk]: `OPEN#${vendorId}` } });

    const shards = new Set<string>();
    for (let i = 0; i < count; i += 1) {
      const item = (await dynamo.doc.get({ TableName: dynamo.tables.orders, Key: { pk: `ORDER#order_hot${String(i).padStart(3, '0')}`, sk: `VENDOR#${vendorId}` } }))!;
      shards.add(item[OPEN_INDEX.pk] as string);
    }
    expect(shards.size).toBe(OPEN_SHARDS + 1);
    for (const pk of shards) expect(pk).toMatch(new RegExp(`^OPEN#${vendorId}(#[0-${OPEN_SHARDS - 1}])?$`));

    const expected = Array.from({ length: count }, (_, i) => `order_hot${String(i).padStart(3, '0')}`);
    const everyOpen: string[] = [];
    for await (const row of orders.reads.openReleases(vendorId)) everyOpen.push(row.release.orderId);
    expect(everyOpen).toEqual(expected);
    // Pages of 7 across the partitions: each order once, in the index's order, the last page saying so.
    const paged: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 20; pages += 1) {
      const page: { orderIds: string[]; next: string | null } = await orders.reads.openOrderIds(vendorId, after, 7);
      paged.push(...page.orderIds);
      if (page.next === null) break;
      after = page.next;
    }
    expect(paged).toEqual(expected);
    expect(await orders.reads.openTotals(vendorId)).toEqual([{ currency: 'INR', count, amount: '4020.00' }]);
    // Counted up to a bound (a preview's inline threshold), exactly while at most the bound, as bound + 1 above it.
    expect(await orders.reads.openCountUpTo(vendorId, 1000)).toBe(count);
    expect(await orders.reads.openCountUpTo(vendorId, count)).toBe(count);
    expect(await orders.reads.openCountUpTo(vendorId, count - 1)).toBe(count);
    expect(await orders.reads.openCountUpTo(vendorId, 5)).toBe(6);
    expect(await orders.reads.openCountUpTo('ven_nobody', 5)).toBe(0);
    // The ends of the open index (what a previewId checks): the same until an order of the vendor comes.
    const ends = await orders.reads.openEnds(vendorId);
    expect(ends.split('|')).toHaveLength(2 * (OPEN_SHARDS + 1));
    expect(await orders.reads.openEnds(vendorId)).toBe(ends);
    expect(await orders.reads.openEnds('ven_nobody')).toBe('|'.repeat(2 * (OPEN_SHARDS + 1) - 1));

    // The planning read: the same releases, in the same order, as a preview reads them (no gateway answers).
    const planned = await orders.reads.openReleasesToPlan(vendorId);
    expect(planned.map((r) => r.orderId)).toEqual(expected);
    const full = (await orders.getRelease('order_hot000', vendorId))!;
    expect(full.attempts).toHaveLength(1);
    expect(planned[0]).toEqual(previewView(full));
    // Exactly: the maximum eligibility from the sort key, in the order's India time, and nothing left undefined.
    expect(planned[0].maxEligibility.ms).toBe(full.maxEligibility.ms);
    expect(planned[0].maxEligibility.offset).toBe(full.maxEligibility.offset);
    expect(Object.values(planned[0]).filter((v) => v === undefined)).toEqual([]);
    // Read from the planning index's partitions (one query each), not item by item.
    const queries: string[] = [];
    const asked: string[][] = [];
    const answered: string[] = [];
    const query = dynamo.doc.query.bind(dynamo.doc);
    dynamo.doc.query = async (input) => {
      queries.push(String(input.IndexName));
      asked.push(String(input.ProjectionExpression).split(', ').map((name) => input.ExpressionAttributeNames![name.trim()]));
      const page = await query(input);
      for (const item of page.items) answered.push(...Object.keys(item));
      return page;
    };
    try {
      expect(await orders.reads.openReleasesToPlan(vendorId)).toEqual(planned);
    } finally {
      dynamo.doc.query = query;
    }
    expect(queries).toEqual(Array(OPEN_SHARDS + 1).fill(PLAN_INDEX.name));
    // Narrow: each entry's sort key (its order and order id) and the planning fields; never the table's keys, the
    // partition key the read already knows, nor the gateway's answers.
    for (const names of asked) expect(new Set(names)).toEqual(new Set([PLAN_INDEX.sk, ...PLAN_INDEX.include]));
    expect(answered.length).toBeGreaterThan(0);
    for (const name of ['pk', 'sk', PLAN_INDEX.pk, 'attempts', OPEN_INDEX.pk]) expect(answered).not.toContain(name);

    // Before its upgrade stage adds the index, the same read answers the same from the open index and the items.
    const [withoutPlan] = createTableInputs({ ...dynamo.tables, orders: `${dynamo.tables.orders}-before-plan` });
    await dynamo.client.send(new CreateTableCommand({ ...withoutPlan, GlobalSecondaryIndexes: withoutPlan.GlobalSecondaryIndexes!.filter((i) => i.IndexName !== PLAN_INDEX.name) }));
    for (const orderId of expected) {
      const item = (await dynamo.doc.get({ TableName: dynamo.tables.orders, Key: { pk: `ORDER#${orderId}`, sk: `VENDOR#${vendorId}` } }))!;
      await dynamo.doc.put({ TableName: withoutPlan.TableName!, Item: item });
    }
    const before = new DynamoOrderRepository(dynamo.doc, withoutPlan.TableName!);
    expect(await before.reads.openReleasesToPlan(vendorId)).toEqual(planned);
    expect(await before.reads.openReleasesToPlan(vendorId)).toEqual(planned);

    await paid(order('order_hot900', '2022-12-02T10:00:00+05:30', [vendorId]), { [vendorId]: { currency: 'INR', attempts: [] } });
    expect(await orders.reads.openEnds(vendorId)).not.toBe(ends);
  });
});

describe('the sparse planning index (issue 18 item 5: its entry only while a release waits to be sent)', () => {
  /** An orders table of an upgrade stage: this version's indexes and an earlier planning index beside them. */
  const stagedTable = async (suffix: string, earlier: typeof LEGACY_PLAN_INDEX | typeof WIDE_PLAN_INDEX): Promise<string> => {
    const [staged] = createTableInputs({ ...dynamo.tables, orders: `${dynamo.tables.orders}-${suffix}` });
    await dynamo.client.send(new CreateTableCommand({
      ...staged,
      GlobalSecondaryIndexes: [...staged.GlobalSecondaryIndexes!, {
        IndexName: earlier.name,
        KeySchema: [{ AttributeName: earlier.pk, KeyType: 'HASH' }, { AttributeName: earlier.sk, KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...earlier.include] },
      }],
    }));
    return staged.TableName!;
  };
  const planKeys = async (table: string, orderId: string, vendorId: string) => {
    const item = (await dynamo.doc.get({ TableName: table, Key: { pk: `ORDER#${orderId}`, sk: `VENDOR#${vendorId}` } }))!;
    return [item[PLAN_INDEX.pk], item[PLAN_INDEX.sk]];
  };

  test('an unsent release carries the keys; its claim removes them, and the planning read leaves it out as before', async () => {
    const vendorId = 'ven_sparse';
    const [waiting] = await paid(order('order_sparse1', '2022-12-01T10:00:00+05:30', [vendorId]));
    const [claimed] = await paid(order('order_sparse2', '2022-12-01T11:00:00+05:30', [vendorId]));
    const openKeys = async (orderId: string) => {
      const item = (await dynamo.doc.get({ TableName: dynamo.tables.orders, Key: { pk: `ORDER#${orderId}`, sk: `VENDOR#${vendorId}` } }))!;
      return [item[OPEN_INDEX.pk], item[OPEN_INDEX.sk]];
    };
    expect(await planKeys(dynamo.tables.orders, 'order_sparse1', vendorId)).toEqual(await openKeys('order_sparse1'));
    await orders.putRelease({ ...claimed, state: 'APPLYING', version: 2 }, 1);
    expect(await planKeys(dynamo.tables.orders, 'order_sparse2', vendorId)).toEqual([undefined, undefined]);
    // Still open (its money is not settled): in the open index, out of the planning one.
    expect(await openKeys('order_sparse2')).not.toContain(undefined);
    expect((await orders.reads.openReleasesToPlan(vendorId)).map((r) => r.orderId)).toEqual([waiting.orderId]);
    // Held again after the claim (a hold read after it): back in the planning index.
    await orders.putRelease({ ...claimed, state: 'HELD', sendAt: null, holdReason: 'vendor_hold', version: 3 }, 2);
    expect((await orders.reads.openReleasesToPlan(vendorId)).map((r) => r.orderId)).toEqual(['order_sparse1', 'order_sparse2']);
  });

  test('an item written by the version before (legacy planning index, no plan keys) is read, and planned from the legacy index until the backfill fills the new one', async () => {
    const vendorId = 'ven_upgrade';
    // The table of the upgrade stage that holds both planning indexes.
    const table = await stagedTable('staged', LEGACY_PLAN_INDEX);
    const repo = new DynamoOrderRepository(dynamo.doc, table);
    const o = order('order_upgrade1', '2022-12-01T10:00:00+05:30', [vendorId]);
    await repo.createOrder(o);
    const r = release(o, vendorId, { currency: 'INR' });
    await repo.putRelease(r, null);
    // As the version before wrote it: the same attributes without the plan keys.
    const item = (await dynamo.doc.get({ TableName: table, Key: { pk: 'ORDER#order_upgrade1', sk: `VENDOR#${vendorId}` } }))!;
    delete item[PLAN_INDEX.pk];
    delete item[PLAN_INDEX.sk];
    await dynamo.doc.put({ TableName: table, Item: item });
    expect(await repo.getRelease('order_upgrade1', vendorId)).toEqual(r);
    expect(await repo.reads.openReleasesToPlan(vendorId)).toEqual([previewView(r)]);
    // The backfill gives it the keys this version writes; a container that knows only the new index then finds it.
    const result = await backfillIndexKeys(dynamo.doc, table);
    expect(result.updated).toBeGreaterThanOrEqual(1);
    expect(await planKeys(table, 'order_upgrade1', vendorId)).toEqual([item[OPEN_INDEX.pk], item[OPEN_INDEX.sk]]);
    const [upgraded] = createTableInputs({ ...dynamo.tables, orders: `${dynamo.tables.orders}-upgraded` });
    await dynamo.client.send(new CreateTableCommand(upgraded));
    for (const copy of (await dynamo.doc.scan({ TableName: table })).items) await dynamo.doc.put({ TableName: upgraded.TableName!, Item: copy });
    const after = new DynamoOrderRepository(dynamo.doc, upgraded.TableName!);
    expect(await after.reads.openReleasesToPlan(vendorId)).toEqual([previewView(r)]);
  });

  test('the upgrade to the narrow planning index: the wide one is read while it exists, and the narrow one gives the same answer', async () => {
    const vendorId = 'ven_narrow';
    // The table of the upgrade stage that holds both: planByVendor (every planning field) and unsentByVendor.
    const table = await stagedTable('narrowing', WIDE_PLAN_INDEX);
    const repo = new DynamoOrderRepository(dynamo.doc, table);
    const written: VendorRelease[] = [];
    for (const [i, state] of (['SCHEDULED', 'HELD', 'AT_MAX', 'WAITING'] as const).entries()) {
      const o = order(`order_narrow${i}`, `2022-12-0${i + 1}T10:00:00+05:30`, [vendorId]);
      await repo.createOrder(o);
      const r = release(o, vendorId, {
        currency: 'INR', state,
        ...(state === 'HELD' ? { holdReason: 'dispute' as const, reasonCode: 'dispute' as const, sendAt: null } : {}),
        ...(state === 'AT_MAX' ? { rule: { kind: 'at_max' as const }, reasonCode: 'at_max_rule' as const, sendAt: null } : {}),
        ...(state === 'WAITING' ? { rule: { kind: 'after_delivery' as const, delay: 'P2D' }, targetEligibility: null, sendAt: null, reasonCode: 'waiting_delivery' as const } : {}),
      });
      await repo.putRelease(r, null);
      written.push(r);
    }
    const queried: string[] = [];
    const query = dynamo.doc.query.bind(dynamo.doc);
    dynamo.doc.query = async (input) => {
      queried.push(String(input.IndexName));
      return query(input);
    };
    try {
      const wide = await repo.reads.openReleasesToPlan(vendorId);
      expect(wide).toEqual(written.map(previewView));
      // The legacy openPlanByVendor is missing (one query), then the wide index answers: the new one may still be filling.
      expect(queried.filter((name) => name !== LEGACY_PLAN_INDEX.name)).toEqual(Array(OPEN_SHARDS + 1).fill(WIDE_PLAN_INDEX.name));
      // The last stage drops the wide index: the narrow one, filled from the same keys, answers the same.
      const [narrowed] = createTableInputs({ ...dynamo.tables, orders: `${dynamo.tables.orders}-narrowed` });
      await dynamo.client.send(new CreateTableCommand(narrowed));
      for (const copy of (await dynamo.doc.scan({ TableName: table })).items) await dynamo.doc.put({ TableName: narrowed.TableName!, Item: copy });
      const after = new DynamoOrderRepository(dynamo.doc, narrowed.TableName!);
      queried.length = 0;
      expect(await after.reads.openReleasesToPlan(vendorId)).toEqual(wide);
      expect(queried.filter((name) => name === PLAN_INDEX.name)).toHaveLength(OPEN_SHARDS + 1);
      // An entry written before releases kept their reason code (AT_MAX: by its rule or not?) is read by key, words and all.
      const item = (await dynamo.doc.get({ TableName: narrowed.TableName!, Key: { pk: 'ORDER#order_narrow2', sk: `VENDOR#${vendorId}` } }))!;
      delete item.reasonCode;
      // Its words say the window closed: no longer unsent by its rule, which only the words tell.
      item.reason = 'window closed';
      await dynamo.doc.put({ TableName: narrowed.TableName!, Item: item });
      // A SCHEDULED one without its code is planned the same whatever its words: not read again.
      const scheduled = (await dynamo.doc.get({ TableName: narrowed.TableName!, Key: { pk: 'ORDER#order_narrow0', sk: `VENDOR#${vendorId}` } }))!;
      delete scheduled.reasonCode;
      await dynamo.doc.put({ TableName: narrowed.TableName!, Item: scheduled });
      const keysRead: string[] = [];
      const batchGet = dynamo.doc.batchGet.bind(dynamo.doc);
      dynamo.doc.batchGet = async (table, keys, ...rest) => {
        keysRead.push(...keys.map((key) => String(key.pk)));
        return batchGet(table, keys, ...rest);
      };
      const reread = await after.reads.openReleasesToPlan(vendorId).finally(() => { dynamo.doc.batchGet = batchGet; });
      expect(keysRead).toEqual(['ORDER#order_narrow2']);
      expect(reread[0]).toEqual({ ...wide[0], reasonCode: undefined });
      expect(reread.map((r) => r.orderId)).toEqual(written.map((r) => r.orderId));
      expect(reread[2]).toEqual({ ...wide[2], reasonCode: 'window_closed' });
      expect(reread.filter(isUnsent).map((r) => r.orderId)).toEqual(['order_narrow0', 'order_narrow1', 'order_narrow3']);
    } finally {
      dynamo.doc.query = query;
    }
  });
});
