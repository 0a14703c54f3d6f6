// Vitest global setup for the browser tests: the built client, and the Chromium they drive
// (resolved once, printed once; see test/helpers/chromium.ts).
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { resolveChromium } from '../helpers/chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumPath: string;
    chromiumSource: string;
    /** Whether this build shows notifications (the headless shell refuses showNotification). */
    chromiumNotifications: boolean;
  }
}

export async function setup(project: TestProject) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  execFileSync(process.execPath, [path.join(root, 'client/build-if-stale.mjs')], { stdio: 'inherit' });
  const found = await resolveChromium();
  const { version, notifications } = await probe(found.path);
  process.stdout.write(
    `browser tests: Chromium ${version} from ${found.source} (${found.path})${notifications ? '' : '; no notification platform (headless shell)'}\n`,
  );
  project.provide('chromiumPath', found.path);
  project.provide('chromiumSource', found.source);
  project.provide('chromiumNotifications', notifications);
}

/** The browser's version, and whether a granted notification permission holds in it. */
async function probe(executablePath: string): Promise<{ version: string; notifications: boolean }> {
  const server = http.createServer((_req, res) => res.end('<!doctype html><title>probe</title>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true });
  try {
    const ctx = await browser.newContext();
    await ctx.grantPermissions(['notifications'], { origin });
    const page = await ctx.newPage();
    await page.goto(origin);
    const notifications = (await page.evaluate(() => Notification.permission)) === 'granted';
    return { version: browser.version(), notifications };
  } finally {
    await browser.close();
    server.close();
  }
}
