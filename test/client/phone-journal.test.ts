// What a newcomer met on a phone (390×844) over a lived-in journal, where a task's rows are older
// than the newest 300 rows the app opens with: the task's journal fills on its first open (the
// view is a lazy chunk), the task's page shows its own gate and not every other one above it, the
// journal fits between the sticky header and the bottom bar so its newest row can be seen, the chat
// says which project "All projects" talks to and keeps the orchestrator's words when a project is
// picked on it, and a gate's "cannot be reached" goes once the phone is back online.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../core/db/client.ts';
import { JournalWriter } from '../../jobs/journal-writer.ts';
import { runningTask } from '../helpers/journal.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';
// @ts-expect-error plain JS module shared with the firehose fake CLI
import { realisticLine } from '../bench/realistic-lines.mjs';

const line = realisticLine as (i: number) => string;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let t: BrowserApp;

async function worker(sql: Sql, project: string, brief: string, lines: number) {
  const { task, session, writer } = await runningTask(sql, project, brief);
  for (let i = 0; i < lines; i++) writer.push(Buffer.from(line(i)));
  await writer.flush();
  return { task, session };
}

/** An orchestrator turn of the project that said `text` (journalled through the writer, as a turn's stdout is). */
async function orchestratorSaid(sql: Sql, project: string, text: string): Promise<string> {
  const [s] = await sql<{ id: string }[]>`insert into dispatch.sessions (project_id, role, status, started_at) values (${project}, 'orchestrator', 'running', now()) returning id`;
  const w = new JournalWriter(sql, { projectId: project, sessionId: s!.id });
  w.push(Buffer.from(JSON.stringify({ type: 'assistant', message: { id: `msg_${randomUUID()}`, role: 'assistant', content: [{ type: 'text', text }] }, session_id: 'orchestrator' })));
  await w.flush();
  return s!.id;
}

const gate = (sql: Sql, project: string, task: string, session: string, command: string) =>
  sql<{ id: string }[]>`select (dispatch.open_gate(${project}, ${task}, ${session}, 'tool', 'destructive', 'rule', 'Bash',
                                                  ${sql.json({ command })}, ${randomUUID()}, 'needs a person')).id as id`;

/**
 * The open task's feed (pd-app › pd-task-detail › pd-feed): its newest row, whether it holds row
 * `seq`, whether the list fits between the header and the bottom bar and its newest row is seen.
 */
const feedState = (page: Page, seq = 0) =>
  page.evaluate((seq) => {
    const app = document.querySelector('pd-app')!.shadowRoot!;
    const feed = app.querySelector('pd-task-detail')?.shadowRoot?.querySelector('pd-feed') as (HTMLElement & { items: { seq: number }[] }) | null;
    const header = app.querySelector('header')!.getBoundingClientRect();
    const bar = app.querySelector('nav.bottom')!.getBoundingClientRect();
    const newest = feed?.items.at(-1);
    const row = newest && [...feed!.querySelectorAll<HTMLElement>('pd-journal-line')].find((l) => Number(l.dataset.seq) === newest.seq);
    const r = row?.getBoundingClientRect();
    const box = feed?.querySelector('lit-virtualizer');
    const list = box?.getBoundingClientRect();
    return {
      fits: !!list && list.top >= header.bottom - 1 && list.bottom <= bar.top + 1,
      // Whole inside the list's own viewport, not partly under its edge.
      inList: !!r && !!list && r.bottom <= list.top + box!.clientTop + box!.clientHeight + 0.5,
      newest: newest?.seq ?? null,
      holds: !!feed?.items.some((x) => x.seq === seq),
      onScreen: !!r && r.top >= header.bottom - 1 && r.bottom <= bar.top + 1,
    };
  }, seq);

let project: string;
let big: { task: string; session: string };
let otherGate: string;

beforeAll(async () => {
  t = await startBrowserApp();
  const sql = t.db.sql;
  project = (await sql<{ id: string }[]>`select dispatch.create_project('phone trial') as id`)[0]!.id;
  const other = (await sql<{ id: string }[]>`select dispatch.create_project('another project') as id`)[0]!.id;
  big = await worker(sql, project, 'Make the phone view usable on a long task', 1500);
  // Later work of the same project: the open's newest 300 rows hold none of the big task's.
  await worker(sql, project, 'Keep the docs in step', 1200);
  await gate(sql, project, big.task, big.session, 'git push --force origin main');
  const elsewhere = await worker(sql, other, 'Tidy the other repository', 10);
  otherGate = (await gate(sql, other, elsewhere.task, elsewhere.session, 'rm -rf /srv/other'))[0]!.id;
});

