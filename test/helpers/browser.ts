// A real browser for client tests: the Chromium the global setup resolved (test/helpers/chromium.ts),
// driven by playwright-core.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject, onTestFinished } from 'vitest';
import { repoRoot } from './process.ts';
import { defer } from './teardown.ts';

export const CHROMIUM = inject('chromiumPath');
/** Whether the browser shows notifications (the headless-shell build from npm does not). */
export const SHOWS_NOTIFICATIONS = inject('chromiumNotifications');
export const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];
export const SHOTS = path.join(repoRoot, 'test-output', 'screenshots');

export async function launch(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  defer(() => browser.close(), 'close the browser');
  return browser;
}

/**
 * A page whose script errors (pageerror) and console errors are collected in `errors`. Unless the
 * test says it expects some (`allowErrors`), the test fails when it ends with any: a browser test
 * cannot forget to look.
 */
export async function open(
  ctx: BrowserContext,
  url: string,
  { allowErrors = false }: { allowErrors?: boolean } = {},
): Promise<{ page: Page; errors: string[]; dialogs: string[] }> {
  const page = await ctx.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    // A connection the test itself cut (a server stopped on purpose, a context set offline) is not the app's error; an HTTP
    // error status or anything the app logs is. Which net:: error Chromium names depends on the moment
    // the socket went (SOCKET_NOT_CONNECTED when a request was being written as it closed).
    // (The service worker's update check meeting a stopped server says "An unknown error occurred when
    // fetching the script.")
    if (
      m.type() === 'error' &&
      !/^Failed to load resource: net::ERR_(INTERNET_DISCONNECTED|CONNECTION_REFUSED|INCOMPLETE_CHUNKED_ENCODING|CONNECTION_RESET|CONNECTION_CLOSED|EMPTY_RESPONSE|SOCKET_NOT_CONNECTED)|^An unknown error occurred when fetching the script/.test(m.text())
    ) {
      errors.push(`console.error: ${m.text()}`);
    }
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  if (!allowErrors) {
    onTestFinished((ctx) => {
      if (ctx.task.result?.state === 'fail') return; // the first failure is the one to read
      if (errors.length) throw new Error(`the page at ${url} logged errors:\n  ${errors.join('\n  ')}`);
    });
  }
  await page.goto(url);
  return { page, errors, dialogs };
}

export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
}

/**
 * Shows a view by its tab, as a person would: on a phone the views past the bottom bar's first
 * four are behind "More" (two taps), elsewhere every tab is on screen (one tap).
 */
export async function showView(page: Page, name: string): Promise<void> {
  const tab = page.getByRole('tab', { name, exact: true });
  if (!(await tab.isVisible())) await page.getByRole('button', { name: 'More views' }).click();
  await tab.click();
}
