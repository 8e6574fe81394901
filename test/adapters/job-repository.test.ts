/** The open orders' policy store on dynalite (the job store's contract, fake and adapter alike: test/contracts/job-repository.test.ts). */
import { DynamoOpenOrderPolicyRepository } from '../../functions/adapters/dynamodb/open-order-policy-repository';
import { DynamoConfigReader } from '../../functions/adapters/dynamodb/config-reader';
import { FakeClock } from '../fakes/clock';
import { DynamoJobRepository, JOB_FAILURES_KEPT } from '../../functions/adapters/dynamodb/job-repository';
import { newJobId } from '../../functions/application/start-job';
import type { StoredJob } from '../../functions/application/ports';
import { withLocalDynamo } from './local-dynamodb';
import { at } from '../times';

jest.setTimeout(60_000);

test('the open orders\' policy keeps the newest version and is read consistently with the holds', async () => {
  await withLocalDynamo(async (local) => {
    const store = new DynamoOpenOrderPolicyRepository(local.doc, local.tables.config);
    const policy = (version: number) => ({ vendorId: 'vendor_a', version, scheduleOption: 1, release: { kind: 'immediate' as const }, actor: 'a', reason: 'r', at: at('2022-12-02T16:05:00+05:30') });
    await store.put(policy(3));
    await store.put(policy(2));
    const config = await new DynamoConfigReader(local.doc, local.tables.config, new FakeClock('2022-12-02T16:05:00+05:30')).forPlanning(['vendor_a', 'vendor_b']);
    expect(config.openOrderPolicies?.get('vendor_a')).toMatchObject({ version: 3 });
    expect(config.openOrderPolicies?.get('vendor_b')).toBeNull();
  });
});

test('a job with many failing releases keeps at most twice JOB_FAILURES_KEPT failures on its item (never near 400 KB)', async () => {
  await withLocalDynamo(async (local) => {
    const jobs = new DynamoJobRepository(local.doc, local.tables.config);
    const jobId = newJobId();
    await jobs.create({
      jobId, kind: 'vendor_hold', state: 'queued', total: 0, done: 0, failed: 0, actor: 'risk@example.com', createdAt: at('2022-12-02T16:05:00+05:30'),
      finishedAt: null, error: null, result: null, params: { vendorId: 'vendor_a' }, failures: [], expected: ['vendor_a:0'], finished: [],
    } satisfies StoredJob);
    for (let step = 0; step < 10; step += 1) {
      await jobs.stepRead(jobId, `vendor_a:${step}`, 100, []);
      const failures = Array.from({ length: 100 }, (_, i) => ({ orderId: `order_${step}_${i}`, vendorId: 'vendor_a', reason: 'ERROR 400: refused' }));
      await jobs.stepDone(jobId, `vendor_a:${step}`, { done: 0, failed: 100, failures });
    }
    const raw = await local.doc.get({ TableName: local.tables.config, Key: { pk: 'JOBS', sk: jobId }, ConsistentRead: true });
    expect((raw?.failures as unknown[]).length).toBeLessThanOrEqual(2 * JOB_FAILURES_KEPT);
    expect(await jobs.get(jobId)).toMatchObject({ failed: 1000 });
  });
});