describe('a phone on a lived-in journal', () => {
  it('opens a task whose rows are older than the open’s window at its newest rows, with its own gate only, its journal fitting between the header and the bottom bar', async () => {
    // Its newest row is the gate's (in the open's window); its newest line of output is not.
    const [{ top, output } = { top: 0, output: 0 }] = await t.db.sql<{ top: number; output: number }[]>`
      select max(seq) as top, max(seq) filter (where session_id is not null and line_no is not null and event_type <> 'claude.stream_event') as output
        from dispatch.events where task_id = ${big.task} and event_type <> 'claude.stream_event'`;
    const ctx = await t.browser.newContext(PHONE);
    await ctx.addInitScript((p) => localStorage.setItem('pd.project', p), project);
    const { page } = await open(ctx, t.url);
    // First open of a task in this page: the task view's chunk is loaded by this very tap.
    await page.locator(`li[data-task="${big.task}"] button.open`).click();
    await expect.poll(async () => (await feedState(page, output)).holds, { timeout: 30_000, message: 'the journal holds the task’s newest output' }).toBe(true);
    expect((await feedState(page)).newest).toBe(top);
    expect(await page.locator('pd-task-detail [data-testid=journal] h3').innerText()).toMatch(/newest \d{3}/);
    // Above the task: its own gate, not the other project's (that one waits on the lists).
    expect(await page.locator('pd-gates li').allInnerTexts()).toEqual([expect.stringContaining('git push --force origin main')]);
    // Scrolled down to the journal, as a person does: the whole list fits between the sticky header
    // and the bottom bar (taller, its newest row or its top hid under one of them), newest row in view.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(async () => (await feedState(page)).onScreen, { timeout: 30_000, message: 'the newest row is on screen' }).toBe(true);
    expect((await feedState(page)).fits).toBe(true);
    expect((await feedState(page)).inList).toBe(true);
    await shot(page, 'phone-journal-newest');
    // Back on the list, every open gate is there again.
    await page.getByRole('button', { name: 'back to tasks' }).click();
    await page.locator('pd-gates li').nth(1).waitFor();
    await ctx.close();
  });

  it('with All projects picked the chat names the project it talks to, and picking a project there keeps its orchestrator’s words', async () => {
    const sql = t.db.sql;
    const [a] = await sql<{ id: string }[]>`select dispatch.create_project('chat first') as id`;
    await orchestratorSaid(sql, a!.id, 'I will split the work in two and start with the parser.');
    // The newest project (the one "All projects" chats with), then enough rows to push those words
    // out of the open's window.
    const [b] = await sql<{ id: string }[]>`select dispatch.create_project('chat newest') as id`;
    await orchestratorSaid(sql, b!.id, 'Nothing to do here yet.');
    await worker(sql, a!.id, 'Write the parser', 1200);

    // No service worker: page.route below must see the app's requests.
    const ctx = await t.browser.newContext({ ...PHONE, serviceWorkers: 'block' });
    const { page } = await open(ctx, `${t.url}/#/chat`);
    await expect.poll(() => page.getByTestId('whose').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/^chat newest/);
    await page.locator('pd-chat li.orchestrator', { hasText: 'Nothing to do here yet.' }).waitFor({ timeout: 30_000 });
    await shot(page, 'phone-chat-all-projects');

    // On a slow network the new snapshot comes after the chat's own pages of the picked project (the
    // chat asks for them as soon as the project changes): what the reopen clears must come back.
    await page.route('**/api/state', (route) => void setTimeout(() => void route.continue(), 1000));
    // The reopen is over when the picked project's window of recent rows is in.
    const reopened = page.waitForResponse((r) => r.url().includes('/api/events?before=') && r.url().includes(`project=${a!.id}`));
    await page.getByLabel('project', { exact: true }).selectOption({ label: 'chat first' });
    await reopened;
    await page.locator('pd-chat li.orchestrator', { hasText: 'start with the parser' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('whose').count()).toBe(0);
    await ctx.close();
  });

  it('a gate tapped while offline says the server cannot be reached, and says nothing stale once the phone is back', async () => {
    const ctx = await t.browser.newContext(PHONE);
    const { page } = await open(ctx, t.url);
    const item = page.locator(`pd-gates li[data-gate="${otherGate}"]`);
    await item.waitFor({ timeout: 30_000 });
    await ctx.setOffline(true);
    await page.getByTestId('connection').and(page.locator('[data-state="offline"]')).waitFor();
    await item.locator('button.approve').click();
    const error = page.locator('pd-gates .error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/cannot be reached/);
    expect(await item.count()).toBe(1);

    await ctx.setOffline(false);
    await page.getByTestId('connection').waitFor({ state: 'detached', timeout: 30_000 });
    await error.waitFor({ state: 'detached', timeout: 30_000 });
    // Still undecided on the server, and decided with the next tap.
    await item.locator('button.approve').click();
    await item.waitFor({ state: 'detached', timeout: 30_000 });
    const [g] = await t.db.sql<{ status: string }[]>`select status from dispatch.gates where id = ${otherGate}`;
    expect(g!.status).toBe('approved');
    await ctx.close();
  });

  it('Activity fits between the header and the bottom bar too, and scrolled up offers "↓ N new" above the bar, which goes back to the newest', async () => {
    const { writer } = await runningTask(t.db.sql, project, 'Say more while the person reads');
    const ctx = await t.browser.newContext(PHONE);
    await ctx.addInitScript((p) => localStorage.setItem('pd.project', p), project);
    const { page } = await open(ctx, `${t.url}/#/activity`);
    const activity = (page: Page) =>
      page.evaluate(() => {
        const app = document.querySelector('pd-app')!.shadowRoot!;
        const feed = app.querySelector('pd-activity')?.shadowRoot?.querySelector('pd-feed') as (HTMLElement & { items: { seq: number }[] }) | null;
        const header = app.querySelector('header')!.getBoundingClientRect();
        const bar = app.querySelector('nav.bottom')!.getBoundingClientRect();
        const list = feed?.querySelector('lit-virtualizer')?.getBoundingClientRect();
        const jump = feed?.querySelector('[data-testid=jump-new]')?.getBoundingClientRect();
        const newest = feed?.items.at(-1)?.seq;
        const row = [...(feed?.querySelectorAll<HTMLElement>('[data-seq]') ?? [])].find((l) => Number(l.dataset.seq) === newest)?.getBoundingClientRect();
        return {
          count: feed?.items.length ?? 0,
          newest: newest ?? 0,
          fits: !!list && list.top >= header.bottom - 1 && list.bottom <= bar.top + 1,
          onScreen: !!row && row.top >= header.bottom - 1 && row.bottom <= bar.top + 1,
          jump: jump ? { text: feed!.querySelector('[data-testid=jump-new]')!.textContent!.trim(), above: jump.bottom <= bar.top + 1 && jump.top >= header.bottom - 1 } : null,
        };
      });
    await expect.poll(async () => (await activity(page)).count, { timeout: 30_000, message: 'Activity shows rows' }).toBeGreaterThan(20);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await expect.poll(async () => (await activity(page)).onScreen, { timeout: 30_000, message: 'the newest row is on screen' }).toBe(true);
    expect((await activity(page)).fits).toBe(true);

    // The person scrolls up to read; more output meanwhile is offered, not forced on them.
    const list = page.locator('pd-activity pd-feed lit-virtualizer');
    await list.hover();
    await page.mouse.wheel(0, -1500);
    const before = (await activity(page)).newest;
    for (let i = 0; i < 20; i++) writer.push(Buffer.from(line(100_000 + i)));
    await writer.flush();
    await expect.poll(async () => (await activity(page)).jump?.text ?? '', { timeout: 30_000, message: '↓ N new is offered' }).toMatch(/^↓ \d+ new$/);
    const offered = await activity(page);
    expect(offered.jump!.above).toBe(true);
    expect(offered.onScreen).toBe(false);
    expect(offered.newest).toBeGreaterThan(before);
    await shot(page, 'phone-activity-new');
    await page.getByTestId('jump-new').click();
    await expect.poll(async () => (await activity(page)).onScreen, { timeout: 30_000, message: 'back at the newest row' }).toBe(true);
    expect((await activity(page)).jump).toBeNull();
    await ctx.close();
  });
});
