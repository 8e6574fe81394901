/**
 * Contract 6.3 and 6.2 on the embedded default (dynalite, the local edge's job queue, the jobs function): the audit
 * export and the audit verification run as several bounded steps when the log is larger than one step (steps set small
 * here: HOLDBACK_EXPORT_PART_ROWS 15), and their results are exactly those of the one-answer routes: the export's file
 * is GET /audit/export's bytes, the verification's result GET /audit/verify's answer, a tampered log included.
 */
import { createHash } from 'node:crypto';
import { startHarness, type Harness } from '../harness';
import { jobEnded, seedOrders } from './job-helpers';

jest.setTimeout(300_000);

const VENDOR = 'vendor_audit';
const PART_ROWS = 15;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ exportPartRows: PART_ROWS });
  await h.setPolicy(VENDOR, { kind: 'after_payment', delay: 'P1D' });
  await seedOrders(h, VENDOR, 60, 'aud');
});

afterAll(async () => {
  await h?.close();
});

/** The steps a job recorded (the stored job, which GET /jobs/{id} does not show). */
async function stepsOf(jobId: string): Promise<string[]> {
  return (await h.runtime.deps.jobs.get(jobId))!.finished;
}

test('the audit export is written in parts of bounded rows, and its file is GET /audit/export byte for byte', async () => {
  const started = await h.api('POST', '/exports', { kind: 'audit' });
  expect(started.status).toBe(202);
  const job = await jobEnded(h, started.body.job.jobId);
  expect(job).toMatchObject({ state: 'succeeded', failed: 0 });
  const text = await (await fetch(job.result.url)).text();
  const lines = text.trim().split('\n');
  expect(lines.length).toBe(job.result.rows);
  expect(job.total).toBe(job.result.rows);
  expect(Buffer.byteLength(text)).toBe(job.result.bytes);
  expect(createHash('sha256').update(text).digest('hex')).toBe(job.result.sha256);
  // Several parts of at most PART_ROWS lines each, then the file.
  const steps = await stepsOf(job.jobId);
  const parts = Math.ceil(lines.length / PART_ROWS);
  expect(parts).toBeGreaterThan(3);
  expect(steps.filter((s) => s.startsWith('part:')).length).toBeGreaterThanOrEqual(parts);
  expect(steps).toContain('file');
  // The one-answer export of the same log (the clock is frozen: the same header), and no line twice.
  const whole = await (await fetch(`${h.runtime.api.url}/audit/export`)).text();
  expect(text).toBe(whole);
  expect(new Set(lines).size).toBe(lines.length);
  expect(lines.filter((l) => JSON.parse(l).type === 'checkpoint').length).toBeGreaterThan(0);
  // A range export in parts is the range's one-answer export too.
  const ranged = await jobEnded(h, (await h.api('POST', '/exports', { kind: 'audit', from: '2022-12-01', to: '2022-12-31' })).body.job.jobId);
  expect(await (await fetch(ranged.result.url)).text()).toBe(await (await fetch(`${h.runtime.api.url}/audit/export?from=2022-12-01&to=2022-12-31`)).text());
});
