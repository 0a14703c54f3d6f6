// Client crashes in a real browser: an error thrown in the page is journalled once as client.error
// with the app version and the view; an unhandled rejection too; the Health view shows the day's
// counts.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { listen, startTestApp } from '../helpers/app.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';
import { repoRoot } from '../helpers/process.ts';

let t: BrowserApp;
beforeAll(async () => {
  t = await startBrowserApp();
});

const version = (JSON.parse(fs.readFileSync(`${repoRoot}/package.json`, 'utf8')) as { version: string }).version;
const crashes = () =>
  t.db.sql<{ payload: { kind: string; message: string; app_version: string; view: string; stack?: string } }[]>`
    select payload from dispatch.events where event_type = 'client.error' order by seq`;

describe('client crash reports', () => {
  it('a thrown error in the page is journalled once, with the app version and the view; so is an unhandled rejection', async () => {
    const { page, errors } = await open(await t.browser.newContext({ viewport: { width: 390, height: 844 } }), `${t.url}/#/activity`, { allowErrors: true });
    await page.locator('pd-activity').waitFor();
    // The browser's ResizeObserver loop notice is not a crash.
    await page.evaluate(() => window.dispatchEvent(new ErrorEvent('error', { message: 'ResizeObserver loop completed with undelivered notifications.' })));
    // Thrown twice in a row: one crash, not two (a repeating error is reported once per 10 s).
    await page.evaluate(() => {
      for (let i = 0; i < 2; i++) setTimeout(() => { throw new Error('boom from the page test'); }, 0);
    });
    const [row] = await waitFor(crashes, (r) => r.length >= 1, { what: 'a client.error row' });
    expect(row!.payload).toMatchObject({ kind: 'error', message: expect.stringContaining('boom from the page test'), app_version: version, view: '#/activity' });
    expect(row!.payload.stack).toContain('boom from the page test');
    // The page saw both throws (Playwright's pageerror events may arrive after the server's row).
    await waitFor(() => errors.filter((e) => e.includes('boom from the page test')).length, (n) => n >= 2, { what: 'both page errors' });
    expect(errors.filter((e) => e.includes('boom from the page test'))).toHaveLength(2);

    await page.evaluate(() => void Promise.reject(new Error('a promise nobody caught')));
    const rows = await waitFor(crashes, (r) => r.length >= 2, { what: 'the rejection row' });
    expect(rows.map((r) => [r.payload.kind, r.payload.message])).toEqual([
      ['error', expect.stringContaining('boom from the page test')],
      ['unhandled_rejection', 'a promise nobody caught'],
    ]);

    await page.evaluate(() => (location.hash = '#/health'));
    const today = new Date().toISOString().slice(0, 10);
    const tr = page.locator(`pd-diagnostics tr[data-day="${today}"]`);
    await tr.waitFor();
    expect(await tr.locator('[data-col=crashes]').innerText()).toBe('2');
    expect(await tr.locator('[data-col=client]').innerText()).toBe('2');
    await shot(page, 'phone-health');
    expect((await crashes()).length).toBe(2);
    await page.context().close();
  });

  it('an event stream that fails to reconnect 5 times in a row is reported once the server is back', async () => {
    let server = await listen(await startTestApp({}, t.db));
    const port = Number(new URL(server.url).port); // the page must find the server back on it
    const { page } = await open(await t.browser.newContext(), `http://127.0.0.1:${port}/#/tasks`);
    await page.locator('pd-task-list').waitFor();
    const before = (await crashes()).length;
    await server.close();
    // Five failed reconnects (0.5 + 1 + 2 + 4 s of backoff): the report waits in the page.
    await page.waitForFunction(() => (localStorage.getItem('pd.crash-reports') ?? '').includes('"kind":"stream"'), undefined, { timeout: 30_000 });
    server = await listen(await startTestApp({}, t.db), port);
    const rows = await waitFor(crashes, (r) => r.length > before, { timeout: 30_000, what: 'the stream failure journalled' });
    expect(rows.slice(before).map((r) => r.payload)).toEqual([
      expect.objectContaining({ kind: 'stream', attempts: 5, view: '#/tasks', message: expect.stringContaining('failed to reconnect 5 times in a row') }),
    ]);
    await page.waitForFunction(() => localStorage.getItem('pd.crash-reports') === null);
    await page.context().close();
    await server.close();
  });

  it('a report made while another is on its way is sent too, not lost', async () => {
    const { page } = await open(await t.browser.newContext(), `${t.url}/#/activity`, { allowErrors: true });
    await page.locator('pd-activity').waitFor();
    const before = (await crashes()).length;
    // The first report's POST is held until the second one is queued behind it.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let posts = 0;
    await page.route('**/api/diagnostics/client-errors', async (route) => {
      if (posts++ === 0) await held;
      await route.continue();
    });
    const queued = () => page.evaluate(() => (JSON.parse(localStorage.getItem('pd.crash-reports') ?? '[]') as unknown[]).length);
    await page.evaluate(() => setTimeout(() => { throw new Error('first of two reports'); }, 0));
    await waitFor(() => Promise.resolve(posts), (n) => n === 1, { what: 'the first report on its way' });
    await page.evaluate(() => void Promise.reject(new Error('second, queued meanwhile')));
    await waitFor(queued, (n) => n === 2, { what: 'the second report queued' });
    release();
    const rows = await waitFor(crashes, (r) => r.length >= before + 2, { what: 'both reports journalled' });
    expect(rows.slice(before).map((r) => [r.payload.kind, r.payload.message])).toEqual([
      ['error', expect.stringContaining('first of two reports')],
      ['unhandled_rejection', 'second, queued meanwhile'],
    ]);
    await page.waitForFunction(() => localStorage.getItem('pd.crash-reports') === null);
    await page.context().close();
  });
});
