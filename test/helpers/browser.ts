// A real browser for client tests: the Chromium the global setup resolved (test/helpers/chromium.ts),
// driven by playwright-core.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';
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

/** A page that fails the test on any script error or console error of the app. */
export async function open(ctx: BrowserContext, url: string): Promise<{ page: Page; errors: string[]; dialogs: string[] }> {
  const page = await ctx.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url);
  return { page, errors, dialogs };
}

export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
}
