// The client in a real browser (Debian chromium via playwright-core) against a real server,
// Postgres and the real CLI with the scripted model.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { listen, startTestApp } from '../helpers/app.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot, showView } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const say = (text: string, chunks = 1, delay_ms = 0) => ({ text, chunks, delay_ms });
const scenario: Scenario = {
  name: 'client',
  description: '',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [say(JSON.stringify({ goal: 'Greet', current_state: 'Greeted', next_step: 'Rest', ruled_out: [{ approach: 'shouting', reason: 'too loud' }] }))] },
    {
      match: 'orchestrator of project',
      steps: [
        { tool_use: { name: 'mcp__dispatch__spawn_worker', input: { brief: 'Slowly count to three.', approach: 'count aloud' } } },
        say('Started counting.'),
        say('Counting is done, and I read your note.'),
      ],
    },
    { match: 'Slowly count', steps: [say('One. Two. Three.', 12, 400)] },
    { match: 'Greet the team slowly', steps: [say('Hello, team! Greetings to everyone.', 10, 300)] },
    { match: 'Print some HTML', steps: [
      { tool_use: { name: 'Bash', input: { command: `echo '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'`, description: 'html' } } },
      say('Here: <img src=x onerror="window.__xss=3"> and <script>window.__xss=4</script> <b>bold?</b>'),
    ] },
    { match: 'Never answer', steps: [{ hang: true }] },
  ],
};

let loop: Loop;
let t: BrowserApp;

beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario], serve: true, env: { STALL_SECONDS: '2' } });
  // The page talks to a server of its own that the restart test can kill and bring back (on t.port).
  t = await startBrowserApp({ db: loop.db });
});

const text = (page: Page, sel: string) => page.locator(sel).first().innerText();

async function newProject(name: string, config: object = {}): Promise<string> {
  const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project(${name}, ${loop.db.sql.json(config as never)}) as id`;
  return p!.id;
}

describe('the live view', () => {
  it('starts empty but live, then shows a task submitted from psql running with a ticking duration, to success, with no reload', async () => {
    const ctx = await t.browser.newContext({ viewport: { width: 390, height: 844 } });
    const { page, errors } = await open(ctx, t.url);
    await page.getByTestId('empty-tasks').waitFor();
    const project = await newProject('greetings', { allowed_tools: [] });
    const taskId = await loop.submit(project, 'Greet the team slowly.');
    const row = page.locator(`li[data-task="${taskId}"]`);
    await row.locator('[data-status="running"]').waitFor({ timeout: 20_000 });
    const first = await row.getByTestId('elapsed').innerText();
    await page.waitForFunction(
      ([id, before]) => {
        const el = document.querySelector('pd-app')!.shadowRoot!.querySelector('pd-task-list')!.shadowRoot!.querySelector(`li[data-task="${id}"] [data-testid=elapsed]`);
        return el && el.textContent !== before;
      },
      [taskId, first] as const,
      { timeout: 5000 },
    );
    await shot(page, 'phone-tasks-running');
    await row.locator('[data-status="success"]').waitFor({ timeout: 30_000 });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  it('shows a stalled worker as stalled, without reading text', async () => {
    const ctx = await t.browser.newContext();
    const { page } = await open(ctx, t.url);
    const project = await newProject('stall watch');
    const taskId = await loop.submit(project, 'Never answer me.');
    await page.locator(`li[data-task="${taskId}"][data-status="stalled"]`).waitFor({ timeout: 20_000 });
    await page.locator('.chip.on[data-chip="stalled"]').waitFor();
    await shot(page, 'desktop-stalled');
    await loop.db.sql`select dispatch.cancel_task(${taskId})`;
    await page.locator(`li[data-task="${taskId}"][data-status="cancelled"]`).waitFor({ timeout: 20_000 });
    await ctx.close();
  });

  it('keeps worker output inert: HTML and script are shown as text and never run', async () => {
    const ctx = await t.browser.newContext();
    const { page, errors, dialogs } = await open(ctx, t.url);
    const project = await newProject('html output', { allowed_tools: ['Bash'] });
    const taskId = await loop.submit(project, 'Print some HTML for me.');
    await loop.waitTask(taskId, 'success');
    await page.locator(`li[data-task="${taskId}"] button.open`).click();
    const journal = page.getByTestId('journal');
    // The journal is virtualised and pinned to its newest row (the extractor's): scroll up to the worker's.
    const scrollTo = async (target: ReturnType<Page['locator']>) => {
      await journal.locator('lit-virtualizer').hover();
      for (let i = 0; i < 40 && !(await target.isVisible()); i++) await page.mouse.wheel(0, -250);
      await target.waitFor({ timeout: 30_000 });
    };
    await scrollTo(journal.getByText('<script>window.__xss=4</script>', { exact: false }).first());
    await scrollTo(page.locator('summary', { hasText: 'Tool result' }).first());
    // Collapsed, a tool call says what it ran and a result its first line, as text.
    const call = journal.locator('summary', { hasText: 'Tool call: Bash' }).first();
    await scrollTo(call);
    expect(await call.locator('.preview').innerText()).toBe(`echo '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'`);
    expect(await page.locator('summary', { hasText: 'Tool result' }).first().locator('.preview').innerText()).toContain('<img src=x');
    // Each row spans the list, divider and all (a virtualised row is placed absolutely).
    const rowWidth = (await journal.locator('pd-journal-line', { has: page.locator('summary', { hasText: 'Tool call: Bash' }) }).first().boundingBox())!.width;
    const listWidth = (await journal.locator('lit-virtualizer').boundingBox())!.width;
    expect(rowWidth).toBeGreaterThan(listWidth * 0.97);
    await page.locator('summary', { hasText: 'Tool result' }).first().click();
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.locator('pd-journal-line img, pd-journal-line script').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await page.getByTestId('handoff').getByText('shouting').waitFor();
    await shot(page, 'desktop-task-detail');
    await ctx.close();
  });
});

describe('two browsers on one store', () => {
  it('show the same tasks, messages and focus; a message sent in one appears in both; focus is one click', async () => {
    const project = await newProject('shared view');
    const a = await open(await t.browser.newContext({ viewport: { width: 390, height: 844 } }), `${t.url}/#/chat`);
    const b = await open(await t.browser.newContext({ viewport: { width: 1280, height: 800 } }), `${t.url}/#/chat`);
    for (const { page } of [a, b]) {
      await page.locator('select#project').selectOption(project);
    }
    await a.page.locator('textarea').fill('Please count slowly.');
    await a.page.getByRole('button', { name: 'send message' }).click();
    for (const { page } of [a, b]) await page.locator('li.user', { hasText: 'Please count slowly.' }).waitFor({ timeout: 30_000 });

    // While the worker the orchestrator spawned runs, a new message is queued for the next turn.
    await waitFor(
      () => loop.db.sql`select 1 from dispatch.sessions s join dispatch.tasks t on t.id = s.task_id where t.project_id = ${project} and s.role = 'worker' and s.started_at is not null and s.ended_at is null`,
      (r) => r.length > 0,
      { timeout: 30_000, what: 'the counting worker to run' },
    );
    await b.page.locator('textarea').fill('Add a fourth number.');
    await b.page.locator('textarea').press('Enter');
    const queued = b.page.locator('li.user', { hasText: 'Add a fourth number.' });
    await queued.getByText('queued — delivered at next turn').waitFor({ timeout: 30_000 });
    await a.page.locator('li.user', { hasText: 'Add a fourth number.' }).waitFor();
    await shot(b.page, 'desktop-chat-queued');
    await queued.getByText('delivered').waitFor({ timeout: 40_000 });
    await a.page.locator('li.user[data-state="delivered"]', { hasText: 'Add a fourth number.' }).waitFor();
    await a.page.locator('li.orchestrator', { hasText: 'Counting is done' }).waitFor({ timeout: 30_000 });
    await b.page.locator('li.spawn', { hasText: 'Slowly count to three.' }).waitFor();
    await shot(a.page, 'phone-chat');

    // Same tasks in both; one click on a star focuses the task in both.
    await showView(a.page, 'Tasks');
    await showView(b.page, 'Tasks');
    const [task] = await loop.db.sql<{ id: string }[]>`select id from dispatch.tasks where project_id = ${project}`;
    for (const { page } of [a, b]) await page.locator(`li[data-task="${task!.id}"]`).waitFor();
    await a.page.locator(`li[data-task="${task!.id}"] button.star`).click();
    for (const { page } of [a, b]) {
      await page.locator(`li[data-task="${task!.id}"] button.star[aria-pressed="true"]`).waitFor({ timeout: 30_000 });
      expect(await text(page, '[data-testid=focused]')).toContain('Slowly count to three.');
    }
    await showView(a.page, 'Working set');
    await a.page.getByTestId('ws-stop').waitFor({ timeout: 20_000 });
    await shot(a.page, 'phone-working-set');
    await showView(b.page, 'Activity');
    await shot(b.page, 'desktop-activity');
    await showView(b.page, 'Timeline');
    await shot(b.page, 'desktop-timeline');
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});

