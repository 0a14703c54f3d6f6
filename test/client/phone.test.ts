// The phone layout at 390×844: the views are one bottom bar (four tabs and More, every view in
// one or two taps, by keyboard too) and one row of tabs on a 1440 px screen, an over-long chat
// draft is kept with its size, Cancel asks twice, and axe-core finds no serious or critical
// accessibility violation on any view, light or dark.
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot, showView } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let t: BrowserApp;
let project: string;
let task: string;
beforeAll(async () => {
  t = await startBrowserApp();
  project = (await t.db.sql<{ id: string }[]>`select dispatch.create_project('phone layout project with a long name') as id`)[0]!.id;
  task = (await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${project}, 'Tidy the release notes and check every link') as id`)[0]!.id;
  await t.db.sql`select dispatch.set_task_status(${task}, 'running', 'started')`;
  await t.db.sql`insert into dispatch.sessions (project_id, task_id, role, status, started_at) values (${project}, ${task}, 'worker', 'running', now() - interval '2 minutes')`;
});

async function phone(theme: 'light' | 'dark' = 'light'): Promise<{ page: Page; close(): Promise<void> }> {
  // axe is injected as a script: the page's CSP (script-src 'self') would refuse it otherwise.
  const ctx = await t.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true, colorScheme: theme });
  await ctx.addInitScript(([p, th]) => {
    localStorage.setItem('pd.project', p!);
    localStorage.setItem('pd.theme', th!);
  }, [project, theme]);
  const { page } = await open(ctx, t.url);
  await page.locator(`li[data-task="${task}"]`).waitFor();
  return { page, close: () => ctx.close() };
}

/** The element each view draws into (More: its sheet). */
const VIEW_ELEMENT: Record<string, string> = {
  Tasks: 'pd-task-list', Chat: 'pd-chat', Activity: 'pd-activity', 'Working set': 'pd-working-set', Timeline: 'pd-timeline', Health: 'pd-diagnostics', More: '#more-views',
};

/** The view is defined (its lazy chunk loaded), rendered, and shows some text: a blank view fails here. */
async function painted(page: Page, view: string): Promise<void> {
  const el = page.locator(VIEW_ELEMENT[view]!).first();
  await el.waitFor({ state: 'attached', timeout: 15_000 });
  await expect
    .poll(() => el.evaluate(async (e) => {
      await (e as HTMLElement & { updateComplete?: Promise<unknown> }).updateComplete;
      return ((e.shadowRoot ?? e) as Node).textContent?.trim().length ?? 0;
    }), { timeout: 15_000, message: `${view} paints` })
    .toBeGreaterThan(0);
}

const VIEWS: [string, string][] = [['Tasks', 'tasks'], ['Chat', 'chat'], ['Activity', 'activity'], ['Working set', 'working-set'], ['Timeline', 'timeline'], ['Health', 'health']];

describe('the phone layout', () => {
  it('navigates from one row at the bottom of a 390 px phone: four views and More, every view one or two taps away, by keyboard too', async () => {
    const { page, close } = await phone();
    // One row, inside the screen's width, at the bottom of the screen.
    const items = [...(await page.getByRole('tab').all()), page.getByRole('button', { name: 'More views' })];
    expect(items).toHaveLength(5);
    const boxes = await Promise.all(items.map(async (l) => (await l.boundingBox())!));
    for (const b of boxes) {
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width).toBeLessThanOrEqual(390);
      expect(b.y).toBe(boxes[0]!.y);
      expect(b.y + b.height).toBeGreaterThan(844 - 80);
      expect(b.y + b.height).toBeLessThanOrEqual(844);
      expect(b.height).toBeGreaterThanOrEqual(44);
    }
    // Every view in one or two taps, and the URL says which.
    for (const [name, hash] of VIEWS) {
      let taps = 0;
      const tab = page.getByRole('tab', { name, exact: true });
      if (!(await tab.isVisible())) {
        await page.getByRole('button', { name: 'More views' }).click();
        taps++;
      }
      await tab.click();
      taps++;
      expect(taps).toBeLessThanOrEqual(2);
      await page.waitForURL(`**/#/${hash}`);
    }
    // A view behind More marks More as the current place.
    expect(await page.getByRole('button', { name: 'More views' }).getAttribute('aria-current')).toBe('page');
    // By keyboard: More opens its sheet with the focus on its first view; Escape closes it and gives the focus back.
    const more = page.getByRole('button', { name: 'More views' });
    await more.focus();
    await page.keyboard.press('Enter');
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    expect(await page.evaluate(() => document.querySelector('pd-app')!.shadowRoot!.activeElement?.textContent)).toBe('Timeline');
    await shot(page, 'phone-more');
    await page.keyboard.press('Escape');
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.querySelector('pd-app')!.shadowRoot!.activeElement?.getAttribute('aria-label'))).toBe('More views');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/#/health');
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    await close();
  });

  it('shows every view as one row of tabs under the header on a 1440 px screen', async () => {
    const ctx = await t.browser.newContext({ viewport: { width: 1440, height: 900 } });
    await ctx.addInitScript((p) => localStorage.setItem('pd.project', p), project);
    const { page } = await open(ctx, t.url);
    await page.locator(`li[data-task="${task}"]`).waitFor();
    const tabs = await page.getByRole('tab').all();
    expect(tabs).toHaveLength(VIEWS.length);
    const boxes = await Promise.all(tabs.map(async (l) => (await l.boundingBox())!));
    for (const b of boxes) expect(b.y).toBe(boxes[0]!.y);
    expect(boxes[0]!.y).toBeLessThan(300);
    expect(await page.getByRole('button', { name: 'More views' }).count()).toBe(0);
    await ctx.close();
  });

  it('keeps an over-long draft with its size, and asks before cancelling', async () => {
    const { page, close } = await phone();
    // Timeline labels are readable on a phone (at least 11 px tall on screen).
    await showView(page, 'Timeline');
    const label = page.locator('pd-timeline svg text').first();
    await label.waitFor();
    expect((await label.boundingBox())!.height).toBeGreaterThanOrEqual(11);
    await showView(page, 'Chat');
    const big = 'x'.repeat(300 * 1024 - 2); // 300 KB on the wire, with its JSON quotes
    await page.locator('textarea').fill(big);
    await page.getByRole('button', { name: 'send message' }).click();
    await page.getByTestId('chat-error').filter({ hasText: 'too long (300 KB, limit 256 KB)' }).waitFor();
    expect((await page.locator('textarea').inputValue()).length).toBe(big.length);
    const [sent] = await t.db.sql`select 1 from dispatch.events where project_id = ${project} and event_type = 'user_message'`;
    expect(sent).toBeUndefined();

    await showView(page, 'Tasks');
    await page.locator(`li[data-task="${task}"] button.open`).click();
    const cancel = page.getByTestId('cancel');
    await cancel.click();
    await page.getByRole('button', { name: 'confirm: cancel this task' }).waitFor();
    const [still] = await t.db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${task}`;
    expect(still!.status).toBe('running');
    expect(await t.db.sql`select 1 from dispatch.events where task_id = ${task} and event_type = 'task.cancel_requested'`).toHaveLength(0);
    // The second tap cancels.
    await page.getByRole('button', { name: 'confirm: cancel this task' }).click();
    await waitFor(() => t.db.sql`select 1 from dispatch.events where task_id = ${task} and event_type = 'task.cancel_requested'`, (r) => r.length === 1, { what: 'the cancel request' });
    await close();
  });

  it('cuts a long project name with an ellipsis and gives the full name as its tooltip', async () => {
    const { page, close } = await phone();
    const name = 'phone layout project with a long name';
    const picker = page.locator('select#project');
    expect(await picker.getAttribute('title')).toBe(name);
    // Whether the name is wider than its box (measured in the box's own font), and how it is cut.
    const cut = (l: ReturnType<Page['locator']>) =>
      l.evaluate((el) => {
        const style = getComputedStyle(el);
        const g = document.createElement('canvas').getContext('2d')!;
        g.font = style.font;
        const text = el instanceof HTMLSelectElement ? el.selectedOptions[0]!.text : el.textContent!;
        return { overflows: g.measureText(text).width > el.clientWidth, ellipsis: style.textOverflow };
      });
    expect(await cut(picker)).toEqual({ overflows: true, ellipsis: 'ellipsis' });
    // With all projects shown, each card names its project: cut the same way, the full name its tooltip.
    await picker.selectOption('');
    const label = page.locator(`li[data-task="${task}"]`).getByTestId('task-project');
    await label.waitFor();
    expect(await label.getAttribute('title')).toBe(name);
    expect(await label.innerText()).toBe(name);
    expect(await cut(label)).toEqual({ overflows: true, ellipsis: 'ellipsis' });
    await picker.selectOption(project);
    await close();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious or critical accessibility violation on any view (${theme})`, async () => {
      const { page, close } = await phone(theme);
      await page.addScriptTag({ path: AXE });
      const found: string[] = [];
      // Every view, and the bottom bar's More sheet open.
      const views = [...VIEWS.map(([name]) => name), 'More'];
      for (const view of views) {
        if (view === 'More') await page.getByRole('button', { name: 'More views' }).click();
        else await showView(page, view);
        await painted(page, view); // axe reads what is on screen, so the view must be there first
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
          const r = await axe.run(document, { resultTypes: ['violations'] });
          return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
        });
        found.push(...violations.map((v) => `${view}: ${v}`));
        // Every character on screen renders without an emoji or CJK font (⏳ and ⛔ were empty boxes).
        const special = await page.evaluate(() => {
          const text: string[] = [];
          const walk = (root: Node) => {
            for (const n of root.childNodes) {
              if (n.nodeType === Node.TEXT_NODE) text.push(n.textContent ?? '');
              walk(n);
              if (n instanceof Element && n.shadowRoot) walk(n.shadowRoot);
            }
          };
          walk(document.body);
          return [...new Set(text.join('').match(/\p{Emoji_Presentation}|[\u{FE0F}\u{FF01}-\u{FF60}\u{FFE0}-\u{FFE6}]/gu) ?? [])];
        });
        found.push(...special.map((c) => `${view}: ${c} needs an emoji or CJK font`));
        await shot(page, `phone-${theme}-${view.toLowerCase().replace(' ', '-')}`);
      }
      expect(found).toEqual([]);
      await close();
    });
  }
});
