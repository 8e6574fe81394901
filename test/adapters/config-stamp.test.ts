/**
 * The config stamp on a real dynalite: two containers (each its own DynamoDB client, so its own kept config items)
 * share the config table; a change made through one is seen by the other's next read, a warm read is the stamp alone,
 * and a stamp that is not yet armed, or that a writer has marked, keeps nothing.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoConfigReader } from '../../functions/adapters/dynamodb/config-reader';
import { ABANDONED_AFTER_MS, ConfigItems, ConfigStamp, STAMP_KEY, armConfigStamp } from '../../functions/adapters/dynamodb/config-stamp';
import { DocumentClient, documentClientConfig } from '../../functions/adapters/dynamodb/document-client';
import { DynamoHoldRepository } from '../../functions/adapters/dynamodb/hold-repository';
import { gatheredGets, itemKeyText } from '../../functions/adapters/dynamodb/item-keys';
import { DynamoOpenOrderPolicyRepository } from '../../functions/adapters/dynamodb/open-order-policy-repository';
import { DynamoPolicyRepository } from '../../functions/adapters/dynamodb/policy-repository';
import { DynamoSettingsRepository } from '../../functions/adapters/dynamodb/settings-repository';
import { CURRENT_SK, policyPk } from '../../functions/adapters/dynamodb/versioned-items';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import type { Clock } from '../../functions/application/ports';
import { Instant } from '../../functions/domain/instant';
import { startLocalDynamo, type LocalDynamo } from './local-dynamodb';

const clock: Clock = { now: () => Instant.parse('2022-12-02T10:35:00Z', 'now') };
const at = Instant.parse('2022-12-02T16:05:00+05:30', 'at');

/** One container: its own client (so its own kept items), counting the DynamoDB operations it sends. */
async function container(local: LocalDynamo) {
  const endpoint = await local.client.config.endpoint!();
  const url = `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`;
  const client = new DynamoDBClient(documentClientConfig({ endpoint: url, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
  const sent: { operation: string; keys: number }[] = [];
  client.middlewareStack.add((next, context) => async (args) => {
    const input = args.input as { RequestItems?: Record<string, { Keys: unknown[] }> };
    const keys = input.RequestItems ? Object.values(input.RequestItems).reduce((n, r) => n + r.Keys.length, 0) : 1;
    sent.push({ operation: String(context.commandName).replace(/Command$/, ''), keys });
    return next(args);
  }, { step: 'initialize', name: 'countCalls' });
  const doc = new DocumentClient(client);
  const table = local.tables.config;
  return {
    sent,
    reader: new DynamoConfigReader(doc, table, clock),
    settings: new DynamoSettingsRepository(doc, table, clock),
    policies: new DynamoPolicyRepository(doc, table),
    holds: new DynamoHoldRepository(doc, table),
    openOrders: new DynamoOpenOrderPolicyRepository(doc, table),
    close: () => client.destroy(),
  };
}

const policy = (vendorId: string, version: number, delay: string) => ({
  vendorId, version, scheduleOption: 1, release: { kind: 'after_payment' as const, delay }, actor: 'finance@test', reason: 'stamp test', at,
});

/**
 * Reads v1's policy item, changes it to `version` behind the stamp's back (as only a writer of an older version would),
 * reads it again and puts version 1 back: answers what the second read saw (`version` when nothing was kept).
 */
async function readAfterChangeBehindTheStamp(local: LocalDynamo, items: ConfigItems, version: number): Promise<unknown> {
  const key = { pk: policyPk('v1'), sk: CURRENT_SK };
  await items.getMany([key]);
  await local.doc.put({ TableName: local.tables.config, Item: { ...key, version } });
  const seen = (await items.getMany([key])).get(itemKeyText(key))?.version;
  await local.doc.put({ TableName: local.tables.config, Item: { ...key, version: 1 } });
  return seen;
}

describe('config stamp: a warm container re-reads the config only after a change, and always sees it', () => {
  let local: LocalDynamo;
  beforeEach(async () => {
    local = await startLocalDynamo();
  });
  afterEach(async () => {
    await local.close();
  });

  it('a settings, policy, open-orders and hold change made through one container is seen by the other\'s next read', async () => {
    const a = await container(local);
    const b = await container(local);
    try {
      await armConfigStamp(local.doc, local.tables.config);
      await b.policies.save(policy('v1', 1, 'P1D'));
      // Warm: A reads, then reads again with nothing changed: the second read is the stamp alone, one GetItem.
      const first = await a.reader.forPlanning(['v1', 'v2']);
      expect(first.policies.get('v1')?.version).toBe(1);
      expect(first.holds.get('v1')).toBeNull();
      a.sent.length = 0;
      const warm = await a.reader.forPlanning(['v1', 'v2']);
      expect(a.sent).toEqual([{ operation: 'GetItem', keys: 1 }]);
      expect(warm.policies.get('v1')?.release).toEqual({ kind: 'after_payment', delay: 'P1D' });
      expect(await a.holds.get('v1')).toBeNull();

      // Each change through B, then A's next read.
      await b.settings.save({ ...DEFAULT_SETTINGS, deferByDays: 9 }, { actor: 'finance@test', reason: 'stamp test', at, expectedVersion: 0 });
      expect((await a.reader.forPlanning(['v1'])).settings.deferByDays).toBe(9);
      await b.policies.save(policy('v1', 2, 'P2D'));
      expect((await a.reader.forPlanning(['v1'])).policies.get('v1')?.release).toEqual({ kind: 'after_payment', delay: 'P2D' });
      await b.openOrders.put(policy('v1', 2, 'P2D'));
      expect((await a.reader.forPlanning(['v1'])).openOrderPolicies?.get('v1')?.version).toBe(2);
      await b.holds.put({ vendorId: 'v1', held: true, actor: 'risk@test', reason: 'fraud check', at, source: 'risk' } as never);
      expect((await a.reader.forPlanning(['v1'])).holds.get('v1')?.held).toBe(true);
      expect((await a.holds.get('v1'))?.held).toBe(true);
      await b.holds.put({ vendorId: 'v1', held: false, actor: 'risk@test', reason: 'cleared', at, source: 'risk' } as never);
      expect((await a.holds.get('v1'))?.held).toBe(false);

      // And warm again after them (the read of the hold alone kept the hold): the stamp alone.
      await a.reader.forPlanning(['v1']);
      a.sent.length = 0;
      expect((await a.reader.forPlanning(['v1'])).holds.get('v1')?.held).toBe(false);
      expect(a.sent).toEqual([{ operation: 'GetItem', keys: 1 }]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('what a reader changes in its answer never reaches the kept items', async () => {
    const a = await container(local);
    try {
      await armConfigStamp(local.doc, local.tables.config);
      await a.policies.save(policy('v1', 1, 'P1D'));
      const read = await a.reader.forPlanning(['v1']);
      (read.policies.get('v1')!.release as { delay: string }).delay = 'P9D';
      expect((await a.reader.forPlanning(['v1'])).policies.get('v1')?.release).toEqual({ kind: 'after_payment', delay: 'P1D' });
    } finally {
      a.close();
    }
  });

  it('a stamp not yet armed keeps nothing: every read reads the items, until ABANDONED_AFTER_MS after its first write', async () => {
    let now = 1_700_000_000_000;
    const stamp = new ConfigStamp(local.doc, local.tables.config, () => now);
    await stamp.change(() => local.doc.put({ TableName: local.tables.config, Item: { pk: policyPk('v1'), sk: CURRENT_SK, version: 1 } }));
    const items = new ConfigItems(gatheredGets(local.doc, local.tables.config), () => now);
    const cached = () => readAfterChangeBehindTheStamp(local, items, 7);
    expect(await cached()).toBe(7);
    now += ABANDONED_AFTER_MS - 1;
    expect(await cached()).toBe(7);
    now += 1;
    // Armed: the kept item answers (the write above skipped the stamp, as only an older writer would).
    expect(await cached()).toBe(1);
  });

  it('a writer that died between its marks stops keeping until its mark is abandoned; the next writer removes the mark', async () => {
    let now = 1_700_000_000_000;
    await armConfigStamp(local.doc, local.tables.config);
    const key = { pk: policyPk('v1'), sk: CURRENT_SK };
    const items = new ConfigItems(gatheredGets(local.doc, local.tables.config), () => now);
    // The first move and the write, then the writer is gone (its second move never runs).
    const died = new ConfigStamp(local.doc, local.tables.config, () => now);
    const lost = new Error('the container was lost');
    await died.change(async () => {
      await local.doc.put({ TableName: local.tables.config, Item: { ...key, version: 1 } });
      // The second move is a DynamoDB call that fails as the container goes away.
      local.doc.update = () => Promise.reject(lost);
    }).catch((error: unknown) => expect(error).toBe(lost));
    delete (local.doc as { update?: unknown }).update;
    const markOf = async () => Object.keys(await local.doc.get({ TableName: local.tables.config, Key: { ...STAMP_KEY }, ConsistentRead: true }) ?? {}).filter((name) => name.startsWith('w_'));
    expect(await markOf()).toHaveLength(1);
    const behindTheBack = () => readAfterChangeBehindTheStamp(local, items, 5);
    // Marked: a writer may still be writing, so nothing is kept.
    expect(await behindTheBack()).toBe(5);
    now += ABANDONED_AFTER_MS;
    expect(await behindTheBack()).toBe(1);
    // The next writer removes the abandoned mark.
    await new ConfigStamp(local.doc, local.tables.config, () => now).change(async () => undefined);
    expect(await markOf()).toEqual([]);
  });
});
