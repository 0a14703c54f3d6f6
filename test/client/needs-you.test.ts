// "Needs you" on the phone: a gated task, an extraction_failed task, a stalled extractor and a
// stalled orchestrator turn each appear in the section, in the header chip and on the app badge,
// and go away when resolved — all live, from the journal.
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { listen, startTestApp, type TestApp } from '../helpers/app.ts';
import { launch, open, shot } from '../helpers/browser.ts';

let t: TestApp;
let url: string;
let browser: Browser;
beforeAll(async () => {
  t = await startTestApp();
  url = (await listen(t)).url;
  browser = await launch();
});

describe('the Needs you section', () => {
  it('lists what waits for the person, counts it in the chip and the badge, and clears as each is resolved', async () => {
    const sql = t.db.sql;
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('needs you') as id`;
    const task = async (brief: string) => (await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, ${brief}) as id`)[0]!.id;
    const gated = await task('Deploy to staging');
    const failed = await task('Summarise the logs');
    const session = async (role: string, taskId: string | null) =>
      (await sql<{ id: string }[]>`insert into dispatch.sessions (project_id, task_id, role, status) values (${p!.id}, ${taskId}, ${role}, 'running') returning id`)[0]!.id;
    const extractor = await session('extractor', failed);
    const orchestrator = await session('orchestrator', null);

    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await ctx.addInitScript(() => {
      const w = window as unknown as { __badge: number | null };
      w.__badge = null;
      Object.assign(navigator, {
        setAppBadge: async (n?: number) => void (w.__badge = n ?? 0),
        clearAppBadge: async () => void (w.__badge = 0),
      });
    });
    const { page } = await open(ctx, url);
    await page.locator('pd-task-list').waitFor();
    const section = page.getByTestId('needs-you');
    const badge = () => page.evaluate(() => (window as unknown as { __badge: number | null }).__badge);

    await sql`select dispatch.set_task_status(${gated}, 'gated', 'waiting for approval: git push')`;
    await sql`select dispatch.set_task_status(${failed}, 'extraction_failed', 'the extractor answered no JSON')`;
    await sql`select dispatch.session_stalled(${extractor}, 130000, 120000)`;
    await sql`select dispatch.session_stalled(${orchestrator}, 125000, 120000)`;
    await section.locator(`li[data-key="task:${gated}"]`).waitFor({ timeout: 15_000 });
    await section.locator(`li[data-key="task:${failed}"]`).waitFor();
    await section.locator(`li[data-key="session:${extractor}"]`, { hasText: 'stalled extractor' }).waitFor();
    await section.locator(`li[data-key="session:${orchestrator}"]`, { hasText: 'stalled orchestrator' }).waitFor();
    expect(await section.locator('li').count()).toBe(4);
    await page.locator('[data-chip="needs-you"]', { hasText: '4 needs you' }).waitFor();
    expect(await badge()).toBe(4);
    await shot(page, 'phone-needs-you');

    // Tapping a task item opens it.
    await section.locator(`li[data-key="task:${gated}"] button`).click();
    await page.locator('pd-task-detail h2', { hasText: 'Deploy to staging' }).waitFor();
    await page.goBack();

    // Resolved, one by one: each leaves the section, the chip and the badge.
    await sql`select dispatch.set_task_status(${gated}, 'success', 'approved')`;
    await sql`select dispatch.session_resumed(${extractor})`;
    await page.locator('[data-chip="needs-you"]', { hasText: '2 needs you' }).waitFor({ timeout: 15_000 });
    expect(await badge()).toBe(2);
    await sql`select dispatch.set_task_status(${failed}, 'cancelled', 'given up')`;
    await sql`select dispatch.session_resumed(${orchestrator})`;
    await section.waitFor({ state: 'detached', timeout: 15_000 });
    expect(await badge()).toBe(0);
    await ctx.close();
  });
});
