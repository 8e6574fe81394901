/**
 * Contract 6.3 on the embedded default: a vendor hold, unhold and a policy applied to open orders answer with a job
 * that runs through the local edge's job queue (the production SQS adapter and the jobs function), pages of the
 * vendor's open releases at a time, and is listed by GET /jobs.
 */
import { createHash } from 'node:crypto';
import { startHarness, type Harness } from '../harness';
import { jobEnded, seedOrders } from './job-helpers';

jest.setTimeout(240_000);

const VENDOR = 'vendor_big';
/** More than two pages of a walk (100 releases a step), so that steps open steps. */
const ORDERS = 230;

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.setPolicy(VENDOR, { kind: 'after_payment', delay: 'P1D' });
  await seedOrders(h, VENDOR, ORDERS);
});

afterAll(async () => {
  await h?.close();
});

async function statesOf(harness: Harness, vendorId: string): Promise<Map<string, number>> {
  const states = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const { body }: { body: { items: { state: string }[]; nextCursor: string | null } } = await harness.api('GET', `/outcomes?vendorId=${vendorId}&limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    for (const item of body.items) states.set(item.state, (states.get(item.state) ?? 0) + 1);
    cursor = body.nextCursor;
  } while (cursor);
  return states;
}

test('a hold answers with its job at once; the job shows every open release HELD, counting them; unhold plans them again', async () => {
  const held = await h.api('POST', `/vendors/${VENDOR}/hold`, { actor: 'risk@example.com', reason: 'fraud review' });
  expect(held.status).toBe(200);
  expect(held.body).toMatchObject({ vendorId: VENDOR, held: true, job: { kind: 'vendor_hold', actor: 'risk@example.com', jobId: expect.stringMatching(/^job_/) } });
  expect(['queued', 'running', 'succeeded']).toContain(held.body.job.state);
  const job = await jobEnded(h, held.body.job.jobId);
  expect(job).toMatchObject({ state: 'succeeded', total: ORDERS, done: ORDERS, failed: 0, error: null, failures: [] });
  expect(job.finishedAt).toMatch(/\+05:30$/);
  expect(await statesOf(h, VENDOR)).toEqual(new Map([['HELD', ORDERS]]));

  const unheld = await h.api('POST', `/vendors/${VENDOR}/unhold`, { actor: 'risk@example.com', reason: 'cleared' });
  expect(unheld.body.job).toMatchObject({ kind: 'vendor_unhold' });
  expect(await jobEnded(h, unheld.body.job.jobId)).toMatchObject({ state: 'succeeded', total: ORDERS, done: ORDERS });
  expect(await statesOf(h, VENDOR)).toEqual(new Map([['SCHEDULED', ORDERS]]));

  // GET /jobs: newest first, filtered by kind and state, in pages.
  const listed = await h.api('GET', '/jobs?limit=1');
  expect(listed.body.items.map((j: { jobId: string }) => j.jobId)).toEqual([unheld.body.job.jobId]);
  const next = await h.api('GET', `/jobs?limit=1&cursor=${listed.body.nextCursor}`);
  expect(next.body.items.map((j: { jobId: string }) => j.jobId)).toEqual([held.body.job.jobId]);
  expect((await h.api('GET', '/jobs?kind=vendor_hold')).body.items.map((j: { jobId: string }) => j.jobId)).toEqual([held.body.job.jobId]);
  expect((await h.api('GET', '/jobs?state=running')).body.items).toEqual([]);
  const bad = await h.api('GET', '/jobs?state=done&kind=x');
  expect(bad.status).toBe(400);
  expect(bad.body.error.message).toMatch(/state: is "done".*queued, running, succeeded, failed, cancelled/);
  expect((await h.api('GET', '/jobs/job_0000000000000_aaaaaaaaaa')).status).toBe(404);
  expect((await h.api('GET', '/jobs/nope')).status).toBe(400);
});

test('a policy applied to open orders plans every open release again under the new version, as a job', async () => {
  const put = await h.api('PUT', `/vendors/${VENDOR}/policy`, {
    scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, actor: 'finance@example.com', reason: 'slower', applyTo: 'open_orders',
  });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ version: 2, job: { kind: 'policy_apply', params: { vendorId: VENDOR, version: 2 } } });
  expect(await jobEnded(h, put.body.job.jobId)).toMatchObject({ state: 'succeeded', total: ORDERS, done: ORDERS, failed: 0 });
  const order = (await h.api('GET', '/orders/ord_000007')).body;
  expect(order.vendors[0]).toMatchObject({ state: 'SCHEDULED', policyVersion: 2, targetEligibility: '2022-12-05T16:05:00+05:30' });
  // Applied to new orders only: nothing remains to do, so no job.
  const newOnly = await h.api('PUT', `/vendors/${VENDOR}/policy`, { scheduleOption: 1, release: { kind: 'at_max' }, actor: 'finance@example.com', reason: 'new ones' });
  expect(newOnly.body).toMatchObject({ version: 3, job: null });
  // A vendor without open releases: nothing remains either.
  await h.setPolicy('vendor_empty', { kind: 'immediate' });
  expect((await h.api('POST', '/vendors/vendor_empty/hold', { actor: 'risk@example.com', reason: 'check' })).body.job).toBeNull();
});

describe('POST /exports', () => {
  test('outcomes as CSV: the file is GET /outcomes?format=csv exactly, with its SHA-256, rows and bytes; the link expires with a 410', async () => {
    const invocations = (name: 'jobs' | 'exportJobs') => h.runtime.lambdaUsage.get(name)?.invocations ?? 0;
    const before = { jobs: invocations('jobs'), exportJobs: invocations('exportJobs') };
    const started = await h.api('POST', '/exports', { kind: 'outcomes', format: 'csv', filters: { vendorId: VENDOR } });
    expect(started.status).toBe(202);
    expect(started.body.job).toMatchObject({ kind: 'outcomes_export', state: 'queued', result: null });
    const job = await jobEnded(h, started.body.job.jobId);
    // Its steps ran in the export-jobs function, from the export job queue, none in the jobs function.
    expect(invocations('exportJobs')).toBeGreaterThan(before.exportJobs);
    expect(invocations('jobs')).toBe(before.jobs);
    expect(job).toMatchObject({ state: 'succeeded', total: ORDERS, done: ORDERS, failed: 0 });
    const { url, expiresAt, rows, bytes, sha256 } = job.result;
    expect(rows).toBe(ORDERS);
    expect(Date.parse(expiresAt) - h.runtime.clock.now().toMillis()).toBeGreaterThanOrEqual(3_600_000);
    expect(url).toMatch(new RegExp(`^${h.runtime.api.url}/exports/${job.jobId}\\.csv\\?token=[A-Za-z0-9_-]{32}$`));
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await file.text();
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(createHash('sha256').update(text).digest('hex')).toBe(sha256);
    const streamed = await (await fetch(`${h.runtime.api.url}/outcomes?format=csv&vendorId=${VENDOR}`)).text();
    expect(text).toBe(streamed);
    // A wrong token is no file; an expired link is a 410 with a message, never part of the file.
    expect((await fetch(url.replace(/token=.*/, 'token=wrong'))).status).toBe(404);
    await h.advance('PT3H');
    const expired = await fetch(url);
    expect(expired.status).toBe(410);
    expect(((await expired.json()) as { error: unknown }).error).toMatchObject({ code: 'export_expired', message: expect.stringMatching(/expired at .*POST \/exports again/) });
  });

  test('outcomes as JSON lines, and the audit log; bad filters are a 400 naming the field before any job starts', async () => {
    const jsonl = await jobEnded(h, (await h.api('POST', '/exports', { kind: 'outcomes', format: 'jsonl', filters: { vendorId: VENDOR, state: 'SCHEDULED' } })).body.job.jobId);
    const lines = (await (await fetch(jsonl.result.url)).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(jsonl.result.rows);
    expect(lines[0]).toMatchObject({ vendorId: VENDOR, state: 'SCHEDULED', currency: 'INR' });

    const audit = await jobEnded(h, (await h.api('POST', '/exports', { kind: 'audit' })).body.job.jobId);
    const auditLines = (await (await fetch(audit.result.url)).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(auditLines.length).toBe(audit.result.rows);
    expect(auditLines.some((l) => l.type === 'record')).toBe(true);

    const before = (await h.api('GET', '/jobs?limit=100')).body.items.length;
    const bad = await h.api('POST', '/exports', { kind: 'outcomes', format: 'xml', filters: { state: 'DONE', cursor: 'x', from: 7 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i: { field: string }) => i.field).sort()).toEqual(['filters.cursor', 'filters.from', 'filters.state', 'format']);
    expect((await h.api('POST', '/exports', { kind: 'audit', from: '2022-13-45' })).body.error.issues[0].field).toBe('from');
    expect((await h.api('POST', '/exports', { kind: 'everything' })).body.error.issues[0].field).toBe('kind');
    expect((await h.api('GET', '/jobs?limit=100')).body.items.length).toBe(before);
  });
});
