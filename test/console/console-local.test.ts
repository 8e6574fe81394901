/** The web console in headless Chromium against the whole local stack: previews, holds, manual release, CSV, audit. */
import { readFileSync } from 'node:fs';
import { DeleteItemCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../functions/definitions/tables';
import { vendorOf } from '../e2e/harness';
import { jobEnded } from '../e2e/jobs/job-helpers';
import { browserIt, consolePage, consoleStack, screenshotPath } from './browser';

const test = browserIt('console-local.test.ts');
const stack = consoleStack();

/** A vendor at the gateway and one paid order of it, with Holdback told of the payment. */
async function paidOrder(vendorId: string, orderId: string, amount = 1000): Promise<string> {
  await stack.h.createVendors([{ id: vendorId, scheduleOption: 1 }]);
  const transactionTime = await stack.h.createPaidOrder(orderId, [{ vendorId, amount }]);
  await stack.h.send('order.paid', { orderId, transactionTime, vendors: [{ vendorId, amount }] });
  return transactionTime;
}

async function releaseOf(orderId: string, vendorId: string) {
  const order = await stack.h.api('GET', `/orders/${orderId}`);
  expect(order.status).toBe(200);
  return vendorOf(order.body, vendorId);
}

async function withPage(work: (page: Page) => Promise<void>): Promise<void> {
  const { context, page } = await consolePage(stack.browser!, stack.consoleUrl);
  try {
    await work(page);
  } catch (error) {
    // What the page said (its error notes name the route or field) makes a failed step readable.
    const shown = await page.locator('main').innerText().catch(() => '(page gone)');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- the page showed:\n${shown.slice(0, 2000)}`);
  } finally {
    await context.close();
  }
}

/** The state cell of one vendor on the order page, once it shows `state` (after a refresh if needed). */
async function orderPageShows(page: Page, orderId: string, vendorId: string, state: string): Promise<void> {
  await page.goto(`${stack.consoleUrl}#/orders/${orderId}`);
  // Going to the address the page already shows changes nothing: load it again to see the state as it is now.
  await page.reload();
  await page.locator(`[data-testid="order-vendor-${vendorId}"] [data-testid="state"]`, { hasText: state }).waitFor();
}

test('serves the page and its assets with the clock\'s time, and names the field a bad policy got wrong', async () => {
  await withPage(async (page) => {
    // The shared clock of the harness stands at 2022-12-02T16:05:00+05:30.
    expect(await page.getByTestId('clock').textContent()).toBe('Holdback time: 2022-12-02 16:05 IST (+05:30)');
    await page.goto(`${stack.consoleUrl}#/vendors/cv-badpolicy`);
    await page.getByTestId('policy-kind').selectOption('after_payment');
    await page.getByTestId('policy-delay').fill('three days');
    await page.getByTestId('policy-reason').fill('try a bad delay');
    await page.getByTestId('policy-preview').click();
    // The API's issue for the delay is shown under the delay's own control.
    const delayError = page.locator('[data-field-error="delay"]');
    await delayError.waitFor();
    expect(await delayError.textContent()).toContain('delay');
  });
});

test('every control of every page has a label, every table column a header, and the pages are reached by keyboard', async () => {
  await withPage(async (page) => {
    for (const hash of ['#/', '#/vendors', '#/vendors/cv-badpolicy', '#/orders', '#/outcomes', '#/audit', '#/accuracy', '#/rejected', '#/approvals', '#/settings']) {
      await page.goto(`${stack.consoleUrl}${hash}`);
      await page.locator('main h1').waitFor();
      await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' });
      // Run in the page (as text: the test's own TypeScript has no DOM types).
      const unlabelled = await page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea, button')]
        .filter((c) => !((c.labels && c.labels.length) || c.getAttribute('aria-label') || (c.tagName === 'BUTTON' && c.textContent.trim())))
        .map((c) => c.outerHTML.slice(0, 80))`);
      expect({ hash, unlabelled }).toEqual({ hash, unlabelled: [] });
      // A chart is one image to assistive technology (role="img", its numbers in a table below): its legend is not a table.
      const headless = await page.evaluate<number>(`[...document.querySelectorAll('table')].filter((t) => !t.closest('[role="img"]') && t.querySelectorAll('thead th').length === 0).length`);
      expect({ hash, headless }).toEqual({ hash, headless: 0 });
    }
    // From the top of the page, Tab reaches the navigation; Enter on "Outcomes" opens it.
    await page.goto(`${stack.consoleUrl}#/`);
    for (let i = 0; i < 12 && (await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')) !== 'Outcomes'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Outcomes', level: 1 }).waitFor();
  });
});

test('changes a policy through its preview and the order\'s target moves', async () => {
  const vendorId = 'cv-preview';
  const orderId = 'co-preview-1';
  await stack.h.setPolicy(vendorId, { kind: 'after_payment', delay: 'P10D' });
  await paidOrder(vendorId, orderId);
  const before = await releaseOf(orderId, vendorId);
  expect(before.state).toBe('SCHEDULED');
  expect(before.targetEligibility).toBe('2022-12-12T16:05:00+05:30');
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/vendors/${vendorId}`);
    await page.getByTestId('policy-kind').selectOption('after_payment');
    await page.getByTestId('policy-delay').fill('P3D');
    await page.getByTestId('policy-apply-to').selectOption('open_orders');
    await page.getByTestId('policy-reason').fill('trusted after a year of orders');
    await page.getByTestId('policy-preview').click();
    const row = page.getByTestId(`preview-${orderId}`);
    await row.waitFor();
    // The release would move from payment + 10 days to payment + 3 days, shown in India time with its offset.
    expect(await row.getByTestId('candidate-target').textContent()).toBe('2022-12-05 16:05 IST (+05:30)');
    await page.getByTestId('preview-chart').waitFor();
    await page.screenshot({ path: screenshotPath('console-preview.png'), fullPage: true });
    await page.getByTestId('policy-apply').click();
    await page.getByTestId('policy-applied').waitFor();
    // The open release is planned again by the apply's job, whose progress shows under the editor.
    await page.locator('[data-testid="policy-job"][data-state="succeeded"]').getByText('Job succeeded: 1 of 1 releases done').waitFor();
    await orderPageShows(page, orderId, vendorId, 'SCHEDULED');
    expect(await page.locator(`[data-testid="order-vendor-${vendorId}"] [data-testid="target"]`).textContent()).toBe('2022-12-05 16:05 IST (+05:30)');
  });
  const after = await releaseOf(orderId, vendorId);
  expect(after.targetEligibility).toBe('2022-12-05T16:05:00+05:30');
  const history = await stack.h.api('GET', `/vendors/${vendorId}/policy/history`);
  expect(history.body.versions[0]).toMatchObject({ actor: 'finance@test', reason: 'trusted after a year of orders' });
});

test('holds a vendor (its release HELD, the overview lists it), unholds it, and after a clock advance the release is sent', async () => {
  const vendorId = 'cv-hold';
  const orderId = 'co-hold-1';
  await stack.h.setPolicy(vendorId, { kind: 'after_payment', delay: 'P1D' });
  await paidOrder(vendorId, orderId);
  expect((await releaseOf(orderId, vendorId)).state).toBe('SCHEDULED');
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/vendors/${vendorId}`);
    await page.getByTestId('hold-reason').fill('compliance review of KYC documents');
    await page.getByTestId('hold').click();
    await page.getByTestId('hold-done').waitFor();
    // The rest runs as a job, whose progress shows where the hold was made, until it succeeded (1 of 1 releases).
    await page.locator('[data-testid="hold-job"][data-state="succeeded"]').getByText('Job succeeded: 1 of 1 releases done').waitFor();
    await page.getByTestId('hold-state').getByText('HELD: compliance review of KYC documents (source finance, by finance@test, 2022-12-02 16:05 IST (+05:30))').waitFor();
    await orderPageShows(page, orderId, vendorId, 'HELD');
    expect((await releaseOf(orderId, vendorId)).state).toBe('HELD');

    await page.goto(`${stack.consoleUrl}#/`);
    await page.getByTestId('held-vendors').getByText('compliance review of KYC documents').waitFor();
    // Its release waits for tomorrow (payment + 1 day): listed under tomorrow by its target, HELD with its hold's reason.
    const tomorrowRow = page.getByTestId('releases-tomorrow').getByTestId(`release-${orderId}-${vendorId}`);
    await tomorrowRow.waitFor();
    expect(await tomorrowRow.getByTestId('state').textContent()).toBe('HELD');
    await page.getByTestId('forecast-chart').waitFor();
    await page.screenshot({ path: screenshotPath('console-overview.png'), fullPage: true });

    await page.goto(`${stack.consoleUrl}#/vendors/${vendorId}`);
    await page.getByTestId('hold-reason').fill('documents verified');
    await page.getByTestId('unhold').click();
    await page.getByTestId('hold-done').waitFor();
    await page.locator('[data-testid="hold-job"][data-state="succeeded"]').waitFor();
    await page.getByTestId('hold-state').getByText('not held (unheld by finance@test').waitFor();
    await stack.h.advance('P2D');
    await orderPageShows(page, orderId, vendorId, 'APPLIED');
  });
  expect((await stack.h.appliedAtGateway()).get(`${orderId}/${vendorId}`)).toBe(1);
});

