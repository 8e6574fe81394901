/** The open orders' policy store on dynalite (the job store's contract, fake and adapter alike: test/contracts/job-repository.test.ts). */
import { DynamoOpenOrderPolicyRepository } from '../../functions/adapters/dynamodb/open-order-policy-repository';
import { DynamoConfigReader } from '../../functions/adapters/dynamodb/config-reader';
import { FakeClock } from '../fakes/clock';
import { withLocalDynamo } from './local-dynamodb';

jest.setTimeout(60_000);

test('the open orders\' policy keeps the newest version and is read consistently with the holds', async () => {
  await withLocalDynamo(async (local) => {
    const store = new DynamoOpenOrderPolicyRepository(local.doc, local.tables.config);
    const policy = (version: number) => ({ vendorId: 'vendor_a', version, scheduleOption: 1, release: { kind: 'immediate' as const }, actor: 'a', reason: 'r', at: '2022-12-02T16:05:00+05:30' });
    await store.put(policy(3));
    await store.put(policy(2));
    const config = await new DynamoConfigReader(local.doc, local.tables.config, new FakeClock('2022-12-02T16:05:00+05:30')).forPlanning(['vendor_a', 'vendor_b'], { eventual: true });
    expect(config.openOrderPolicies?.get('vendor_a')).toMatchObject({ version: 3 });
    expect(config.openOrderPolicies?.get('vendor_b')).toBeNull();
  });
});
