// The installable PWA in a real chromium: no installability errors, a manifest that parses, a
// service worker that serves an offline page while the server is down and lets the app come back.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_DIR } from '../../functions/routes/client.ts';
import { listen, startTestApp, type TestApp } from '../helpers/app.ts';
import { ARGS, CHROMIUM, SHOWS_NOTIFICATIONS, shot } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';
import { tempDir } from '../helpers/teardown.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

describe('the PWA', () => {
  it('is installable, works offline with an offline page, and recovers when the server returns', async () => {
    let server = await listen(t);
    const port = Number(new URL(server.url).port); // the server comes back on it
    const url = `${server.url}/`;
    // A persistent context: a fresh one always reports "in-incognito" as an installability error.
    const profile = tempDir('pd-chromium-');
    const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
    try {
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      await page.goto(url);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await page.reload();
      await page.waitForFunction(() => !!navigator.serviceWorker.controller);

      const cdp = await ctx.newCDPSession(page);
      const inst = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] };
      expect(inst.installabilityErrors).toEqual([]);
      const manifest = (await cdp.send('Page.getAppManifest')) as { errors: unknown[]; url: string };
      expect(manifest.errors).toEqual([]);
      expect(manifest.url).toBe(`${url}manifest.webmanifest`);

      // The shell is cached, the API never is.
      const cached = await page.evaluate(async () => {
        const names = await caches.keys();
        const urls: string[] = [];
        for (const n of names) for (const r of await (await caches.open(n)).keys()) urls.push(new URL(r.url).pathname);
        return urls;
      });
      expect(cached).toEqual(expect.arrayContaining(['/', '/offline.html', '/manifest.webmanifest']));
      expect(cached.filter((u) => u.startsWith('/api/'))).toEqual([]);

      await server.close();
      await page.reload();
      await page.getByRole('heading', { name: 'The server is unreachable' }).waitFor({ timeout: 10_000 });
      await shot(page, 'desktop-offline');

      server = await listen(t, port);
      await page.locator('pd-app').waitFor({ timeout: 15_000 });
      await page.locator('pd-glance').waitFor();
      await server.close();
    } finally {
      await ctx.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
});

describe('the service worker push handler', () => {
  it('shows the pushed notification, naming the task and where a tap leads', async () => {
    const url = (await listen(t)).url;
    const profile = tempDir('pd-chromium-');
    const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
    try {
      await ctx.grantPermissions(['notifications'], { origin: url });
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      const cdp = await ctx.newCDPSession(page);
      const registration = new Promise<string>((resolve) => {
        cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string }[] }) => {
          const r = e.registrations.find((x) => x.scopeURL.startsWith(url));
          if (r) resolve(r.registrationId);
        });
      });
      await cdp.send('ServiceWorker.enable');
      await page.goto(`${url}/`);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      const registrationId = await registration;
      const taskId = '6d1f0c8e-0000-4000-8000-000000000001';
      // The headless shell has no notification platform (showNotification is refused there): read
      // what the service worker asked to show instead of what the platform shows.
      const worker = ctx.serviceWorkers().find((w) => w.url().startsWith(url));
      if (!SHOWS_NOTIFICATIONS) {
        expect(worker).toBeDefined();
        await worker!.evaluate(() => {
          const sw = self as unknown as { __shown: unknown[]; registration: { showNotification: unknown } };
          sw.__shown = [];
          sw.registration.showNotification = async (title: string, o: NotificationOptions) => {
            sw.__shown.push({ title, body: o.body, tag: o.tag, data: o.data as unknown });
          };
        });
      }
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: new URL(url).origin,
        registrationId,
        data: JSON.stringify({ title: 'Task stalled', body: 'Translate the docs', tag: `task:${taskId}`, url: `/#/task/${taskId}`, task_id: taskId, status: 'stalled' }),
      });
      const shown = await waitFor(
        () =>
          SHOWS_NOTIFICATIONS
            ? page.evaluate(async () => {
                const reg = await navigator.serviceWorker.ready;
                return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data as unknown }));
              })
            : worker!.evaluate(() => (self as unknown as { __shown: unknown[] }).__shown),
        (list) => list.length > 0,
        { what: 'the notification to show' },
      );
      expect(shown).toEqual([
        { title: 'Task stalled', body: 'Translate the docs', tag: `task:${taskId}`, data: { url: `/#/task/${taskId}`, task_id: taskId } },
      ]);
    } finally {
      await ctx.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
});

describe('an app update', () => {
  it('replaces the old shell: the new service worker takes over, old caches go, the page reloads once', async () => {
    // A copy of the built client whose service worker can be changed, as a deploy would.
    const dir = tempDir('pd-client-');
    fs.cpSync(CLIENT_DIR, dir, { recursive: true });
    const app = await startTestApp({}, t.db, dir);
    const { url } = await listen(app);
    const profile = tempDir('pd-chromium-');
    const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
    try {
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      // Every load of the page counts itself (sessionStorage outlives a reload of the tab).
      await ctx.addInitScript(() => {
        sessionStorage.setItem('loads', String(Number(sessionStorage.getItem('loads') ?? '0') + 1));
      });
      await page.goto(`${url}/`);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await page.reload();
      await page.waitForFunction(() => !!navigator.serviceWorker.controller);
      const before = await page.evaluate(() => caches.keys());
      expect(before).toHaveLength(1);

      const sw = path.join(dir, 'sw.js');
      fs.writeFileSync(sw, fs.readFileSync(sw, 'utf8').replace(/const VERSION = '[^']+';/, "const VERSION = 'next-release';"));
      await page.evaluate(() => {
        (window as unknown as { __old: boolean }).__old = true;
      });
      const loadsBefore = Number(await page.evaluate(() => sessionStorage.getItem('loads')));
      await page.evaluate(async () => (await navigator.serviceWorker.ready).update());
      await waitFor(() => page.evaluate(() => caches.keys()).catch(() => [] as string[]), (k) => k.length === 1 && k[0] === 'pd-shell-next-release', {
        what: 'the new shell cache to replace the old one',
      });
      // The page reloaded under the new worker (the marker set before the update is gone).
      await waitFor(() => page.evaluate(() => (window as unknown as { __old?: boolean }).__old ?? false).catch(() => true), (old) => old === false, {
        what: 'the page to reload once',
      });
      await page.locator('pd-app').waitFor();
      // Once: the new worker controls the page and it was loaded exactly one more time.
      await page.waitForFunction(() => navigator.serviceWorker.controller?.state === 'activated');
      await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state);
      expect(Number(await page.evaluate(() => sessionStorage.getItem('loads')))).toBe(loadsBefore + 1);
    } finally {
      await ctx.close();
      fs.rmSync(profile, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
