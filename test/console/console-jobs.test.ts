/**
 * The console's side of contract 6.3 in headless Chromium against the whole local stack: a preview over more releases
 * than one answer carries (threshold set low by configuration) is waited for as a job and shown as any preview; the
 * Jobs page lists jobs newest first with their state and progress, filtered, and cancels one that has not ended. The
 * Audit page waits for the verification job of a log longer than one answer verifies, and shows its result.
 */
import type { Browser } from 'playwright-core';
import { newJobId } from '../../functions/application/start-job';
import { seedOrders } from '../e2e/job-helpers';
import { startHarness, type Harness } from '../e2e/harness';
import { browserIt, consolePage, launchBrowser } from './browser';
import { at } from '../times';

const test = browserIt('console-jobs.test.ts');
let h: Harness;
let browser: Browser | null = null;
let consoleUrl: string;
const VENDOR = 'cv-jobs';

beforeAll(async () => {
  // Two open releases are more than one answer carries here: every preview of this vendor is a job; and so is the
  // verification of an audit log of more than one signed record.
  h = await startHarness({ previewInlineReleases: 1, auditVerifyInlineRecords: 1 });
  consoleUrl = `${h.runtime.api.url}/console`;
  browser = await launchBrowser();
  await h.setPolicy(VENDOR, { kind: 'after_payment', delay: 'P10D' });
  await seedOrders(h, VENDOR, 2, 'cjob');
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

test('a policy preview that became a job is shown once its job has run; the Jobs page lists it and cancels a queued job', async () => {
  // A job stored as queued whose step never comes (as if the queue were slow): it waits, so the page can cancel it.
  const waiting = newJobId();
  await h.runtime.deps.jobs.create({
    jobId: waiting, kind: 'vendor_hold', state: 'queued', total: 0, done: 0, failed: 0, actor: 'risk@example.com',
    createdAt: at('2022-12-02T16:05:00+05:30'), finishedAt: null, error: null, result: null, params: { vendorId: VENDOR, reason: 'test' },
    failures: [], expected: [`${VENDOR}:0`], finished: [],
  });
  const { context, page } = await consolePage(browser!, consoleUrl);
  try {
    await page.goto(`${consoleUrl}#/vendors/${VENDOR}`);
    await page.getByTestId('policy-kind').selectOption('after_payment');
    await page.getByTestId('policy-delay').fill('P3D');
    await page.getByTestId('policy-apply-to').selectOption('open_orders');
    await page.getByTestId('policy-reason').fill('faster');
    await page.getByTestId('policy-preview').click();
    const row = page.getByTestId('preview-cjob_000001');
    await row.waitFor({ timeout: 60_000 });
    expect(await row.getByTestId('candidate-target').textContent()).toBe('2022-12-05 16:05 IST (+05:30)');

    await page.goto(`${consoleUrl}#/jobs`);
    await page.getByRole('heading', { name: 'Jobs', level: 1 }).waitFor();
    const [previewJob] = (await h.api('GET', '/jobs?kind=policy_preview')).body.items;
    expect(previewJob.state).toBe('succeeded');
    await page.getByTestId(`job-state-${previewJob.jobId}`).getByText('succeeded').waitFor();
    // Newest first: the preview's job above the waiting one.
    const ids = await page.getByTestId('jobs-table').locator('tbody tr th').allTextContents();
    expect(ids.indexOf(previewJob.jobId)).toBeLessThan(ids.indexOf(waiting));
    await page.getByTestId('jobs-kind').selectOption('vendor_hold');
    await page.getByTestId(`job-${previewJob.jobId}`).waitFor({ state: 'detached' });
    await page.getByTestId(`cancel-${waiting}`).click();
    await page.getByTestId(`job-state-${waiting}`).getByText('cancelled').waitFor();
    expect((await h.api('GET', `/jobs/${waiting}`)).body).toMatchObject({ state: 'cancelled', error: 'cancelled by finance@test: cancelled in the console' });
    // Ended: no cancel button any more.
    expect(await page.getByTestId(`cancel-${waiting}`).count()).toBe(0);
  } finally {
    await context.close();
  }
});

test('the Audit page waits for the verification job of a long log and shows its result as the answer', async () => {
  const before = (await h.api('GET', '/jobs?kind=audit_verify&limit=100')).body.items.length;
  const { context, page } = await consolePage(browser!, consoleUrl);
  try {
    await page.goto(`${consoleUrl}#/audit`);
    const result = page.getByTestId('audit-result');
    await result.waitFor({ timeout: 60_000 });
    expect(await result.textContent()).toContain('Intact');
    const jobs = (await h.api('GET', '/jobs?kind=audit_verify&limit=100')).body.items;
    expect(jobs.length).toBeGreaterThan(before);
    expect(jobs[0]).toMatchObject({ state: 'succeeded', result: { ok: true, firstBroken: null } });
    expect(await page.getByTestId('audit-records').textContent()).toBe(String(jobs[0].result.records));
  } finally {
    await context.close();
  }
});