test('releases one vendor by hand from the order page', async () => {
  const vendorId = 'cv-manual';
  const orderId = 'co-manual-1';
  await paidOrder(vendorId, orderId);
  // No policy: at_max, nothing to send until someone releases it.
  expect((await releaseOf(orderId, vendorId)).state).toBe('AT_MAX');
  await withPage(async (page) => {
    await orderPageShows(page, orderId, vendorId, 'AT_MAX');
    await page.getByTestId(`release-reason-${vendorId}`).fill('vendor needs working capital');
    await page.getByTestId(`release-${vendorId}`).click();
    await page.getByRole('status').filter({ hasText: 'Release requested' }).waitFor();
    // "As soon as the gateway accepts": the next whole minute; a minute of the shared clock lets the send happen.
    await stack.h.advance('PT1M');
    await orderPageShows(page, orderId, vendorId, 'APPLIED');
  });
  expect((await stack.h.appliedAtGateway()).get(`${orderId}/${vendorId}`)).toBe(1);
});

test('a manual release asks first, saying what will be sent and the clamp; refused, nothing is sent', async () => {
  const vendorId = 'cv-confirm';
  const orderId = 'co-confirm-1';
  await paidOrder(vendorId, orderId, 2500);
  const before = await releaseOf(orderId, vendorId);
  expect(before.state).toBe('AT_MAX');
  await withPage(async (page) => {
    await orderPageShows(page, orderId, vendorId, 'AT_MAX');
    const asked: string[] = [];
    page.removeAllListeners('dialog');
    page.on('dialog', (dialog) => { asked.push(dialog.message()); void dialog.dismiss(); });
    await page.getByTestId(`release-reason-${vendorId}`).fill('asked, then thought better of it');
    // A year on, typed in India time as the console shows times: past the max eligibility, so it is clamped to it,
    // and said before anything is sent.
    await page.getByLabel(/^Eligibility \(India time/).first().fill('2030-01-01 10:00 IST');
    expect(await page.getByTestId(`release-when-${vendorId}`).innerText()).toContain('2030-01-01 10:00 IST (+05:30) is past the max eligibility');
    expect(await page.getByTestId(`release-when-${vendorId}`).innerText()).toMatch(/past the max eligibility, so it is clamped to it/);
    await page.getByTestId(`release-${vendorId}`).click();
    await page.getByRole('status').filter({ hasText: 'Not sent: the change was not confirmed.' }).waitFor();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`Release INR 2,500.00 of order ${orderId} to vendor ${vendorId} at `);
    expect(asked[0]).toContain('past the max eligibility, so it is clamped to it');
    expect(asked[0]).toContain(`POST /orders/${orderId}/vendors/${vendorId}/release`);
  });
  const after = await releaseOf(orderId, vendorId);
  expect([after.state, (after as { manual?: unknown }).manual ?? null]).toEqual(['AT_MAX', null]);
});

