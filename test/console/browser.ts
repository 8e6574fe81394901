/** Headless Chromium for the console's tests (Debian's /usr/bin/chromium driven by playwright-core), skipped with a message when absent. */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startHarness, type Harness } from '../e2e/harness';
import type { LocalRuntimeOptions } from '../../local/runtime';

const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** `it` when a browser can run (always on CI, where a missing browser is a failure), else `it.skip` with a notice. */
export function browserIt(file: string): jest.It {
  if (!hasChromium && !process.env.CI) {
    console.warn(`\n*** ${CHROMIUM} is missing: the console browser tests of ${file} are SKIPPED (they fail when CI is set). Install Debian's chromium package. ***\n`);
  }
  return hasChromium || process.env.CI ? it : it.skip;
}

export async function launchBrowser(): Promise<Browser | null> {
  if (hasChromium) {
    return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing; the console must be tested in a browser on CI`);
  return null;
}

/** A fresh page (own storage) with the actor filled in, as a user does once; failures show in seconds, not minutes. */
export async function consolePage(browser: Browser, consoleUrl: string, actor = 'finance@test'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // A change that moves money asks first (window.confirm, saying what will be sent): the user says yes, unless a test
  // takes the dialog itself (page.removeAllListeners('dialog')).
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(consoleUrl);
  await page.getByLabel('You (recorded as actor)').fill(actor);
  if (errors.length) throw new Error(`the console threw: ${errors.join('; ')}`);
  return { context, page };
}

/**
 * Screenshots of the pages, written to the ignored `.screenshots/` folder: a test never writes a tracked file. The
 * README's images in docs/ are copied from there by hand when a page changes.
 */
export function screenshotPath(name: string): string {
  const folder = join(__dirname, '..', '..', '.screenshots');
  mkdirSync(folder, { recursive: true });
  return join(folder, name);
}

/** The whole local stack and a browser for one test file: started before its tests, closed after them. */
export interface ConsoleStack {
  h: Harness;
  browser: Browser | null;
  consoleUrl: string;
}

export function consoleStack(opts: LocalRuntimeOptions = {}): ConsoleStack {
  const stack = { browser: null } as unknown as ConsoleStack;
  beforeAll(async () => {
    stack.h = await startHarness(opts);
    stack.consoleUrl = `${stack.h.runtime.api.url}/console`;
    stack.browser = await launchBrowser();
  });
  afterAll(async () => {
    await stack.browser?.close();
    await stack.h?.close();
  });
  return stack;
}
