/**
 * Four eyes in the console (contract 6.4), headless Chromium against the whole local stack: a maker's policy change
 * for open orders waits (the form says so and nothing changes), the Approvals page lists it with what it would move
 * (its amount and the live preview), the maker's own approval is refused, a checker approves it and it is applied.
 */
import type { Page } from 'playwright-core';
import { vendorOf } from '../e2e/harness';
import { browserIt, consolePage, consoleStack, screenshotPath } from './browser';

const test = browserIt('console-approvals.test.ts');
const stack = consoleStack();

async function asPerson<T>(actor: string, work: (page: Page) => Promise<T>): Promise<T> {
  const { context, page } = await consolePage(stack.browser!, stack.consoleUrl, actor);
  try {
    return await work(page);
  } catch (error) {
    const shown = await page.locator('main').innerText().catch(() => '(page gone)');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n--- the page showed:\n${shown.slice(0, 2000)}`);
  } finally {
    await context.close();
  }
}

test('a policy change for open orders waits for a second person, who sees what it would move and approves it', async () => {
  const vendorId = 'ca-vendor';
  const orderId = 'ca-order-1';
  await stack.h.createVendors([{ id: vendorId, scheduleOption: 1 }]);
  await stack.h.setPolicy(vendorId, { kind: 'after_payment', delay: 'P5D' });
  const transactionTime = await stack.h.createPaidOrder(orderId, [{ vendorId, amount: 1000 }]);
  await stack.h.send('order.paid', { orderId, transactionTime, vendors: [{ vendorId, amount: 1000 }] });
  expect((await stack.h.api('PUT', '/settings', { approvals: { policyChange: {} }, actor: 'admin@test', reason: 'four eyes on open orders' })).status).toBe(200);

  await asPerson('maker@test', async (page) => {
    expect(await page.getByTestId('who-you-are').textContent()).toMatch(/^unauthenticated/);
    await page.goto(`${stack.consoleUrl}#/vendors/${vendorId}`);
    await page.getByTestId('policy-kind').selectOption('immediate');
    await page.getByTestId('policy-apply-to').selectOption('open_orders');
    await page.getByTestId('policy-reason').fill('trusted vendor');
    await page.getByTestId('policy-preview').click();
    await page.getByTestId(`preview-${orderId}`).waitFor();
    await page.getByTestId('policy-apply').click();
    const note = page.locator('[data-testid="policy-problem"][data-code="approval_pending"]');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/Nothing changed yet: this change needs a second person\. It waits as approval ap_\w+ on the Approvals page/);
  });
  expect((await stack.h.api('GET', `/vendors/${vendorId}/policy`)).body.version).toBe(1);
  const pending = (await stack.h.api('GET', '/approvals?state=pending')).body.items as Array<{ approvalId: string }>;
  expect(pending).toHaveLength(1);
  const id = pending[0].approvalId;

  // The maker cannot decide their own change.
  await asPerson('maker@test', async (page) => {
    await page.goto(`${stack.consoleUrl}#/approvals`);
    await page.getByTestId(`decision-reason-${id}`).fill('looks right to me');
    await page.getByTestId(`approve-${id}`).click();
    const refused = page.locator(`[data-testid="decision-problem-${id}"][data-code="own_approval"]`);
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/asked for this change; four eyes means another person decides it/);
  });

  await asPerson('checker@test', async (page) => {
    await page.goto(`${stack.consoleUrl}#/approvals`);
    const row = page.getByTestId(`approval-${id}`);
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain('policy change applied to open orders');
    expect(text).toContain('INR 1,000.00 in 1 release(s)');
    expect(text).toContain('maker@test (unauthenticated)');
    await row.getByTestId(`approval-preview-${id}`).click();
    await row.getByTestId(`preview-${orderId}`).waitFor();
    await page.screenshot({ path: screenshotPath('console-approvals.png'), fullPage: true });
    await page.getByTestId(`decision-reason-${id}`).fill('checked the vendor record');
    await page.getByTestId(`approve-${id}`).click();
    const done = page.getByTestId('approval-done');
    await done.waitFor();
    expect(await done.textContent()).toBe(`Approved ${id}: the change is applied as asked.`);
    await page.getByTestId('approvals-state').selectOption('approved');
    await page.getByTestId(`approval-${id}`).waitFor();
    expect(await page.getByTestId(`approval-${id}`).textContent()).toContain('approved by checker@test (unauthenticated): checked the vendor record (applied)');
  });
  const policy = (await stack.h.api('GET', `/vendors/${vendorId}/policy`)).body;
  expect(policy).toMatchObject({ version: 2, release: { kind: 'immediate' }, actor: 'maker@test', reason: 'trusted vendor' });
  await stack.h.runtime.idle();
  expect(vendorOf((await stack.h.api('GET', `/orders/${orderId}`)).body, vendorId).policyVersion).toBe(2);
});