test('downloads the outcomes CSV of the filter shown and parses it back', async () => {
  const vendorId = 'cv-csv';
  await paidOrder(vendorId, 'co-csv-1', 1000);
  await stack.h.createPaidOrder('co-csv-2', [{ vendorId, amount: 250.5 }]);
  await stack.h.send('order.paid', { orderId: 'co-csv-2', transactionTime: stack.h.runtime.clock.now().setZone('Asia/Kolkata').toISO(), vendors: [{ vendorId, amount: '250.50' }] });
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/outcomes`);
    await page.getByTestId('filter-vendor').fill(vendorId);
    await page.getByTestId('outcomes-search').click();
    await page.getByTestId('release-co-csv-2-cv-csv').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('outcomes-csv').click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    const rows: string[][] = parse(csv);
    expect(rows[0]).toEqual([
      'order_id', 'vendor_id', 'amount', 'currency', 'state', 'policy_version', 'schedule_option', 'transaction_time',
      'max_eligibility', 'target_eligibility', 'applied_eligibility', 'predicted_settlement', 'settled_at', 'attempts',
      'last_gateway_status', 'last_gateway_message', 'reason', 'hold_reason', 'manual_actor', 'manual_reason', 'settlement_mismatch_minutes',
    ]);
    const byOrder = new Map(rows.slice(1).map((r) => [r[0], r]));
    expect([...byOrder.keys()].sort()).toEqual(['co-csv-1', 'co-csv-2']);
    expect(byOrder.get('co-csv-2')!.slice(1, 5)).toEqual([vendorId, '250.50', 'INR', 'AT_MAX']);
  });
});

test('names the first broken link after an audit record is deleted directly in DynamoDB', async () => {
  const vendorId = 'cv-audit';
  await stack.h.setPolicy(vendorId, { kind: 'immediate' });
  await stack.h.setPolicy(vendorId, { kind: 'after_payment', delay: 'P2D' });
  const dynamo = new DynamoDBClient({ endpoint: stack.h.runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  try {
    await withPage(async (page) => {
      await page.goto(`${stack.consoleUrl}#/audit`);
      expect(await page.getByTestId('audit-result').textContent()).toContain('Intact');
      const records = Number(await page.getByTestId('audit-records').textContent());
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('audit-export-link').click()]);
      const lines = readFileSync((await download.path())!, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
      // Every record verified is in the export, with the signed checkpoints besides.
      expect(lines.length).toBeGreaterThan(records);
    });
    const items = ((await dynamo.send(new ScanCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME }))).Items ?? []).map((i) => unmarshall(i));
    const mine = items.filter((i) => i.vendorId === vendorId && typeof i.sequence === 'number').sort((a, b) => a.sequence - b.sequence);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    // A record with a later one in its stream: the later record's link to it breaks.
    const victim = mine.find((r) => items.some((o) => o.stream === r.stream && o.sequence === r.sequence + 1))!;
    await dynamo.send(new DeleteItemCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME, Key: { pk: { S: victim.pk } , sk: { S: victim.sk } } }));
    await withPage(async (page) => {
      await page.goto(`${stack.consoleUrl}#/audit`);
      const broken = page.getByTestId('first-broken');
      await broken.waitFor();
      const text = await broken.textContent();
      expect(text).toContain(`stream ${victim.stream}`);
      expect(text).toMatch(new RegExp(`sequence (${victim.sequence}|${victim.sequence + 1})\\b`));
    });
  } finally {
    dynamo.destroy();
  }
});

