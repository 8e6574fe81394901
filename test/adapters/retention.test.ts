/** Retention (issue 11): HOLDBACK_RETENTION_DAYS read by the composition root, and `expiresAt` stamped only on what may expire. */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { buildDependencies, readRuntimeConfig, RuntimeConfigError } from '../../functions/composition-root';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import type { VendorRelease } from '../../functions/domain/types';
import { DEFAULT_AUDIT_TABLE_NAME, TTL_ATTRIBUTE } from '../../functions/definitions/tables';
import { RecordingLogger } from '../fakes/outside-world';
import { awsEnvironment } from './aws-environment';
import { withLocalDynamo, type LocalDynamo } from './local-dynamodb';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const RETENTION = '{"orders": 2922, "events": 400, "rejected": 90}';
const ENV = awsEnvironment('gw_secret_retention');
const clock = { now: () => Instant.parse('2022-12-05T10:00:00+05:30', 'now') };

/** The tables' environment for a dynalite, with the retention variable as given (undefined: unset). */
async function envFor(local: LocalDynamo, retention: string | undefined): Promise<Record<string, string | undefined>> {
  const endpoint = await local.client.config.endpoint!();
  return {
    ...ENV,
    AWS_ENDPOINT_URL_DYNAMODB: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`,
    HOLDBACK_ORDERS_TABLE: local.tables.orders,
    HOLDBACK_CONFIG_TABLE: local.tables.config,
    HOLDBACK_REJECTED_TABLE: local.tables.rejected,
    HOLDBACK_RETENTION_DAYS: retention,
  };
}

async function scan(local: LocalDynamo, table: string): Promise<Record<string, unknown>[]> {
  const out = await local.client.send(new ScanCommand({ TableName: table }));
  return (out.Items ?? []).map((item) => unmarshall(item));
}

const release: VendorRelease = {
  orderId: 'order_ttl', vendorId: 'vendor_ttl', amount: '1234.50', state: 'SCHEDULED', policyVersion: 1,
  rule: { kind: 'after_payment', delay: 'P3D' }, scheduleOption: 1,
  transactionTime: at('2022-12-02T16:00:00+05:30'), maxEligibility: at('2022-12-17T16:00:00+05:30'),
  targetEligibility: at('2022-12-05T16:00:00+05:30'), sendAt: at('2022-12-05T15:00:00+05:30'), releaseKey: null,
  appliedEligibility: null, predictedSettlement: null, clamp: null, attempts: [], reason: null, settledAt: null,
  version: 1, updatedAt: at('2022-12-02T16:05:00+05:30'),
};

/** Writes one of every kind of item through the dependencies the composition root builds from `env`. */
async function writeOneOfEach(env: Record<string, string | undefined>): Promise<void> {
  const deps = buildDependencies(readRuntimeConfig(env), { clock, logger: new RecordingLogger(), sendsToGateway: false });
  await deps.orders.createOrder({
    orderId: release.orderId, transactionTime: release.transactionTime, maxEligibility: release.maxEligibility, deferByDays: 15,
    currency: 'INR', vendors: [{ vendorId: release.vendorId, amount: release.amount }], recordedAt: at('2022-12-02T16:00:05+05:30'),
  });
  await deps.orders.putRelease(release, null);
  await deps.orders.recordEvent({
    orderId: release.orderId, key: 'order.delivered#1', receivedAt: at('2022-12-04T12:30:00+05:30'),
    event: { type: 'order.delivered', orderId: release.orderId, deliveredAt: at('2022-12-04T12:00:00+05:30') },
  });
  await deps.rejected.add({ id: 'rejected_1', at: at('2022-12-05T10:00:00+05:30'), source: 'marketplace.orders', detailType: 'order.paid', reasons: ['orderId: is missing'], detail: {} });
  await deps.settings.save(DEFAULT_SETTINGS, { actor: 'finance', reason: 'mirror', at: at('2022-12-05T10:00:00+05:30'), expectedVersion: 0 });
  await deps.policies.save({ vendorId: release.vendorId, version: 1, scheduleOption: 1, release: { kind: 'immediate' }, actor: 'finance', reason: 'set', at: at('2022-12-05T10:00:00+05:30') });
  await deps.holds.put({ vendorId: release.vendorId, held: true, actor: 'risk', reason: 'fraud review', at: at('2022-12-05T10:00:00+05:30') });
  await deps.audit.append([{ kind: 'hold', at: at('2022-12-05T10:00:00+05:30'), actor: 'risk', vendorId: release.vendorId, detail: { reason: 'fraud review' } }]);
}

describe('HOLDBACK_RETENTION_DAYS', () => {
  test('read as whole days per kind; unset means nothing expires; a malformed value is a named problem', () => {
    expect(readRuntimeConfig({ ...ENV, HOLDBACK_RETENTION_DAYS: RETENTION }).retentionDays)
      .toEqual({ orders: 2922, events: 400, rejected: 90 });
    expect(readRuntimeConfig(ENV).retentionDays).toEqual({});
    for (const [value, problem] of [
      ['400', /HOLDBACK_RETENTION_DAYS is 400; set it to a JSON object of whole days/],
      ['{orders: 1}', /HOLDBACK_RETENTION_DAYS is not JSON/],
      ['{"orders": 0}', /HOLDBACK_RETENTION_DAYS\.orders is 0; set it to/],
      ['{"orders": "2922"}', /HOLDBACK_RETENTION_DAYS\.orders is "2922"/],
      ['{"audit": 30}', /HOLDBACK_RETENTION_DAYS names "audit", which is no kind of record that may expire/],
    ] as const) {
      let error: unknown;
      try {
        readRuntimeConfig({ ...ENV, HOLDBACK_RETENTION_DAYS: value });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RuntimeConfigError);
      expect((error as RuntimeConfigError).problems).toEqual([expect.stringMatching(problem)]);
    }
  });

  test('orders, releases, events and rejected events carry the right expiry; config and audit items none; read back without it', async () => {
    await withLocalDynamo(async (local) => {
      await writeOneOfEach(await envFor(local, RETENTION));
      const orders = await scan(local, local.tables.orders);
      const expiry = (sk: string): unknown => orders.find((item) => item.pk === 'ORDER#order_ttl' && item.sk === sk)?.[TTL_ATTRIBUTE];
      // 2022-12-02T10:30:00Z (the transaction time) + 2922 days = 2030-12-02T10:30:00Z.
      expect(expiry('META')).toBe(1922437800);
      expect(expiry('VENDOR#vendor_ttl')).toBe(1922437800);
      // Received 2022-12-04T07:00:00Z + 400 days = 2024-01-08T07:00:00Z.
      expect(expiry('EVENT#order.delivered#1')).toBe(1704697200);
      // The read side's directory lists what exists: it is kept.
      expect(orders.filter((item) => !String(item.pk).startsWith('ORDER#')).every((item) => !(TTL_ATTRIBUTE in item))).toBe(true);

      // At 2022-12-05T04:30:00Z + 90 days = 2023-03-05T04:30:00Z: the rejected event and its id marker, not the counter.
      const rejected = await scan(local, local.tables.rejected);
      expect(rejected.filter((item) => item.pk !== 'REJECTED_COUNT').map((item) => item[TTL_ATTRIBUTE])).toEqual([1677990600, 1677990600]);
      expect(rejected.find((item) => item.pk === 'REJECTED_COUNT')).not.toHaveProperty(TTL_ATTRIBUTE);

      const config = await scan(local, local.tables.config);
      const audit = await scan(local, DEFAULT_AUDIT_TABLE_NAME);
      expect(config.length).toBeGreaterThanOrEqual(3);
      expect(audit.length).toBeGreaterThan(0);
      for (const item of [...config, ...audit]) expect({ pk: item.pk, sk: item.sk, expiresAt: item[TTL_ATTRIBUTE] }).toEqual({ pk: item.pk, sk: item.sk, expiresAt: undefined });

      // The stamp is storage's: records read back are as written.
      const deps = buildDependencies(readRuntimeConfig(await envFor(local, RETENTION)), { clock, logger: new RecordingLogger(), sendsToGateway: false });
      const loaded = await deps.orders.loadOrder('order_ttl');
      expect(loaded.releases).toEqual([release]);
      expect(loaded.order).not.toHaveProperty(TTL_ATTRIBUTE);
      expect(loaded.events[0]).not.toHaveProperty(TTL_ATTRIBUTE);
      expect((await deps.reads.openReleases(release.vendorId)[Symbol.asyncIterator]().next()).value.release).toEqual(release);
    });
  });

  test('without the variable (local runs) nothing is stamped', async () => {
    await withLocalDynamo(async (local) => {
      await writeOneOfEach(await envFor(local, undefined));
      for (const table of [local.tables.orders, local.tables.rejected, local.tables.config, DEFAULT_AUDIT_TABLE_NAME]) {
        const items = await scan(local, table);
        expect(items.length).toBeGreaterThan(0);
        expect(items.filter((item) => TTL_ATTRIBUTE in item)).toEqual([]);
      }
    });
  });
});
