// The phone layout at 390×844: every tab fits, an over-long chat draft is kept with its size,
// Cancel asks twice, and axe-core finds no serious or critical accessibility violation on any
// view, light or dark.
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { listen, startTestApp, type TestApp } from '../helpers/app.ts';
import { launch, open, shot } from '../helpers/browser.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let t: TestApp;
let url: string;
let browser: Browser;
let project: string;
let task: string;
beforeAll(async () => {
  t = await startTestApp();
  url = (await listen(t)).url;
  browser = await launch();
  project = (await t.db.sql<{ id: string }[]>`select dispatch.create_project('phone layout project with a long name') as id`)[0]!.id;
  task = (await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${project}, 'Tidy the release notes and check every link') as id`)[0]!.id;
  await t.db.sql`select dispatch.set_task_status(${task}, 'running', 'started')`;
  await t.db.sql`insert into dispatch.sessions (project_id, task_id, role, status, started_at) values (${project}, ${task}, 'worker', 'running', now() - interval '2 minutes')`;
});

async function phone(theme: 'light' | 'dark' = 'light'): Promise<{ page: Page; close(): Promise<void> }> {
  // axe is injected as a script: the page's CSP (script-src 'self') would refuse it otherwise.
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true, colorScheme: theme });
  await ctx.addInitScript(([p, th]) => {
    localStorage.setItem('pd.project', p!);
    localStorage.setItem('pd.theme', th!);
  }, [project, theme]);
  const { page } = await open(ctx, url);
  await page.locator(`li[data-task="${task}"]`).waitFor();
  return { page, close: () => ctx.close() };
}

describe('the phone layout', () => {
  it('fits every tab in 390 px, keeps an over-long draft with its size, and asks before cancelling', async () => {
    const { page, close } = await phone();
    for (const tab of await page.getByRole('tab').all()) {
      const box = (await tab.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    // Timeline labels are readable on a phone (at least 11 px tall on screen).
    await page.getByRole('tab', { name: 'Timeline' }).click();
    const label = page.locator('pd-timeline svg text').first();
    await label.waitFor();
    expect((await label.boundingBox())!.height).toBeGreaterThanOrEqual(11);
    await page.getByRole('tab', { name: 'Chat' }).click();
    const big = 'x'.repeat(300 * 1024 - 2); // 300 KB on the wire, with its JSON quotes
    await page.locator('textarea').fill(big);
    await page.getByRole('button', { name: 'send message' }).click();
    await page.getByTestId('chat-error').filter({ hasText: 'too long (300 KB, limit 256 KB)' }).waitFor();
    expect((await page.locator('textarea').inputValue()).length).toBe(big.length);
    const [sent] = await t.db.sql`select 1 from dispatch.events where project_id = ${project} and event_type = 'user_message'`;
    expect(sent).toBeUndefined();

    await page.getByRole('tab', { name: 'Tasks' }).click();
    await page.locator(`li[data-task="${task}"] button.open`).click();
    const cancel = page.getByTestId('cancel');
    await cancel.click();
    await page.getByRole('button', { name: 'confirm: cancel this task' }).waitFor();
    const [still] = await t.db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${task}`;
    expect(still!.status).toBe('running');
    await close();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious or critical accessibility violation on any view (${theme})`, async () => {
      const { page, close } = await phone(theme);
      await page.addScriptTag({ path: AXE });
      const found: string[] = [];
      const views = ['Tasks', 'Chat', 'Activity', 'Working set', 'Timeline'];
      for (const view of views) {
        await page.getByRole('tab', { name: view }).click();
        await page.waitForTimeout(300); // the view paints; axe reads what is there
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
        });
        found.push(...violations.map((v) => `${view}: ${v}`));
        await shot(page, `phone-${theme}-${view.toLowerCase().replace(' ', '-')}`);
      }
      expect(found).toEqual([]);
      await close();
    });
  }
});