test('imports policies from CSV: the dry run shows each wrong line and field, and only a clean file is applied', async () => {
  const header = 'vendorId,scheduleOption,release,delay,reason';
  const wrong = `${header}\nci-vendor-1,1,after_delivery,P2D,trusted vendor\nci-vendor-2,1,after_payment,,new terms`;
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/vendors`);
    await page.getByTestId('import-text').fill(wrong);
    await page.getByTestId('import-dry-run').click();
    const errors = page.getByTestId('import-errors');
    await errors.waitFor();
    // Line 3 of the file (the header is line 1) lacks the delay its rule takes.
    const cells = await errors.locator('tbody tr').first().locator('th, td').allTextContents();
    expect(cells.slice(0, 2)).toEqual(['3', 'delay']);
    expect(await page.getByTestId('import-apply').isDisabled()).toBe(true);
    await page.getByTestId('import-text').fill(wrong.replace('after_payment,,', 'after_payment,P1D,'));
    await page.getByTestId('import-dry-run').click();
    await page.getByTestId('import-result').getByText('2 valid, 0 errors').waitFor();
    await page.getByTestId('import-apply').click();
    await page.getByTestId('import-applied').getByText('Applied 2 policies').waitFor();
  });
  const policy = await stack.h.api('GET', '/vendors/ci-vendor-2/policy');
  expect(policy.body).toMatchObject({ release: { kind: 'after_payment', delay: 'P1D' }, actor: 'finance@test', reason: 'new terms' });
});

test('previews a settings change over the unsent releases, then saves it with the reason and actor', async () => {
  // A release 12 days after its payment: a Defer by Days of 5 would put its target past the window's end.
  const vendorId = 'cv-refuse';
  const orderId = 'co-refuse-1';
  await stack.h.setPolicy(vendorId, { kind: 'after_payment', delay: 'P12D' });
  await paidOrder(vendorId, orderId);
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/settings`);
    await page.getByTestId('settings-defer').fill('5');
    await page.getByTestId('settings-reason').fill('dashboard Defer by Days raised to 20');
    await page.getByTestId('settings-preview').click();
    // The preview says how many releases it covered and moves, until when it holds (with the offset), and why the
    // gateway would refuse a release under the candidate.
    const status = page.getByTestId('preview').getByRole('status');
    await status.waitFor();
    expect(await status.textContent()).toMatch(/\d+ of \d+ unsent\s+release\(s\) would move; the gateway would refuse \d+ as they stand\..*until \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? IST \(\+05:30\)/s);
    expect(await page.getByTestId(`preview-${orderId}`).getByTestId('refusal').textContent()).toMatch(/beyond max_eligib/);
    await page.getByTestId('settings-defer').fill('20');
    await page.getByTestId('settings-preview').click();
    // Under 20 days the release is inside the window: the new preview no longer lists it.
    await page.getByTestId(`preview-${orderId}`).waitFor({ state: 'detached' });
    // Saving asks first, saying what changes and exactly what is sent; refused, nothing is saved.
    const asked: string[] = [];
    page.removeAllListeners('dialog');
    page.once('dialog', (dialog) => { asked.push(dialog.message()); void dialog.dismiss(); });
    await page.getByTestId('settings-apply').click();
    await page.getByTestId('settings-declined').waitFor();
    expect(asked[0]).toMatch(/Save the settings: Defer by Days \d+ -> 20\. \d+ of \d+ unsent release\(s\) move/);
    expect(asked[0]).toContain('PUT /settings');
    expect(asked[0]).toContain('"deferByDays": 20');
    expect((await stack.h.api('GET', '/settings')).body.deferByDays).not.toBe(20);
    page.on('dialog', (dialog) => void dialog.accept());
    await page.getByTestId('settings-apply').click();
    await page.getByTestId('settings-saved').waitFor();
    await page.getByTestId('settings-history').getByText('dashboard Defer by Days raised to 20').waitFor();
  });
  const settings = await stack.h.api('GET', '/settings');
  expect(settings.body).toMatchObject({ deferByDays: 20, actor: 'finance@test', reason: 'dashboard Defer by Days raised to 20' });
});

