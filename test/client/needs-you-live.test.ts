// Needs you in more than one client at once, and on a phone's Chat: a gate decided in one browser
// leaves the other's list within a few seconds (the stream carries the decision); an item marked
// seen leaves every client and is journalled; on a 390×844 phone the Chat view folds Needs you to
// one line with its count, so the conversation keeps at least half the screen with four items
// waiting, and a tap opens the list.
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';

let t: BrowserApp;
beforeAll(async () => {
  t = await startBrowserApp();
});

async function project(name: string): Promise<string> {
  const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project(${name}) as id`;
  return p!.id;
}

/** An open gate on a task of the project (no runner here: it stays open until decided). */
async function gate(p: string, command: string): Promise<string> {
  const [task] = await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${p}, ${`run ${command}`}) as id`;
  const [s] = await t.db.sql<{ id: string }[]>`insert into dispatch.sessions (project_id, task_id, role, attempt) values (${p}, ${task!.id}, 'worker', 1) returning id`;
  const [g] = await t.db.sql<{ id: string }[]>`
    select (dispatch.open_gate(${p}, ${task!.id}, ${s!.id}, 'tool', 'destructive', null, 'Bash', ${JSON.stringify({ command })}::text::jsonb, ${randomUUID()}, 'deletes files')).id`;
  return g!.id;
}

async function client(viewport: { width: number; height: number }, p: string, route = ''): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await t.browser.newContext({ viewport, ...(viewport.width < 700 ? { isMobile: true, hasTouch: true } : {}) });
  await ctx.addInitScript((id) => localStorage.setItem('pd.project', id), p);
  const { page } = await open(ctx, `${t.url}/${route}`);
  await page.locator('pd-glance').waitFor();
  return { ctx, page };
}

const item = (page: Page, key: string) => page.locator(`pd-needs-you li[data-key="${key}"]`);

describe('Needs you in every client', () => {
  it('a gate decided in one browser leaves Needs you in a second browser within a few seconds', async () => {
    const p = await project('two clients');
    const g = await gate(p, 'rm -rf build');
    const phone = await client({ width: 390, height: 844 }, p);
    const desk = await client({ width: 1440, height: 900 }, p);
    for (const c of [phone, desk]) await item(c.page, `gate:${g}`).filter({ hasText: 'approve Bash?' }).waitFor();
    await desk.page.locator('[data-chip="needs-you"]', { hasText: '1 needs you' }).waitFor();

    await item(phone.page, `gate:${g}`).getByRole('button', { name: 'approve', exact: true }).click();
    await item(desk.page, `gate:${g}`).waitFor({ state: 'detached', timeout: 5_000 });
    await desk.page.locator('[data-chip="needs-you"]', { hasText: '0 needs you' }).waitFor({ timeout: 5_000 });
    const [row] = await t.db.sql<{ status: string }[]>`select status from dispatch.gates where id = ${g}`;
    expect(row!.status).toBe('approved');
    await phone.ctx.close();
    await desk.ctx.close();
  }, 60_000);

  it('an item marked seen leaves every client at once and the dismissal is journalled', async () => {
    const p = await project('seen');
    const [s] = await t.db.sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, role, attempt, started_at, ended_at, status) values (${p}, 'orchestrator', 1, now(), now(), 'failed') returning id`;
    const ws = { session_id: s!.id, turn_status: 'failed', stop: { where: 'orchestrator', why: 'the orchestrator turn ended failed: exit 1' } };
    const [e] = await t.db.sql<{ id: string }[]>`select dispatch.journal_working_set(${p}, ${s!.id}, ${JSON.stringify(ws)}::text::jsonb) as id`;
    const key = `loop:${e!.id}`;
    const a = await client({ width: 1440, height: 900 }, p);
    const b = await client({ width: 390, height: 844 }, p);
    for (const c of [a, b]) await item(c.page, key).filter({ hasText: 'the orchestrator stopped' }).waitFor();

    await item(a.page, key).getByRole('button', { name: 'mark as seen' }).click();
    for (const c of [a, b]) await item(c.page, key).waitFor({ state: 'detached', timeout: 5_000 });
    const rows = await t.db.sql<{ key: string }[]>`select payload->>'key' as key from dispatch.events where event_type = 'needs_you.dismissed' and project_id = ${p}`;
    expect(rows).toEqual([{ key }]);
    // Seen stays seen: a reload does not bring it back.
    await b.page.reload();
    await b.page.locator('[data-chip="needs-you"]', { hasText: '0 needs you' }).waitFor();
    expect(await item(b.page, key).count()).toBe(0);
    await a.ctx.close();
    await b.ctx.close();
  }, 60_000);
});

describe('Needs you on a phone\'s Chat', () => {
  it('folds to one line with its count; the conversation keeps at least half the screen with four items waiting; a tap opens the list', async () => {
    const p = await project('phone chat');
    for (let i = 0; i < 6; i++) await t.db.sql`select * from dispatch.post_user_message(${p}, ${`note ${i}`}, ${randomUUID()})`;
    for (const c of ['rm -rf a', 'rm -rf b', 'rm -rf c', 'rm -rf d']) await gate(p, c);
    const { ctx, page } = await client({ width: 390, height: 844 }, p, '#/chat');
    const line = page.getByTestId('needs-you-line');
    await line.filter({ hasText: 'Needs you (4)' }).waitFor();
    await page.locator('pd-chat li.user').first().waitFor();
    expect(await page.locator('pd-gates section').count()).toBe(0); // the gate cards fold with it
    const feed = await page.locator('pd-chat pd-feed').boundingBox();
    expect(feed!.height).toBeGreaterThanOrEqual(844 / 2);
    const bar = await line.boundingBox();
    expect(bar!.height).toBeLessThan(60); // one line
    await shot(page, 'phone-chat-needs-you-folded');

    await line.click();
    await page.getByTestId('needs-you').locator('li').nth(3).waitFor();
    expect(await page.getByTestId('needs-you').locator('li').count()).toBe(4);
    // Another view shows the list unfolded, and back on Chat it is one line again.
    await page.goto(`${t.url}/#/tasks`);
    await page.getByTestId('needs-you').waitFor();
    await page.goto(`${t.url}/#/chat`);
    await line.waitFor();
    await ctx.close();
  }, 60_000);
});