describe('a server restart', () => {
  it('shows reconnecting, then catches up with nothing missing or doubled', async () => {
    const { page, errors } = await open(await t.browser.newContext(), `${t.url}/#/activity`);
    const project = await newProject('restart');
    await page.getByTestId('activity-count').waitFor();
    await t.server.close();
    await page.locator('[data-testid=connection][data-state="reconnecting"]').waitFor({ timeout: 15_000 });
    await shot(page, 'desktop-reconnecting');
    // Work goes on while the server is down.
    for (let i = 0; i < 5; i++) {
      await loop.db.sql`select * from dispatch.post_user_message(${project}, ${`note ${i}`}, ${randomUUID()})`;
    }
    await listen(await startTestApp({}, loop.db), t.port);
    await page.locator('[data-testid=connection]').waitFor({ state: 'detached', timeout: 20_000 });
    // Work may still be landing: compare the page with the journal until they agree.
    // The page holds the journal from its floor on (the recent window, then everything live).
    const pageCount = () =>
      page.evaluate(() => {
        const el = document.querySelector('pd-app')?.shadowRoot?.querySelector('pd-activity')?.shadowRoot?.querySelector('[data-testid=activity-count]');
        return { n: parseInt(el?.textContent ?? '0', 10), floor: Number(el?.getAttribute('data-floor') ?? 0) };
      });
    const both = await waitFor(
      async () => {
        const held = await pageCount();
        const [{ n } = { n: 0 }] = await loop.db.sql<{ n: number }[]>`
          select count(*)::int as n from dispatch.events where seq >= ${held.floor} and event_type <> 'claude.stream_event'`;
        return { page: held.n, db: n };
      },
      (c) => c.page === c.db,
      { timeout: 20_000, what: 'the page to hold exactly the journal' },
    );
    expect(both.page).toBe(both.db);
    expect(errors).toEqual([]);
  });
});
