// The star on a task card toggles focus: one tap focuses the task everywhere, a second tap clears
// that focus; neither touches the task's "active … ago" time.
import { beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';

let t: BrowserApp;
beforeAll(async () => {
  t = await startBrowserApp();
});

describe('the star', () => {
  it('focuses a task, clears the focus on a second tap, and leaves its activity time alone', async () => {
    const sql = t.db.sql;
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('stars') as id`;
    const [task] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Water the plants') as id`;
    await sql`select dispatch.set_task_status(${task!.id}, 'running', 'started')`;
    // Last active three hours ago: a focus switch written now must not make it "active 0s ago".
    await sql`update dispatch.tasks set last_activity_at = now() - interval '3 hours' where id = ${task!.id}`;

    const ctx = await t.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const { page } = await open(ctx, t.url);
    const card = page.locator(`li[data-task="${task!.id}"]`);
    const active = card.getByText(/^active /);
    await expect.poll(() => active.innerText()).toMatch(/^active 3h 0\dm ago$/);
    const star = card.getByRole('button', { name: 'focus this task' });
    expect(await star.getAttribute('aria-pressed')).toBe('false');

    await star.click();
    await card.locator('button.star[aria-pressed="true"]').waitFor();
    await page.getByTestId('focused').filter({ hasText: 'Water the plants' }).waitFor();
    expect(await active.innerText()).toMatch(/^active 3h 0\dm ago$/);

    await star.click();
    await card.locator('button.star[aria-pressed="false"]').waitFor();
    await page.getByTestId('focused').waitFor({ state: 'detached' });
    expect(await active.innerText()).toMatch(/^active 3h 0\dm ago$/);
    // The clear is journalled like any focus switch, so every client follows it.
    const rows = await waitFor(
      () => sql<{ task_id: string | null }[]>`select payload->>'task_id' as task_id from dispatch.events where event_type = 'focus.changed' order by seq`,
      (r) => r.length === 2,
      { what: 'two focus switches' },
    );
    expect(rows.map((r) => r.task_id)).toEqual([task!.id, null]);
    // A reload shows the cleared focus and the old activity time, from the server.
    await page.reload();
    await card.waitFor();
    expect(await card.locator('button.star').getAttribute('aria-pressed')).toBe('false');
    expect(await active.innerText()).toMatch(/^active 3h 0\dm ago$/);
    await ctx.close();
  });
});
