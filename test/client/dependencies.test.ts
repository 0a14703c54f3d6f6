// On a phone: a task shows what it waits for ("waits for: Write the parser — running") and what
// waits for it, live as the dependency's status changes; the task list shows the schedules with
// their next run, and one tap pauses one; a chain shows in the task list as one group, in order.
import { beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open } from '../helpers/browser.ts';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
let t: BrowserApp;
let a: string;
let b: string;
let schedule: string;
let project: string;

beforeAll(async () => {
  t = await startBrowserApp();
  const sql = t.db.sql;
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project('parser') as id`;
  project = p!.id;
  a = (await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Write the parser') as id`)[0]!.id;
  await sql`select dispatch.set_task_status(${a}, 'running', 'attempt 1 started')`;
  b = (await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Test the parser', depends_on => ${[a]}::uuid[]) as id`)[0]!.id;
  schedule = (await sql<{ id: string }[]>`
    select dispatch.create_schedule(${p!.id}, '0 2 * * *', 'Audit the dependencies', next_run_at => '2030-01-02T02:00:00Z') as id`)[0]!.id;
});

describe('a task with a dependency, on a phone', () => {
  it('says what it waits for and its status, live; its dependency says what waits for it', async () => {
    const { page, errors } = await open(await t.browser.newContext(PHONE), `${t.url}/#/task/${b}`);
    const waits = page.locator('pd-task-deps [data-testid=waits-for]');
    await waits.waitFor();
    expect((await waits.innerText()).replace(/\s+/g, ' ')).toMatch(/^waits for: Write the parser — running/);
    await t.db.sql`select dispatch.set_task_status(${a}, 'success', 'handoff validated')`;
    await page.locator(`pd-task-deps [data-dep="${a}"] .st[data-status=success]`).waitFor();
    await page.goto(`${t.url}/#/task/${a}`);
    const then = page.locator('pd-task-deps [data-testid=waited-by]');
    await then.waitFor();
    expect((await then.innerText()).replace(/\s+/g, ' ')).toContain('then: Test the parser');
    expect(errors).toEqual([]);
  });
});

describe('the schedules, on a phone', () => {
  it('are listed with their next run, and one tap pauses one', async () => {
    const { page, errors } = await open(await t.browser.newContext(PHONE), `${t.url}/`);
    const row = page.locator(`pd-schedules li[data-schedule="${schedule}"]`);
    await row.waitFor();
    expect(await row.innerText()).toContain('Audit the dependencies');
    expect(await row.locator('[data-testid=next-run]').innerText()).toMatch(/^next .*2030/);
    await row.locator('[data-testid=toggle-schedule]').click();
    await page.locator(`pd-schedules li[data-schedule="${schedule}"][data-paused=true]`).waitFor();
    expect(await row.locator('[data-testid=next-run]').innerText()).toBe('paused');
    const [s] = await t.db.sql<{ paused_at: Date | null }[]>`select paused_at from dispatch.schedules where id = ${schedule}`;
    expect(s!.paused_at).not.toBeNull();
    expect(errors).toEqual([]);
  });
});

describe('a chain, in the task list on a phone', () => {
  it('shows as one group in the order it runs, how far it got live, apart from the tasks of no chain', async () => {
    const sql = t.db.sql;
    const c = (await sql<{ id: string }[]>`select dispatch.submit_task(${project}, 'Ship the parser', depends_on => ${[b]}::uuid[]) as id`)[0]!.id;
    const lone = (await sql<{ id: string }[]>`select dispatch.submit_task(${project}, 'Tidy the readme') as id`)[0]!.id;
    // Already ended success by the first test, or not: the chain's head counts what is done now.
    const [sa] = await sql<{ status: string }[]>`select status from dispatch.tasks where id = ${a}`;
    const { page, errors } = await open(await t.browser.newContext(PHONE), `${t.url}/`);
    const chain = page.locator(`pd-task-list [data-testid=chain][data-chain="${a}"]`);
    await chain.waitFor();
    expect(await chain.locator('li[data-task]').evaluateAll((els) => els.map((e) => e.getAttribute('data-task')))).toEqual([a, b, c]);
    const done = sa!.status === 'success' ? 1 : 0;
    expect(await chain.locator('[data-testid=chain-head]').innerText()).toBe(`chain of 3 · ${done} of 3 done`);
    expect(await page.locator(`pd-task-list li[data-task="${lone}"]`).count()).toBe(1);
    expect(await chain.locator(`li[data-task="${lone}"]`).count()).toBe(0);
    await sql`select dispatch.set_task_status(${b}, 'running', 'attempt 1 started')`;
    await sql`select dispatch.set_task_status(${b}, 'success', 'handoff validated')`;
    await chain.locator('[data-testid=chain-head]', { hasText: `chain of 3 · ${done + 1} of 3 done` }).waitFor();
    expect(errors).toEqual([]);
  });
});
