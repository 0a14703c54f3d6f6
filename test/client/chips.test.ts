// The glance chips answer a tap: a status chip shows the Tasks view narrowed to those tasks (the URL
// says so, so back and reload keep it) until "Show all"; "needs you" brings its list into view.
import { beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open } from '../helpers/browser.ts';

let t: BrowserApp;
beforeAll(async () => {
  t = await startBrowserApp();
});

describe('the glance chips', () => {
  it('narrow the task list to their tasks, and "needs you" scrolls to its list', async () => {
    const sql = t.db.sql;
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('chips') as id`;
    const task = async (brief: string, status: string) => {
      const [r] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, ${brief}) as id`;
      await sql`select dispatch.set_task_status(${r!.id}, ${status}, ${status === 'running' ? 'started' : `ended ${status}`})`;
      return r!.id;
    };
    const running = [await task('Dig the beds', 'running'), await task('Sow the beans', 'running')];
    const failed = await task('Fix the fence', 'crashed');
    const finished = await task('Order the seeds', 'success');
    const needs = await task('Pick a trellis', 'extraction_failed');

    const { page, errors } = await open(await t.browser.newContext({ viewport: { width: 390, height: 844 } }), t.url);
    const cards = () => page.locator('pd-task-list li[data-task]').evaluateAll((els) => els.map((e) => e.getAttribute('data-task')).sort());
    await expect.poll(cards).toEqual([...running, failed, finished, needs].sort());

    await page.locator('[data-chip="running"]', { hasText: '2 running' }).click();
    await expect.poll(cards).toEqual([...running].sort());
    expect(page.url()).toMatch(/#\/tasks\?only=running$/);
    expect(await page.getByTestId('only').innerText()).toContain('Showing 2 running tasks');

    await page.locator('[data-chip="failed"]').click();
    await expect.poll(cards).toEqual([failed]);
    // A reload keeps the narrowed list (it is in the URL), and back returns to the previous one.
    await page.reload();
    await expect.poll(cards).toEqual([failed]);
    await page.goBack();
    await expect.poll(cards).toEqual([...running].sort());

    // A task that ends leaves the narrowed list live.
    await sql`select dispatch.set_task_status(${running[0]!}, 'success', 'done')`;
    await expect.poll(cards).toEqual([running[1]!]);

    await page.getByTestId('show-all').click();
    await expect.poll(cards).toEqual([...running, failed, finished, needs].sort());
    expect(page.url()).toMatch(/#\/tasks$/);

    // "needs you" from a task's page: back on Tasks with the needs-you list on screen.
    await page.locator(`li[data-task="${finished}"] button.open`).click();
    await page.waitForURL(/#\/task\//);
    await page.locator('[data-chip="needs-you"]', { hasText: '1 needs you' }).click();
    await page.waitForURL(/#\/tasks$/);
    await expect.poll(() => page.locator('pd-needs-you').getByText('Pick a trellis').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
