/**
 * The contract of the JobRepository port, run alike against the in-memory fake the use-case tests rely on and the
 * DynamoDB adapter on a real dynalite: each step counted once however often it is recorded, the end once, newest first.
 */
import { DynamoJobRepository, JOB_FAILURES_KEPT } from '../../functions/adapters/dynamodb/job-repository';
import type { JobRepository, StoredJob } from '../../functions/application/ports';
import { newJobId } from '../../functions/application/start-job';
import { InMemoryJobRepository } from '../fakes/jobs';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { at } from '../times';

jest.setTimeout(60_000);

const SUBJECTS: Subjects<{ jobs: JobRepository }> = [
  ['the in-memory fake', inMemory(() => ({ jobs: new InMemoryJobRepository() }))],
  ['the DynamoDB adapter', onDynalite((local) => ({ jobs: new DynamoJobRepository(local.doc, local.tables.config) }))],
];

const jobOf = (kind: StoredJob['kind'] = 'vendor_hold'): StoredJob => ({
  jobId: newJobId(), kind, state: 'queued', total: 0, done: 0, failed: 0, actor: 'risk@example.com', createdAt: at('2022-12-02T16:05:00+05:30'),
  finishedAt: null, error: null, result: null, params: { vendorId: 'vendor_a' }, failures: [], expected: ['vendor_a:0'], finished: [],
});

describeEachSubject(SUBJECTS, (subject) => {

  test('the failures named are the first JOB_FAILURES_KEPT; later steps add their counts only, so the item stays small', async () => {
    const { jobs } = subject();
    const job = jobOf();
    await jobs.create(job);
    const failure = (n: number) => ({ orderId: `order_${n}`, vendorId: 'vendor_a', reason: 'ERROR 400: refused' });
    for (let step = 0; step < 4; step += 1) {
      await jobs.stepRead(job.jobId, `vendor_a:${step}`, 60, []);
      await jobs.stepDone(job.jobId, `vendor_a:${step}`, { done: 0, failed: 60, failures: Array.from({ length: 60 }, (_, i) => failure(step * 60 + i)) });
    }
    const read = await jobs.get(job.jobId);
    expect(read).toMatchObject({ total: 240, done: 0, failed: 240 });
    expect(read!.failures.map((f) => f.orderId)).toEqual(Array.from({ length: JOB_FAILURES_KEPT }, (_, i) => `order_${i}`));
  });

  test('a step read or finished twice counts once; the job is complete when finished holds every expected step; it ends once', async () => {
    const { jobs } = subject();
    {
      const job = jobOf();
      await jobs.create(job);
      await expect(jobs.create(job)).rejects.toThrow();
      expect(await jobs.stepRead(job.jobId, 'vendor_a:0', 100, ['vendor_a:1'])).toBe(true);
      expect(await jobs.stepRead(job.jobId, 'vendor_a:0', 100, ['vendor_a:1'])).toBe(false);
      expect(await jobs.get(job.jobId)).toMatchObject({ state: 'running', total: 100, expected: expect.arrayContaining(['vendor_a:0', 'vendor_a:1']) });
      const failure = { orderId: 'order_1', vendorId: 'vendor_a', reason: 'VersionConflictError: moved meanwhile' };
      expect(await jobs.stepDone(job.jobId, 'vendor_a:0', { done: 99, failed: 1, failures: [failure] })).toMatchObject({ done: 99, failed: 1, failures: [failure] });
      expect(await jobs.stepDone(job.jobId, 'vendor_a:0', { done: 99, failed: 1, failures: [failure] })).toBeNull();
      await jobs.stepRead(job.jobId, 'vendor_a:1', 20, []);
      const last = await jobs.stepDone(job.jobId, 'vendor_a:1', { done: 20, failed: 0, failures: [] });
      expect(last).toMatchObject({ total: 120, done: 119, failed: 1 });
      expect([...last!.finished].sort()).toEqual([...last!.expected].sort());
      expect(await jobs.finish(job.jobId, { state: 'succeeded', at: at('2022-12-02T16:06:00+05:30'), error: null, result: null })).toBe(true);
      expect(await jobs.finish(job.jobId, { state: 'failed', at: at('2022-12-02T16:07:00+05:30'), error: 'late', result: null })).toBe(false);
      // A step delivered after the end never makes the job running again.
      await jobs.stepRead(job.jobId, 'vendor_a:9', 1, []);
      expect(await jobs.get(job.jobId)).toMatchObject({ state: 'succeeded', finishedAt: '2022-12-02T16:06:00+05:30', error: null });
    }
  });

  test('jobs are listed newest first, filtered by state and kind, in pages', async () => {
    const { jobs } = subject();
    {
      const made = [jobOf('vendor_hold'), jobOf('outcomes_export'), jobOf('vendor_hold')];
      for (const job of made) await jobs.create(job);
      await jobs.finish(made[0].jobId, { state: 'succeeded', at: at('2022-12-02T16:06:00+05:30'), error: null, result: null });
      const first = await jobs.list({ limit: 2 });
      expect(first.items.map((j) => j.jobId)).toEqual([made[2].jobId, made[1].jobId]);
      expect((await jobs.list({ limit: 2, after: first.next })).items.map((j) => j.jobId)).toEqual([made[0].jobId]);
      expect((await jobs.list({ limit: 10, kind: 'vendor_hold' })).items.map((j) => j.jobId)).toEqual([made[2].jobId, made[0].jobId]);
      expect((await jobs.list({ limit: 10, state: 'succeeded' })).items.map((j) => j.jobId)).toEqual([made[0].jobId]);
    }
  });
});