test('the overview lists a release the gateway refused as a drift alert, with the gateway\'s reason', async () => {
  // The previous test set Holdback's Defer by Days to 20; the gateway (sandbox) still has 15, so a target two hours
  // past day 15 is inside Holdback's window and refused by the gateway. It is sent an hour before (releaseLead), before
  // the gateway settles the vendor at its own default date.
  const vendorId = 'cv-drift';
  const orderId = 'co-drift-1';
  await stack.h.setPolicy(vendorId, { kind: 'after_payment', delay: 'P15DT2H' });
  await paidOrder(vendorId, orderId);
  await stack.h.advance('P15DT1H5M');
  expect((await releaseOf(orderId, vendorId)).state).toBe('FAILED');
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/`);
    const alert = page.getByTestId(`alert-${orderId}-${vendorId}`);
    await alert.waitFor();
    const cells = await alert.locator('th, td').allTextContents();
    expect(cells[2]).toBe('DRIFT: the gateway refused a date inside the window');
    expect(cells[3]).toMatch(/max_eligib/i);
  });
});

test('a vendor with a USD and an INR order: the vendors page, the vendor page and its releases show each currency apart, in its own grouping', async () => {
  await stack.h.setPolicy('cv-fx', { kind: 'after_delivery', delay: 'P2D' });
  await stack.h.send('order.paid', { orderId: 'cv-fx-usd', transactionTime: '2022-12-02T16:05:00+05:30', vendors: [{ vendorId: 'cv-fx', amount: '1000' }], currency: 'USD' });
  await stack.h.send('order.paid', { orderId: 'cv-fx-inr', transactionTime: '2022-12-02T16:05:00+05:30', vendors: [{ vendorId: 'cv-fx', amount: '100000' }], currency: 'INR' });
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/vendors`);
    const row = page.getByTestId('vendor-cv-fx');
    await row.waitFor();
    expect(await row.innerText()).toContain('INR 1,00,000.00 in 1 release; USD 1,000.00 in 1 release');
    await page.goto(`${stack.consoleUrl}#/vendors/cv-fx`);
    const releases = page.getByTestId('vendor-release-table');
    await releases.locator('[data-testid="release-cv-fx-usd-cv-fx"]').waitFor();
    expect(await releases.locator('[data-testid="release-cv-fx-usd-cv-fx"]').innerText()).toContain('USD 1,000.00');
    expect(await releases.locator('[data-testid="release-cv-fx-inr-cv-fx"]').innerText()).toContain('INR 1,00,000.00');
    // Waiting for a delivery: where the money lands if nothing changes, marked as projected.
    expect(await releases.locator('[data-testid="release-cv-fx-usd-cv-fx"] [data-testid="settlement"]').innerText()).toMatch(/^\d{4}-\d{2}-\d{2} 11:00 IST \(\+05:30\) \(projected\)$/);
    expect(await page.getByTestId('unknown-vendor').count()).toBe(0);
  });
  // Held, the overview's headline counts them per currency, never added together.
  const hold = await stack.h.api('POST', '/vendors/cv-fx/hold', { actor: 'risk@test', reason: 'headline check' });
  expect(hold.status).toBe(200);
  // The hold is in force from its answer; the releases are shown HELD by its job (contract 6.3): the headline counts
  // them once it ended (on a busy machine it may still run when the page loads).
  if (hold.body.job) expect((await jobEnded(stack.h, hold.body.job.jobId)).state).toBe('succeeded');
  try {
    await withPage(async (page) => {
      await page.goto(`${stack.consoleUrl}#/`);
      const held = page.getByTestId('headline-held');
      await held.waitFor();
      const text = await held.innerText();
      expect(text).toContain('INR 1,00,000.00 (1)');
      expect(text).toContain('USD 1,000.00 (1)');
    });
  } finally {
    await stack.h.api('POST', '/vendors/cv-fx/unhold', { actor: 'risk@test', reason: 'headline checked' });
  }
});

