// The Trellis tile in a real browser, against a real server, Postgres and the Trellis test server
// with string thread ids: the live thread, the list and the context; one tap focuses a thread on
// two browser contexts at once; Trellis hanging or stopped → "unavailable" in place while tasks
// keep updating; no TRELLIS_URL → no tile; the app's own server away → the tile keeps what it showed.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { startTrellis, type TrellisServer } from '../../fixtures/trellis/server.ts';
import { listen, startTestApp } from '../helpers/app.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const scenario: Scenario = {
  name: 'trellis-client',
  description: '',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [{ text: JSON.stringify({ goal: 'Hum', current_state: 'Hummed', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
    { match: 'Hum a tune', steps: [{ text: 'La la la, a slow tune.', chunks: 8, delay_ms: 250 }] },
  ],
};

let trellis: TrellisServer;
let loop: Loop;
let t: BrowserApp;
beforeAll(async () => {
  const recent = new Date(Date.now() - 3 * 60_000).toISOString();
  trellis = await startTrellis(
    [
      { id: 'th_garden', title: 'Plan the garden', updated_at: recent, recent_context: [{ role: 'user', text: 'tomatoes before beans this year' }] },
      { id: 'th_beans', title: 'Beans', recent_context: [{ role: 'assistant', text: 'runner beans need poles <b>tall</b>' }] },
      { id: 42, title: 'Numbered thread', recent_context: [] },
    ],
    'th_garden',
  );
  loop = await startLoop({ scenarios: [scenario] });
  t = await startBrowserApp({ env: { TRELLIS_URL: trellis.url }, db: loop.db });
});
afterAll(() => trellis.close());

const tile = (page: Page) => page.locator('pd-trellis');

describe('the Trellis tile', () => {
  it('shows the live thread, the list and the context; a tap focuses a thread on two clients at once', async () => {
    const a = await open(await t.browser.newContext({ viewport: { width: 390, height: 844 } }), t.url);
    const b = await open(await t.browser.newContext({ viewport: { width: 1280, height: 800 } }), t.url);
    for (const { page } of [a, b]) {
      await tile(page).getByTestId('trellis-live').getByText('Plan the garden').waitFor();
      expect(await tile(page).getByTestId('trellis-live-id').innerText()).toBe('th_garden');
      expect(await tile(page).getByTestId('trellis-live-activity').innerText()).toMatch(/3m \d\ds ago/);
    }
    await tile(a.page).getByTestId('trellis-toggle').click();
    const threads = tile(a.page).getByTestId('trellis-threads').locator('button');
    expect(await threads.allInnerTexts()).toEqual(['Plan the garden live', 'Beans', 'Numbered thread']);
    await tile(a.page).getByTestId('trellis-context').getByText('tomatoes before beans this year').waitFor();
    await shot(a.page, 'phone-trellis-open');

    await tile(a.page).locator('button[data-thread="th_beans"]').click();
    for (const { page } of [a, b]) await tile(page).getByTestId('trellis-focus').getByText('Beans').waitFor();
    await a.page.locator('pd-trellis button[data-thread="th_beans"][aria-pressed="true"]').waitFor();
    // The focused thread's context, as text: Trellis's markup stays inert.
    await tile(a.page).getByTestId('trellis-context').getByText('runner beans need poles <b>tall</b>').waitFor();
    const state = (await (await fetch(`${t.url}/api/state`)).json()) as { focus: { thread_id: unknown } };
    expect(state.focus.thread_id).toBe('th_beans');

    // A numeric id goes through as a number, and back to the live thread with a string one.
    await tile(a.page).locator('button[data-thread="42"]').click();
    await tile(b.page).getByTestId('trellis-focus').getByText('Numbered thread').waitFor();
    expect(((await (await fetch(`${t.url}/api/state`)).json()) as { focus: { thread_id: unknown } }).focus.thread_id).toBe(42);
    await tile(a.page).locator('button[data-thread="th_garden"]').click();
    await waitFor(() => tile(b.page).getByTestId('trellis-focus').count(), (n) => n === 0, { what: 'focus back on the live thread' });
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    await a.page.context().close();
    await b.page.context().close();
  });

  it('says unavailable in place when Trellis hangs, then when it is stopped, while tasks keep updating', async () => {
    const { page, errors } = await open(await t.browser.newContext({ viewport: { width: 390, height: 844 } }), t.url);
    await tile(page).getByTestId('trellis-live').getByText('Plan the garden').waitFor();
    const project = await loop.project('tunes', { allowed_tools: [] });

    trellis.set({ mode: 'slow' });
    const taskId = await loop.submit(project, 'Hum a tune slowly.');
    const asked = Date.now();
    await tile(page).getByTestId('trellis-refresh').click();
    await tile(page).getByTestId('trellis-unavailable').waitFor();
    const hungMs = Date.now() - asked;
    expect(await tile(page).getByTestId('trellis').innerText()).toContain('timed out after 1000 ms');
    // The task list never waited on Trellis.
    await page.locator(`li[data-task="${taskId}"] [data-status="success"]`).waitFor({ timeout: 30_000 });

    trellis.set({ mode: 'ok' });
    await tile(page).getByTestId('trellis-refresh').click();
    await tile(page).getByTestId('trellis-live').getByText('Plan the garden').waitFor();
    // Starring the task keeps the focused thread: a focus names a thread and a task.
    await tile(page).getByTestId('trellis-toggle').click();
    await tile(page).locator('button[data-thread="th_beans"]').click();
    await tile(page).getByTestId('trellis-focus').getByText('Beans').waitFor();
    await page.locator(`li[data-task="${taskId}"] button.star`).click();
    await page.locator(`li[data-task="${taskId}"] button.star[aria-pressed="true"]`).waitFor();
    expect(((await (await fetch(`${t.url}/api/state`)).json()) as { focus: unknown }).focus).toMatchObject({ task_id: taskId, thread_id: 'th_beans' });
    await trellis.close();
    const stoppedAt = Date.now();
    await tile(page).getByTestId('trellis-refresh').click();
    await tile(page).getByTestId('trellis-unavailable').waitFor();
    const stoppedMs = Date.now() - stoppedAt;
    expect(await tile(page).getByTestId('trellis').innerText()).toContain('unreachable (ECONNREFUSED)');
    console.log(`trellis tile: "unavailable" shown ${hungMs} ms after asking a hanging Trellis, ${stoppedMs} ms after asking a stopped one`);
    await shot(page, 'phone-trellis-unavailable');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('is not there at all without TRELLIS_URL', async () => {
    const plain = (await listen(await startTestApp({}, loop.db))).url;
    const { page, errors } = await open(await t.browser.newContext(), plain);
    await page.waitForFunction(() => document.querySelector('pd-app')?.shadowRoot?.querySelector('pd-glance')?.shadowRoot?.querySelector('pd-trellis')?.hasAttribute('hidden') === true);
    expect(await tile(page).isVisible()).toBe(false);
    expect(await page.getByText('Trellis unavailable').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('is not called unavailable when its own server cannot be reached (no tile stays no tile)', async () => {
    const plain = (await listen(await startTestApp({}, loop.db))).url;
    const { page, errors } = await open(await t.browser.newContext({ viewport: { width: 390, height: 844 } }), plain);
    const hidden = () => page.evaluate(() => document.querySelector('pd-app')?.shadowRoot?.querySelector('pd-glance')?.shadowRoot?.querySelector('pd-trellis')?.hasAttribute('hidden'));
    await waitFor(hidden, (h) => h === true, { what: 'no tile without TRELLIS_URL' });
    // The phone goes offline; the tile's next refresh (every 10 s) meets no server at all.
    const failed = page.waitForEvent('requestfailed', { predicate: (r) => r.url().includes('/api/trellis'), timeout: 30_000 });
    await page.context().setOffline(true);
    await failed;
    await page.getByText('Offline').first().waitFor();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await page.getByText('Trellis unavailable').count()).toBe(0);
    expect(await hidden()).toBe(true);
    await page.context().setOffline(false);
    await page.getByText('Offline').first().waitFor({ state: 'hidden' });
    expect(await hidden()).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
