/**
 * Contract 6.3 on the embedded default: a preview over more open releases than one answer carries answers
 * `202 {job}`; the job's result is the preview, and its previewId works with the PUT as any other. The threshold is
 * set low by configuration (HOLDBACK_PREVIEW_INLINE_RELEASES, here the runtime's option), not by a huge seed. A job is
 * cancelled by POST /jobs/{jobId}/cancel.
 */
import { jobEnded, seedOrders } from './job-helpers';
import { startHarness, type Harness } from '../harness';

jest.setTimeout(240_000);

const BIG = 'vendor_wide';
const SMALL = 'vendor_few';
/** Open releases a preview answers in its own answer at most, in this test. */
const INLINE = 5;
const CANDIDATE = { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' } };

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ previewInlineReleases: INLINE });
  await h.setPolicy(BIG, { kind: 'after_payment', delay: 'P1D' });
  await h.setPolicy(SMALL, { kind: 'after_payment', delay: 'P1D' });
  await seedOrders(h, BIG, 12, 'wide');
  await seedOrders(h, SMALL, 3, 'few');
});

afterAll(async () => {
  await h?.close();
});

test('a policy preview over more than the threshold answers 202 {job}; the job result is the preview, and its previewId works with the PUT', async () => {
  const started = await h.api('POST', `/vendors/${BIG}/policy/preview`, { ...CANDIDATE, actor: 'finance@example.com' });
  expect(started.status).toBe(202);
  expect(started.body.job).toMatchObject({ kind: 'policy_preview', actor: 'finance@example.com', params: { vendorId: BIG }, result: null });
  const job = await jobEnded(h, started.body.job.jobId);
  expect(job).toMatchObject({ state: 'succeeded', total: 12, done: 12, failed: 0 });
  const preview = job.result;
  expect(preview).toMatchObject({ vendorId: BIG, fromVersion: 1, covered: 12, moved: 12, omitted: 0, previewId: expect.stringMatching(/^[0-9a-f]{32}$/) });
  expect(preview.releases).toHaveLength(12);
  expect(preview.releases[0]).toMatchObject({ current: { targetEligibility: '2022-12-03T16:05:00+05:30' }, candidate: { targetEligibility: '2022-12-05T16:05:00+05:30' } });
  expect(preview.perDay.length).toBeGreaterThan(0);

  // The small vendor is previewed in its answer, as before.
  const small = await h.api('POST', `/vendors/${SMALL}/policy/preview`, CANDIDATE);
  expect(small.status).toBe(200);
  expect(small.body).toMatchObject({ vendorId: SMALL, covered: 3 });

  const put = await h.api('PUT', `/vendors/${BIG}/policy`, { ...CANDIDATE, actor: 'finance@example.com', reason: 'slower', applyTo: 'open_orders', previewId: preview.previewId });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ version: 2, job: { kind: 'policy_apply' } });
  await jobEnded(h, put.body.job.jobId);
  // The same previewId again: what it showed no longer holds.
  const stale = await h.api('PUT', `/vendors/${BIG}/policy`, { ...CANDIDATE, actor: 'finance@example.com', reason: 'again', applyTo: 'open_orders', previewId: preview.previewId });
  expect(stale.status).toBe(409);
  expect(stale.body.error.code).toBe('preview_stale');
});

test('a settings preview over every vendor answers 202 {job} as well; a bad body is a 400 naming the field, and no job starts', async () => {
  const before = (await h.api('GET', '/jobs?limit=100')).body.items.length;
  const bad = await h.api('POST', '/settings/preview', { deferByDays: 'ten' });
  expect(bad.status).toBe(400);
  expect(bad.body.error.issues[0].field).toBe('deferByDays');
  expect((await h.api('POST', `/vendors/${BIG}/policy/preview`, { scheduleOption: 42, release: { kind: 'after_payment', delay: 'P3D' } })).status).toBe(400);
  expect((await h.api('GET', '/jobs?limit=100')).body.items.length).toBe(before);

  const started = await h.api('POST', '/settings/preview?limit=4', { deferByDays: 2 });
  expect(started.status).toBe(202);
  expect(started.body.job).toMatchObject({ kind: 'settings_preview', params: { limit: 4 } });
  const job = await jobEnded(h, started.body.job.jobId);
  expect(job.state).toBe('succeeded');
  expect(job.result).toMatchObject({ covered: 15, previewId: expect.any(String) });
  expect(job.result.releases.length).toBeLessThanOrEqual(4);
  expect((await h.api('GET', '/jobs?kind=settings_preview')).body.items.map((j: { jobId: string }) => j.jobId)).toEqual([job.jobId]);

  // The job's result is kept on its item (at most 400 KB): it lists at most 500 releases, whatever limit was asked.
  const wide = await h.api('POST', `/vendors/${BIG}/policy/preview?limit=5000`, CANDIDATE);
  expect([wide.status, wide.body.job.params.limit]).toEqual([202, 500]);
  const listed = await jobEnded(h, wide.body.job.jobId);
  expect(listed.result).toMatchObject({ covered: 12, omitted: 0 });
  expect(listed.result.releases).toHaveLength(12);
});

test('POST /jobs/{jobId}/cancel: an ended job is a 409; a bad id a 400; an unknown one a 404', async () => {
  const [ended] = (await h.api('GET', '/jobs?state=succeeded&limit=1')).body.items;
  const again = await h.api('POST', `/jobs/${ended.jobId}/cancel`, { actor: 'ops@example.com', reason: 'late' });
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ code: 'job_ended', message: expect.stringMatching(/has ended already \(succeeded\)/) });
  expect((await h.api('POST', '/jobs/nope/cancel')).status).toBe(400);
  expect((await h.api('POST', '/jobs/job_0000000000000_aaaaaaaaaa/cancel')).status).toBe(404);
});

const cli = (...argv: string[]) => h.cli(...argv);

test('the CLI waits for a preview that became a job and shows the preview; --no-wait prints the job; jobs cancel refuses an ended job', async () => {
  const waited = await cli('policy', 'preview', BIG, '--rule', 'after_payment', '--delay', 'P5D', '--schedule-option', '1', '--json');
  expect(waited.code).toBe(0);
  expect(JSON.parse(waited.out)).toMatchObject({ vendorId: BIG, covered: 12, previewId: expect.any(String) });
  const table = await cli('policy', 'preview', BIG, '--rule', 'after_payment', '--delay', 'P5D', '--schedule-option', '1');
  expect(table.out).toMatch(/apply exactly this preview with:\n {2}npx holdback policy set vendor_wide .*--preview-id [0-9a-f]{32}/);

  const noWait = await cli('settings', 'preview', 'deferByDays=3', '--no-wait');
  expect(noWait.code).toBe(0);
  const jobId = /job (job_\d{13}_[0-9a-z]{10}) /.exec(noWait.err)?.[1];
  expect(jobId).toBeDefined();
  expect(noWait.out).toMatch(/kind\s+settings_preview/);
  await jobEnded(h, jobId!);
  const cancelled = await cli('jobs', 'cancel', jobId!, '--actor', 'ops@example.com', '--reason', 'too late');
  expect([cancelled.code, cancelled.err]).toEqual([1, expect.stringMatching(/answered 409: job_ended: .*has ended already \(succeeded\)/)]);
});
