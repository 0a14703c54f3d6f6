// Reading a long task from its first row: the live feed holds only the newest rows, so "From the
// start" reads the journal forward from the beginning, a page at a time as the person scrolls
// down, leaves out the partial-token lines, is not moved by rows that stream in meanwhile, and
// "Newest rows" brings the live feed back at the newest row.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { READER_CAP, RECENT_ROWS } from '../../client/src/store.ts';
import type { JournalWriter } from '../../jobs/journal-writer.ts';
import { runningTask } from '../helpers/journal.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';
// @ts-expect-error plain JS module shared with the firehose fake CLI
import { realisticLine } from '../bench/realistic-lines.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const line = realisticLine as (i: number) => string;

let t: BrowserApp;
let task: string;
let quiet: string;
let writer: JournalWriter;
let written = 0;

/** Realistic lines as a session prints them: partial tokens, texts, tool calls and results. */
async function pour(lines: number): Promise<void> {
  for (let i = 0; i < lines; i++) writer.push(Buffer.from(line(written++)));
  await writer.flush();
}

/** The task's rows a person sees (partial tokens left out), oldest first. */
const shownSeqs = async (id: string) =>
  (await t.db.sql<{ seq: number }[]>`select seq from dispatch.events where task_id = ${id} and event_type <> 'claude.stream_event' order by seq`).map((r) => r.seq);

/** What the task's journal section shows: its heading, the reader's rows, the live feed's newest row. */
const journal = (page: Page) =>
  page.evaluate(() => {
    const detail = document.querySelector('pd-app')!.shadowRoot!.querySelector('pd-task-detail')!.shadowRoot!;
    const section = detail.querySelector('[data-testid=journal]')!;
    const reader = section.querySelector('pd-journal-start > lit-virtualizer') as (HTMLElement & { items: { seq: number; event_type: string }[] }) | null;
    const feed = section.querySelector('pd-feed') as (HTMLElement & { items: { seq: number }[] }) | null;
    const drawn = [...(reader ?? section).querySelectorAll<HTMLElement>('pd-journal-line')].map((l) => Number(l.dataset.seq));
    return {
      heading: section.querySelector('h3')?.textContent ?? '',
      reader: reader ? reader.items.map((r) => r.seq) : null,
      readerTypes: reader ? [...new Set(reader.items.map((r) => r.event_type))] : [],
      firstDrawn: drawn.length ? Math.min(...drawn) : 0,
      feedNewest: feed?.items.at(-1)?.seq ?? 0,
      bottom: section.querySelector('pd-journal-start > .edge:last-of-type')?.textContent?.trim() ?? '',
    };
  });

beforeAll(async () => {
  t = await startBrowserApp();
  const sql = t.db.sql;
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project('long worker') as id`;
  ({ task, writer } = await runningTask(sql, p!.id, 'Work through the backlog'));
  // 9 000 lines: about 3 000 shown ones (the rest are partial tokens), ten pages of them.
  await pour(9000);
  quiet = (await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'A short one') as id`)[0]!.id;
});

