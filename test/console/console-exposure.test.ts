/**
 * Contract 6.4 in the browser against the whole local stack: an exposure cap holds back the next early release
 * (WAITING, exposure_cap, with its figures) and lets it go when an order's risk window closes (the local clock moved
 * with POST /_local/clock); the vendor page shows the exposure, its cap and its forecast.
 */
import type { Page } from 'playwright-core';
import { vendorOf } from '../e2e/harness';
import { browserIt, consolePage, consoleStack, screenshotPath } from './browser';

const test = browserIt('console-exposure.test.ts');
const stack = consoleStack();

async function paidOrder(vendorId: string, orderId: string, amount: number): Promise<void> {
  const transactionTime = await stack.h.createPaidOrder(orderId, [{ vendorId, amount }]);
  await stack.h.send('order.paid', { orderId, transactionTime, vendors: [{ vendorId, amount }] });
}

async function stateOf(orderId: string, vendorId: string) {
  return vendorOf((await stack.h.api('GET', `/orders/${orderId}`)).body, vendorId);
}

async function orderPageShows(page: Page, orderId: string, vendorId: string, state: string): Promise<void> {
  await page.goto(`${stack.consoleUrl}#/orders/${orderId}`);
  await page.reload();
  await page.locator(`[data-testid="order-vendor-${vendorId}"] [data-testid="state"]`, { hasText: state }).waitFor();
}

test('an exposure cap holds back the next early release and lets it go when an order\'s risk window closes', async () => {
  const vendorId = 'cv-exposure';
  await stack.h.createVendors([{ id: vendorId, scheduleOption: 1 }]);
  expect((await stack.h.api('PUT', '/settings', { riskWindow: 'P1D', actor: 'finance@test', reason: 'a day to refund' })).status).toBe(200);
  const policy = await stack.h.api('PUT', `/vendors/${vendorId}/policy`, {
    scheduleOption: 1, release: { kind: 'immediate' }, maxExposure: { INR: '1500.00' }, actor: 'finance@test', reason: 'cap early money',
  });
  expect(policy.status).toBe(200);

  // The first early release fits under the cap and goes; its order can be refunded for a day after its payment.
  await paidOrder(vendorId, 'co-exp-1', 1000);
  expect((await stateOf('co-exp-1', vendorId)).state).toBe('APPLIED');
  // Two hours later, the second would take exposure to 2,000 > 1,500: it waits.
  await stack.h.advance('PT2H');
  await paidOrder(vendorId, 'co-exp-2', 1000);
  const waiting = await stateOf('co-exp-2', vendorId) as unknown as { state: string; waitReason: string; reason: string };
  expect(waiting).toMatchObject({ state: 'WAITING', waitReason: 'exposure_cap' });
  expect(waiting.reason).toContain('exposure now 1000.00 INR plus this release\'s 1000.00 INR would pass the policy\'s maxExposure 1500.00 INR');

  const { context, page } = await consolePage(stack.browser!, stack.consoleUrl);
  try {
    await page.goto(`${stack.consoleUrl}#/vendors/${vendorId}`);
    await page.getByTestId('vendor-exposure').getByText(/in 1 release \(cap .*1,500\.00\)/).waitFor();
    await page.getByTestId('exposure-forecast').waitFor();
    await orderPageShows(page, 'co-exp-2', vendorId, 'WAITING');
    await page.locator('[data-testid="order-vendor-cv-exposure"]').getByText(/exposure_cap: exposure now 1000\.00 INR/).first().waitFor();
    await page.locator('[data-testid="order-vendor-cv-exposure"]').getByText(/settles anyway/).first().waitFor();
    await page.screenshot({ path: screenshotPath('console-exposure-cap.png'), fullPage: true });

    // The first order's risk window closes a day after its payment: the waiting release is claimed again and goes.
    await stack.h.advance('PT22H');
    await orderPageShows(page, 'co-exp-2', vendorId, 'APPLIED');
    await page.goto(`${stack.consoleUrl}#/vendors/${vendorId}`);
    await page.reload();
    await page.getByTestId('vendor-exposure').getByText(/in 1 release/).waitFor();
  } finally {
    await context.close();
  }
  expect((await stack.h.appliedAtGateway()).get(`co-exp-2/${vendorId}`)).toBe(1);
});
