/**
 * The contracts of the SettingsRepository and PolicyRepository ports, run alike against the in-memory fakes the
 * use-case tests rely on and the DynamoDB adapters on a real dynalite: a fake that drifts from its adapter fails here.
 */
import { VersionConflictError, type Clock, type PolicyRepository, type SettingsRepository } from '../../functions/application/ports';
import { DynamoPolicyRepository } from '../../functions/adapters/dynamodb/policy-repository';
import { DynamoSettingsRepository } from '../../functions/adapters/dynamodb/settings-repository';
import { DEFAULT_SETTINGS } from '../../functions/domain/settings';
import type { VendorPolicy } from '../../functions/domain/types';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { InMemoryPolicyRepository, InMemorySettingsRepository } from '../fakes/repositories';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const clock: Clock = { now: () => Instant.parse('2022-12-02T10:35:00Z', 'now') };

const SUBJECTS: Subjects<{ settings: SettingsRepository; policies: PolicyRepository }> = [
  ['the in-memory fakes', inMemory(() => ({ settings: new InMemorySettingsRepository(clock), policies: new InMemoryPolicyRepository() }))],
  ['the DynamoDB adapters', onDynalite((local) => ({
    settings: new DynamoSettingsRepository(local.doc, local.tables.config, clock),
    policies: new DynamoPolicyRepository(local.doc, local.tables.config),
  }))],
];

const meta = (expectedVersion: number, reason: string) => ({ actor: 'finance@example.com', reason, at: at('2022-12-02T10:00:00+05:30'), expectedVersion });

const policy = (vendorId: string, version: number, scheduleOption: number): VendorPolicy => ({
  vendorId, version, scheduleOption, release: { kind: 'after_delivery', delay: 'P2D' },
  actor: 'ops@example.com', reason: `change ${version}`, at: at(`2022-12-0${version}T10:00:00+05:30`),
});

describeEachSubject(SUBJECTS, (subject) => {

  describe('SettingsRepository', () => {
    test('the defaults as version 0 (by "system", stamped in the settings\' zone) until a first save; no history', async () => {
      const initial = await subject().settings.get();
      expect(initial).toMatchObject({ ...DEFAULT_SETTINGS, version: 0, actor: 'system' });
      expect(initial.at).toEqual('2022-12-02T16:05:00+05:30');
      expect(await subject().settings.history()).toEqual([]);
    });

    test('each save is the next version, conditional on the latest; history newest first', async () => {
      const first = await subject().settings.save({ ...DEFAULT_SETTINGS, deferByDays: 15 }, meta(0, 'mirror dashboard'));
      const second = await subject().settings.save({ ...DEFAULT_SETTINGS, deferByDays: 20, holidays: ['2022-12-25'] }, meta(1, 'longer hold'));
      expect([first.version, second.version]).toEqual([1, 2]);
      expect(second).toMatchObject({ deferByDays: 20, holidays: ['2022-12-25'], actor: 'finance@example.com', reason: 'longer hold' });
      expect(await subject().settings.get()).toEqual(second);
      expect((await subject().settings.history()).map((s) => [s.version, s.deferByDays, s.reason])).toEqual([[2, 20, 'longer hold'], [1, 15, 'mirror dashboard']]);
    });

    test('a stale or future expected version conflicts and changes nothing', async () => {
      await subject().settings.save({ ...DEFAULT_SETTINGS, deferByDays: 15 }, meta(0, 'first'));
      await expect(subject().settings.save({ ...DEFAULT_SETTINGS }, meta(0, 'stale'))).rejects.toBeInstanceOf(VersionConflictError);
      await expect(subject().settings.save({ ...DEFAULT_SETTINGS }, meta(5, 'ahead'))).rejects.toBeInstanceOf(VersionConflictError);
      expect((await subject().settings.get()).version).toBe(1);
      expect(await subject().settings.history()).toHaveLength(1);
    });

    test('what a read hands back is a copy: changing it changes nothing stored', async () => {
      await subject().settings.save({ ...DEFAULT_SETTINGS, holidays: ['2022-12-25'] }, meta(0, 'holidays'));
      const read = await subject().settings.get();
      read.holidays.push('2022-12-26');
      expect((await subject().settings.get()).holidays).toEqual(['2022-12-25']);
    });
  });

  describe('PolicyRepository', () => {
    test('null and no history for a vendor without a stored policy', async () => {
      expect(await subject().policies.current('vendor_A')).toBeNull();
      expect(await subject().policies.history('vendor_A')).toEqual([]);
      expect(await subject().policies.version('vendor_A', 1)).toBeNull();
    });

    test('every version kept: the latest current, history newest first, any version by number', async () => {
      await subject().policies.save(policy('vendor_A', 1, 1));
      await subject().policies.save(policy('vendor_A', 2, 13));
      await subject().policies.save(policy('vendor_A', 3, 2));
      expect(await subject().policies.current('vendor_A')).toEqual(policy('vendor_A', 3, 2));
      expect((await subject().policies.history('vendor_A')).map((p) => p.version)).toEqual([3, 2, 1]);
      expect(await subject().policies.version('vendor_A', 2)).toEqual(policy('vendor_A', 2, 13));
      expect(await subject().policies.version('vendor_A', 9)).toBeNull();
    });

    test('a version already taken conflicts and leaves the stored one as it was', async () => {
      await subject().policies.save(policy('vendor_A', 1, 1));
      await expect(subject().policies.save(policy('vendor_A', 1, 5))).rejects.toBeInstanceOf(VersionConflictError);
      expect(await subject().policies.current('vendor_A')).toEqual(policy('vendor_A', 1, 1));
    });

    test('vendors are kept apart', async () => {
      await subject().policies.save(policy('vendor_A', 1, 1));
      await subject().policies.save(policy('vendor_B', 1, 13));
      expect((await subject().policies.current('vendor_B'))?.scheduleOption).toBe(13);
      expect(await subject().policies.history('vendor_A')).toEqual([policy('vendor_A', 1, 1)]);
    });
  });
});