test('a vendor id nobody named opens with an "unknown vendor" notice; the gateway comparison warns about vendors it does not know', async () => {
  await stack.h.setPolicy('cv-nogateway', { kind: 'immediate' });
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/vendors/cv-never-seen`);
    await page.getByTestId('unknown-vendor').waitFor();
    expect(await page.getByTestId('unknown-vendor').innerText()).toContain('Unknown vendor: no order or policy names cv-never-seen');
    await page.goto(`${stack.consoleUrl}#/vendors`);
    await page.getByLabel(/Compare each schedule option/).check();
    const answer = page.locator('[data-testid="vendor-cv-nogateway"] [data-testid="gateway-answer"]');
    await answer.waitFor();
    expect(await answer.getAttribute('data-answer')).toBe('vendor_not_found');
    expect(await answer.innerText()).toContain('Unknown at the gateway');
  });
});

test('the rejected events page lists an event Holdback refused, with the field and what to send; the accuracy page reads the report', async () => {
  await stack.h.send('order.delivered', { orderId: 'cv-rejected-1', deliveredAt: 'yesterday' });
  await withPage(async (page) => {
    await page.goto(`${stack.consoleUrl}#/rejected`);
    const table = page.getByTestId('rejected-events');
    await table.getByText('order.delivered').first().waitFor();
    expect(await table.innerText()).toMatch(/deliveredAt/);
    await page.goto(`${stack.consoleUrl}#/accuracy`);
    // Waits past "Loading…" for the report itself.
    await page.getByTestId('accuracy').getByText(/Only a prediction made before the settlement counts|no settlement in this range/).first().waitFor();
    expect(await page.getByTestId('accuracy').innerText()).not.toContain('Loading');
  });
});
