/**
 * The contract of the ConfigReader port (with the OpenOrderPolicyRepository it reads), run alike against the in-memory
 * fakes the use-case tests rely on and the DynamoDB adapters on a real dynalite: what planning reads for an order's
 * vendors, in one read, is what the repositories stored.
 */
import type { Clock, ConfigReader, OpenOrderPolicyRepository, PolicyRepository, SettingsRepository, VendorHoldRepository } from '../../functions/application/ports';
import { DynamoConfigReader } from '../../functions/adapters/dynamodb/config-reader';
import { DynamoHoldRepository } from '../../functions/adapters/dynamodb/hold-repository';
import { DynamoOpenOrderPolicyRepository } from '../../functions/adapters/dynamodb/open-order-policy-repository';
import { DynamoPolicyRepository } from '../../functions/adapters/dynamodb/policy-repository';
import { DynamoSettingsRepository } from '../../functions/adapters/dynamodb/settings-repository';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import type { VendorPolicy } from '../../functions/domain/types';
import {
  InMemoryConfigReader, InMemoryHoldRepository, InMemoryOpenOrderPolicyRepository, InMemoryPolicyRepository, InMemorySettingsRepository,
} from '../fakes/repositories';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const clock: Clock = { now: () => Instant.parse('2022-12-02T10:35:00Z', 'now') };

interface Ports {
  settings: SettingsRepository;
  policies: PolicyRepository;
  holds: VendorHoldRepository;
  openOrders: OpenOrderPolicyRepository;
  reader: ConfigReader;
}

const SUBJECTS: Subjects<Ports> = [
  ['the in-memory fakes', inMemory(() => {
    const settings = new InMemorySettingsRepository(clock);
    const policies = new InMemoryPolicyRepository();
    const holds = new InMemoryHoldRepository();
    const openOrders = new InMemoryOpenOrderPolicyRepository();
    return { settings, policies, holds, openOrders, reader: new InMemoryConfigReader(settings, policies, holds, openOrders) };
  })],
  ['the DynamoDB adapters', onDynalite(({ doc, tables: { config: table } }) => ({
    settings: new DynamoSettingsRepository(doc, table, clock),
    policies: new DynamoPolicyRepository(doc, table),
    holds: new DynamoHoldRepository(doc, table),
    openOrders: new DynamoOpenOrderPolicyRepository(doc, table),
    reader: new DynamoConfigReader(doc, table, clock),
  }))],
];

const policy = (vendorId: string, version: number, scheduleOption: number): VendorPolicy => ({
  vendorId, version, scheduleOption, release: { kind: 'after_delivery', delay: 'P2D' },
  actor: 'ops@example.com', reason: `change ${version}`, at: at(`2022-12-0${version}T10:00:00+05:30`),
});

describeEachSubject(SUBJECTS, (subject) => {

  test('nothing stored: the default settings (version 0) and, for every vendor asked for, no policy, no hold, no open orders\' policy', async () => {
    const config = await subject().reader.forPlanning(['vendor_a', 'vendor_b']);
    expect(config.settings).toMatchObject({ ...DEFAULT_SETTINGS, version: 0 });
    expect([...config.policies]).toEqual([['vendor_a', null], ['vendor_b', null]]);
    expect([...config.holds]).toEqual([['vendor_a', null], ['vendor_b', null]]);
    expect([...(config.openOrderPolicies ?? new Map([['vendor_a', null], ['vendor_b', null]]))]).toEqual([['vendor_a', null], ['vendor_b', null]]);
  });

  test('what was stored is read together: settings in force, each vendor\'s current policy, hold and newest open orders\' policy', async () => {
    await subject().settings.save({ ...DEFAULT_SETTINGS, deferByDays: 20 }, { actor: 'finance@example.com', reason: 'longer hold', at: at('2022-12-02T10:00:00+05:30'), expectedVersion: 0 });
    await subject().policies.save(policy('vendor_a', 1, 1));
    await subject().policies.save(policy('vendor_a', 2, 13));
    await subject().holds.put({ vendorId: 'vendor_b', held: true, actor: 'risk@example.com', reason: 'fraud review', at: at('2022-12-02T16:00:00+05:30') });
    await subject().openOrders.put(policy('vendor_a', 2, 13));
    // An older version put later does not replace the newer one (an apply's job that lost a race).
    await subject().openOrders.put(policy('vendor_a', 1, 1));
    // Read twice: the second answers the same (where a warm container keeps what it read, from its copy).
    for (let read = 0; read < 2; read += 1) {
      const config = await subject().reader.forPlanning(['vendor_a', 'vendor_b']);
      expect(config.settings).toMatchObject({ deferByDays: 20, version: 1 });
      expect(config.policies.get('vendor_a')).toEqual(policy('vendor_a', 2, 13));
      expect(config.policies.get('vendor_b')).toBeNull();
      expect(config.holds.get('vendor_a')).toBeNull();
      expect(config.holds.get('vendor_b')).toMatchObject({ held: true, reason: 'fraud review' });
      expect(config.openOrderPolicies?.get('vendor_a')).toMatchObject({ version: 2, scheduleOption: 13 });
      expect(config.openOrderPolicies?.get('vendor_b')).toBeNull();
    }
  });
});
