// The Activity feed holds a hundred thousand rows and still renders only what is on screen;
// notifications fire for a hidden page; a message that never reached the server is marked orphaned
// and can be retried.
import { beforeAll, describe, expect, it } from 'vitest';
import { listen, startTestApp } from '../helpers/app.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';

let t: BrowserApp;
beforeAll(async () => {
  t = await startBrowserApp();
});


const feedRows = () =>
  [...document.querySelector('pd-app')!.shadowRoot!.querySelector('pd-activity')!.shadowRoot!.querySelectorAll('.row')].map((r) =>
    Number(r.getAttribute('data-seq')),
  );

describe('the Activity feed', () => {
  it('over 100 000 rows opens with the newest few hundred at the bottom, renders only the visible ones, and pages older ones in at the top', async () => {
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('big journal') as id`;
    await t.db.sql`insert into dispatch.events (project_id, event_type, payload)
                   select ${p!.id}, 'claude.unknown', jsonb_build_object('text', 'row ' || g) from generate_series(1, 100000) g`;
    const [{ top } = { top: 0 }] = await t.db.sql<{ top: number }[]>`select max(seq) as top from dispatch.events`;
    // The hub frames the 100 000 new rows for live clients first; the later tests need it caught up.
    await waitFor(() => t.hub.head, (h) => h >= top, { timeout: 60_000, what: 'the hub to read the inserted rows' });
    const ctx = await t.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const pages: string[] = [];
    page.on('request', (r) => void (r.url().includes('/api/events') && pages.push(r.url())));
    await page.goto(`${t.url}/#/activity`);
    // Functions, not strings: the page's CSP forbids evaluating strings.
    await page.waitForFunction(
      (seq) => !!document.querySelector('pd-app')?.shadowRoot?.querySelector('pd-activity')?.shadowRoot?.querySelector(`.row[data-seq="${seq}"]`),
      top,
      { timeout: 30_000 },
    );
    const held = Number.parseInt(await page.getByTestId('activity-count').innerText(), 10);
    expect(held).toBe(300);
    expect(pages).toHaveLength(1);
    const rendered = await page.evaluate(feedRows);
    expect(rendered.length).toBeGreaterThan(5);
    expect(rendered.length).toBeLessThan(100);
    expect(Math.max(...rendered)).toBe(top);
    await shot(page, 'desktop-activity-100k');
    // Scrolled to the top, the next older page comes in above.
    // One wheel at a time until the feed asks for the older page: wheels sent in a burst could land
    // before the list has laid out (nothing loads), and a wheel after the page came in could ask
    // for the next one too.
    await page.locator('pd-activity lit-virtualizer').hover();
    const count = page.getByTestId('activity-count');
    for (let i = 0; i < 20 && pages.length < 2; i++) {
      const asked = page.waitForRequest((r) => r.url().includes('/api/events'), { timeout: 1_500 }).catch(() => null);
      await page.mouse.wheel(0, -20_000);
      await asked;
    }
    expect(pages).toHaveLength(2);
    await count.filter({ hasText: '600 events' }).waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
    await ctx.close();
  });
});

describe('notifications', () => {
  it('raise a system notification for a finished or stalled task while the page is hidden', async () => {
    const ctx = await t.browser.newContext();
    await ctx.grantPermissions(['notifications'], { origin: t.url });
    // Headless pages are never hidden and show no notifications: record instead of showing.
    await ctx.addInitScript(() => {
      const w = window as unknown as { __shown: string[]; __hidden: boolean };
      w.__shown = [];
      w.__hidden = true;
      Object.defineProperty(document, 'hidden', { get: () => w.__hidden });
      class Recorder {
        static permission = 'granted';
        static requestPermission = async () => 'granted';
        constructor(title: string, opts?: { body?: string }) {
          w.__shown.push(`${title}: ${opts?.body ?? ''}`);
        }
      }
      (window as unknown as { Notification: unknown }).Notification = Recorder;
    });
    const { page } = await open(ctx, t.url);
    await page.getByTestId('empty-tasks').or(page.locator('pd-task-list')).first().waitFor();
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('notify me') as id`;
    const [task] = await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Ship the release notes') as id`;
    await t.db.sql`select dispatch.set_task_status(${task!.id}, 'running', 'started')`;
    await t.db.sql`select dispatch.set_task_status(${task!.id}, 'stalled', 'no output for 120 s')`;
    await t.db.sql`select dispatch.set_task_status(${task!.id}, 'success', 'handoff validated')`;
    await page.waitForFunction(() => (window as unknown as { __shown: string[] }).__shown.length >= 2, undefined, { timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { __shown: string[] }).__shown)).toEqual([
      'Task stalled: Ship the release notes',
      'Task success: Ship the release notes',
    ]);
  });
});

