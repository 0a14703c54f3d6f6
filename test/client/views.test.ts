// Every view on a 390×844 phone and a 1440×900 screen, over a small but lived-in journal: each
// view paints its content and nothing is wider than the screen. The screenshots it takes
// (test-output/screenshots/views-390-*.png and views-1440-*.png) are the ones in docs/.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';

let t: BrowserApp;
let project: string;
let running: string;

/** A project with tasks in several states, a worker's journal, a conversation and a working set. */
async function seed(): Promise<void> {
  const sql = t.db.sql;
  project = (await sql<{ id: string }[]>`select dispatch.create_project('petal-dispatch — phone surface') as id`)[0]!.id;
  await sql`select dispatch.create_project('docs site')`;
  const [orch] = await sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, role, status, started_at, ended_at) values (${project}, 'orchestrator', 'success', now() - interval '9 minutes', now() - interval '8 minutes') returning id`;
  const task = async (brief: string, status: string | null, minutes: number) => {
    const [r] = await sql<{ id: string }[]>`select dispatch.submit_task(${project}, ${brief}, null, null, null, ${orch!.id}) as id`;
    if (status) {
      await sql`select dispatch.set_task_status(${r!.id}, 'running', 'started')`;
      const [s] = await sql<{ id: string }[]>`
        insert into dispatch.sessions (project_id, task_id, role, status, started_at, ended_at)
        values (${project}, ${r!.id}, 'worker', ${status === 'running' || status === 'stalled' ? 'running' : status}, now() - make_interval(mins => ${minutes}),
                ${status === 'running' || status === 'stalled' ? null : sql`now() - make_interval(mins => ${minutes - 2})`}) returning id`;
      if (status !== 'running') await sql`select dispatch.set_task_status(${r!.id}, ${status}, ${status === 'stalled' ? 'no output for 120 s' : null})`;
      return { id: r!.id, session: s!.id };
    }
    return { id: r!.id, session: null };
  };
  const user = (text: string) => sql`select * from dispatch.post_user_message(${project}, ${text}, ${randomUUID()})`;
  const said = (text: string) =>
    sql`insert into dispatch.events (project_id, session_id, event_type, payload)
        values (${project}, ${orch!.id}, 'claude.assistant', ${sql.json({ message: { role: 'assistant', content: [{ type: 'text', text }] } })})`;
  await user('Make the client usable on a phone: navigation that fits, and say when we are offline.');
  await said('I will split it in three: the navigation, the offline banner, and screenshots of every view.');
  await task('Give the phone a bottom bar with four views and More', 'success', 8);
  const r = await task('Show an offline banner from navigator.onLine and the stream state', 'running', 3);
  running = r.id;
  await task('Take screenshots of every view at 390×844 and 1440×900', 'stalled', 6);
  await task('Check the dark theme contrast of the active tab', 'failed', 7);
  await task('Write the release notes', null, 0);
  await said('The bottom bar is in. The banner is running; the screenshots worker has gone quiet, I am watching it.');
  await user('Thanks — keep the Timeline readable too.');
  for (let i = 0; i < 12; i++) {
    await sql`insert into dispatch.events (project_id, task_id, session_id, event_type, payload)
              values (${project}, ${running}, ${r.session}, 'claude.assistant',
                      ${sql.json({ message: { role: 'assistant', content: [{ type: 'text', text: `Step ${i + 1}: ${['reading pd-app.ts', 'adding the offline listener', 'running the offline test', 'checking the banner text'][i % 4]}` }] } })})`;
  }
  await sql`select dispatch.journal_working_set(${project}, ${orch!.id}, ${sql.json({
    mode: 'autonomous', turn_status: 'success', in_flight: [{ task_id: running, brief: 'Show an offline banner from navigator.onLine and the stream state', status: 'running' }],
    handoffs_given: [], live_thread: null, last_message: 'The bottom bar is in. The banner is running.',
  })})`;
}

beforeAll(async () => {
  t = await startBrowserApp();
  await seed();
});

const VIEWS = ['tasks', 'chat', 'activity', 'working-set', 'timeline', 'health'];

describe('every view', () => {
  for (const [width, height] of [[390, 844], [1440, 900]] as const) {
    it(`paints its content and fits the screen at ${width}×${height}`, async () => {
      const ctx = await t.browser.newContext({ viewport: { width, height }, ...(width < 600 ? { isMobile: true, hasTouch: true } : {}) });
      await ctx.addInitScript((p) => localStorage.setItem('pd.project', p), project);
      const { page } = await open(ctx, t.url);
      await page.locator(`li[data-task="${running}"]`).waitFor();
      const content: Record<string, string> = {
        tasks: `li[data-task="${running}"]`,
        chat: 'pd-chat li.orchestrator',
        activity: 'pd-activity .row',
        'working-set': '[data-testid=ws-mode]',
        timeline: 'pd-timeline svg text',
        health: 'pd-diagnostics table',
      };
      for (const view of [...VIEWS, 'task']) {
        await page.evaluate((h) => (location.hash = h), view === 'task' ? `#/task/${running}` : `#/${view}`);
        await page.locator(view === 'task' ? 'pd-journal-line' : content[view]!).first().waitFor();
        // Settled before its picture: the app has rendered the view and the browser painted it twice since.
        await page.evaluate(async () => {
          await (document.querySelector('pd-app') as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        });
        // A view opens at its top (a task's header, not the end of its journal), whatever was scrolled before.
        expect(await page.evaluate(() => window.scrollY)).toBe(0);
        // Nothing wider than the screen: no sideways scrolling.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await shot(page, `views-${width}-${view}`);
      }
      await ctx.close();
    });
  }
});