describe('a long task read from its start', () => {
  it.each([
    ['a phone', PHONE],
    ['a desktop', { viewport: { width: 1440, height: 900 } }],
  ])('on %s: shows its first rows, pages forward as the person scrolls down, stays put while rows stream in, and goes back to the newest', async (_, device) => {
    const ctx = await t.browser.newContext(device);
    const { page } = await open(ctx, `${t.url}/#/task/${task}`);
    const shown = await shownSeqs(task);
    expect(shown.length).toBeGreaterThan(9 * RECENT_ROWS);
    await expect.poll(async () => (await journal(page)).feedNewest, { timeout: 30_000 }).toBe(shown.at(-1));

    await page.getByTestId('from-start').click();
    await expect.poll(async () => (await journal(page)).reader?.length, { timeout: 30_000, message: 'the first page' }).toBe(RECENT_ROWS);
    let j = await journal(page);
    expect(j.heading).toBe('Journal from the start');
    expect(j.reader).toEqual(shown.slice(0, RECENT_ROWS)); // the task's very first rows, in order, none of the partial tokens
    expect(j.readerTypes).not.toContain('claude.stream_event');
    expect(j.firstDrawn).toBe(shown[0]); // on screen: the top of the list is the journal's first row
    await shot(page, `journal-from-start-${device.viewport.width}`);

    // More output meanwhile: the rows being read stay as they are.
    await pour(300);
    expect((await shownSeqs(task)).length).toBeGreaterThan(shown.length);
    expect((await journal(page)).reader).toEqual(shown.slice(0, RECENT_ROWS));

    // Scrolled to the bottom, as a person reading on does: the next page follows the last row.
    const list = page.locator('pd-task-detail pd-journal-start lit-virtualizer');
    await list.evaluate((v) => (v.scrollTop = v.scrollHeight));
    await expect.poll(async () => (await journal(page)).reader?.length, { timeout: 30_000, message: 'the next page' }).toBeGreaterThanOrEqual(2 * RECENT_ROWS);
    j = await journal(page);
    expect(j.reader!.slice(0, 2 * RECENT_ROWS)).toEqual(shown.slice(0, 2 * RECENT_ROWS));

    // Back to the newest rows: the live feed, with the lines that came while the person read.
    await page.getByTestId('to-newest').click();
    const now = await shownSeqs(task);
    await expect.poll(async () => (await journal(page)).feedNewest, { timeout: 30_000 }).toBe(now.at(-1));
    j = await journal(page);
    expect(j.reader).toBeNull();
    expect(j.heading).toMatch(/^Journal \(newest \d+\)$/);
    await ctx.close();
  });

  it('on a phone: reads to the newest row and says there is nothing newer yet; a task with no older rows offers no reading from the start', async () => {
    const ctx = await t.browser.newContext(PHONE);
    const { page } = await open(ctx, `${t.url}/#/task/${task}`);
    await expect.poll(async () => (await journal(page)).feedNewest, { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByTestId('from-start').click();
    const list = page.locator('pd-task-detail pd-journal-start lit-virtualizer');
    const all = await shownSeqs(task);
    // Every page until the last, which is short: then nothing newer is asked for.
    await expect
      .poll(async () => {
        await list.evaluate((v) => (v.scrollTop = v.scrollHeight));
        return (await journal(page)).reader?.length;
      }, { timeout: 60_000, message: 'every row, page by page' })
      .toBe(all.length);
    await expect.poll(async () => (await journal(page)).bottom).toContain('No newer rows yet.');
    expect((await journal(page)).reader).toEqual(all);

    await page.goto(`${t.url}/#/task/${quiet}`);
    await expect.poll(async () => (await journal(page)).heading, { timeout: 30_000 }).toBe(`Journal (${(await shownSeqs(quiet)).length})`);
    expect(await page.getByTestId('from-start').count()).toBe(0);
    await ctx.close();
  });

  it('on a phone: holds at most READER_CAP rows read from the start, then says so and points back to the newest', async () => {
    while ((await shownSeqs(task)).length <= READER_CAP + RECENT_ROWS) await pour(3000);
    const ctx = await t.browser.newContext(PHONE);
    const { page } = await open(ctx, `${t.url}/#/task/${task}`);
    await expect.poll(async () => (await journal(page)).feedNewest, { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByTestId('from-start').click();
    const list = page.locator('pd-task-detail pd-journal-start lit-virtualizer');
    await expect
      .poll(async () => {
        await list.evaluate((v) => (v.scrollTop = v.scrollHeight));
        return (await journal(page)).bottom;
      }, { timeout: 90_000, message: 'pages until the cap' })
      .toContain(`The first ${READER_CAP.toLocaleString('en')} rows are shown here.`);
    const j = await journal(page);
    expect(j.reader).toEqual((await shownSeqs(task)).slice(0, READER_CAP));
    await ctx.close();
  });
});