describe('a visible page', () => {
  it('raises no system notification: the person is looking at the app already', async () => {
    const ctx = await t.browser.newContext();
    await ctx.grantPermissions(['notifications'], { origin: t.url });
    await ctx.addInitScript(() => {
      const w = window as unknown as { __shown: string[] };
      w.__shown = [];
      Object.defineProperty(document, 'hidden', { get: () => false });
      class Recorder {
        static permission = 'granted';
        static requestPermission = async () => 'granted';
        constructor(title: string) {
          w.__shown.push(title);
        }
      }
      (window as unknown as { Notification: unknown }).Notification = Recorder;
    });
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('watching') as id`;
    await ctx.addInitScript((id) => localStorage.setItem('pd.project', id), p!.id);
    const { page } = await open(ctx, t.url);
    await page.getByTestId('empty-tasks').or(page.locator('pd-task-list')).first().waitFor();
    const [task] = await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Watch me finish') as id`;
    await t.db.sql`select dispatch.set_task_status(${task!.id}, 'running', 'started')`;
    await t.db.sql`select dispatch.set_task_status(${task!.id}, 'stalled', 'no output for 120 s')`;
    await t.db.sql`select dispatch.set_task_status(${task!.id}, 'success', 'handoff validated')`;
    // The page has the last change (its card says success): had it notified, it would have by now.
    await page.locator(`li[data-task="${task!.id}"][data-status="success"]`).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { __shown: string[] }).__shown)).toEqual([]);
    await ctx.close();
  });
});

describe('a message the server never recorded', () => {
  it('is marked orphaned, and retry records it once', async () => {
    const app2 = await startTestApp({}, t.db);
    let server = await listen(app2);
    const port = Number(new URL(server.url).port); // the retry must find the server back on it
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('orphans') as id`;
    const { page } = await open(await t.browser.newContext(), `http://127.0.0.1:${port}/#/chat`);
    await page.locator('select#project').selectOption(p!.id);
    // The chat is a lazy chunk: loaded before the server goes, or there is no box to type in.
    await page.locator('textarea').waitFor();
    await server.close();
    await page.locator('textarea').fill('Are you there?');
    await page.locator('textarea').press('Enter');
    const msg = page.locator('li.user', { hasText: 'Are you there?' });
    await msg.and(page.locator('[data-state="orphaned"]')).waitFor({ timeout: 15_000 });
    await shot(page, 'desktop-orphaned');
    server = await listen(await startTestApp({}, t.db), port);
    await msg.getByRole('button', { name: 'retry' }).click();
    await page.locator('li.user[data-state="pending"]', { hasText: 'Are you there?' }).waitFor({ timeout: 15_000 });
    const rows = await t.db.sql`select 1 from dispatch.events where project_id = ${p!.id} and event_type = 'user_message'`;
    expect(rows).toHaveLength(1);
  });
});

describe('a message recorded whose answer was lost', () => {
  it('keeps its message_id on retry, so the journal holds it once and the chat shows it once', async () => {
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('lost answers') as id`;
    const ctx = await t.browser.newContext();
    await ctx.addInitScript((id) => localStorage.setItem('pd.project', id), p!.id);
    // The stream is down (else the recorded row would reconcile the message by itself), and the
    // first POST reaches the server and is recorded while its answer never comes back.
    await ctx.route('**/api/stream*', (route) => route.abort('connectionreset'));
    const { page } = await open(ctx, `${t.url}/#/chat`);
    await page.locator('textarea').waitFor();
    const posted: string[] = [];
    let first = true;
    await page.route('**/api/messages', async (route) => {
      posted.push((route.request().postDataJSON() as { message_id: string }).message_id);
      if (!first) return route.continue();
      first = false;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.locator('textarea').fill('Only once, please.');
    await page.locator('textarea').press('Enter');
    const msg = page.locator('li.user', { hasText: 'Only once, please.' });
    await msg.and(page.locator('[data-state="orphaned"]')).waitFor({ timeout: 15_000 });
    await msg.getByRole('button', { name: 'retry' }).click();
    await expect.poll(() => posted.length, { message: 'the retry is posted' }).toBe(2);
    // The stream back: the journal's record of the message takes over from the outbox.
    await ctx.unroute('**/api/stream*');
    await page.locator('li.user[data-state="pending"]', { hasText: 'Only once, please.' }).waitFor({ timeout: 30_000 });

    expect(posted).toHaveLength(2);
    expect(posted[1]).toBe(posted[0]);
    const rows = await t.db.sql<{ message_id: string }[]>`
      select message_id from dispatch.events where project_id = ${p!.id} and event_type = 'user_message'`;
    expect(rows.map((r) => r.message_id)).toEqual([posted[0]]);
    expect(await msg.count()).toBe(1);
    await ctx.close();
  });
});
