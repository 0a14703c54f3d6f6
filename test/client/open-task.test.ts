// A live task left open on a phone: a worker pours 30 000 lines into it while its page is open and
// pinned to the newest row. The client holds a bounded window of the task's newest rows (the view
// says "newest N"), the newest row stays on screen, and scrolled to the top the older rows page back
// in — and are not taken from under the reader while more rows stream in.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { TASK_CAP } from '../../client/src/store/journal.ts';
import type { JournalWriter } from '../../jobs/journal-writer.ts';
import { runningTask } from '../helpers/journal.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';
// @ts-expect-error plain JS module shared with the firehose fake CLI
import { realisticLine } from '../bench/realistic-lines.mjs';

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/** Line k of a session's shown output: its assistant texts, tool calls and results (no partial tokens, which the phone never loads). */
const shown = (k: number) => (realisticLine as (i: number) => string)(9 * Math.floor(k / 3) + 6 + (k % 3));

let t: BrowserApp;
let task: string;
let writer: JournalWriter;
let written = 0;

async function pour(lines: number): Promise<void> {
  for (let i = 0; i < lines; i++) writer.push(Buffer.from(shown(written++)));
  await writer.flush();
}

/** The open task's feed: how many rows it holds, its first and newest, whether the newest is on screen, and what its heading says. */
const feedState = (page: Page) =>
  page.evaluate(() => {
    const app = document.querySelector('pd-app')!.shadowRoot!;
    const detail = app.querySelector('pd-task-detail')!.shadowRoot!;
    const feed = detail.querySelector('pd-feed') as (HTMLElement & { items: { seq: number }[] }) | null;
    const newest = feed?.items.at(-1);
    const list = feed?.querySelector('lit-virtualizer')?.getBoundingClientRect();
    const row = newest && [...feed!.querySelectorAll<HTMLElement>('pd-journal-line')].find((l) => Number(l.dataset.seq) === newest.seq);
    const r = row?.getBoundingClientRect();
    return {
      held: feed?.items.length ?? 0,
      first: feed?.items[0]?.seq ?? 0,
      newest: newest?.seq ?? 0,
      // Its text in view: the pin to the end can leave the row's bottom padding (0.35rem) a few px under the edge.
      onScreen: !!r && !!list && r.top >= list.top - 1 && r.bottom <= list.bottom + 6,
      heading: detail.querySelector('[data-testid=journal] h3')?.textContent ?? '',
    };
  });

const newestSeq = async () =>
  Number((await t.db.sql<{ top: string }[]>`select max(seq) as top from dispatch.events where task_id = ${task} and event_type <> 'claude.stream_event'`)[0]!.top);

beforeAll(async () => {
  t = await startBrowserApp();
  const sql = t.db.sql;
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project('all-day worker') as id`;
  ({ task, writer } = await runningTask(sql, p!.id, 'Print all day'));
  await pour(500);
});

describe('a live task left open on a phone', () => {
  it('holds a bounded window of its newest rows while followed, newest on screen, and pages the older ones back in when scrolled to the top', async () => {
    const ctx = await t.browser.newContext(PHONE);
    const { page } = await open(ctx, `${t.url}/#/task/${task}`);
    await expect.poll(async () => (await feedState(page)).newest, { timeout: 30_000 }).toBe(await newestSeq());

    // 30 000 lines while the page is open and pinned, a thousand at a time; the held rows never pass the window.
    let most = 0;
    for (let i = 0; i < 30; i++) {
      await pour(1000);
      most = Math.max(most, (await feedState(page)).held);
    }
    const top = await newestSeq();
    await expect.poll(async () => (await feedState(page)).newest, { timeout: 60_000, message: 'the newest row arrives' }).toBe(top);
    const followed = await feedState(page);
    most = Math.max(most, followed.held);
    expect(most).toBeLessThanOrEqual(TASK_CAP + 1000);
    expect(followed.held).toBeGreaterThanOrEqual(TASK_CAP);
    expect(followed.heading).toBe(`Journal (newest ${followed.held})`);
    await expect.poll(async () => (await feedState(page)).onScreen, { timeout: 30_000, message: 'the newest row is on screen' }).toBe(true);
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    console.log(`open task after 30 500 rows: ${followed.held} held (most ${most}), JS heap ${(usedSize / 1e6).toFixed(1)} MB`);
    // A bound, not a figure: ~8 MB measured here, ~29 MB when every row was kept (docs/client.md).
    expect(usedSize).toBeLessThan(16e6);
    await shot(page, 'open-task-followed');

    // Scrolled to the top, as a person reading back does: older rows page in, above the window.
    const list = page.locator('pd-task-detail pd-feed lit-virtualizer');
    await list.evaluate((v) => {
      v.dispatchEvent(new WheelEvent('wheel', { deltaY: -1000 }));
      v.scrollTop = 0;
    });
    await expect.poll(async () => (await feedState(page)).first, { timeout: 30_000, message: 'older rows page back in' }).toBeLessThan(followed.first);
    const reading = await feedState(page);
    expect(reading.heading).toMatch(/^Journal \(newest \d+\)$/);
    // More output while the person reads: none of what they have is taken away.
    await pour(2000);
    await expect.poll(async () => (await page.getByTestId('jump-new').innerText().catch(() => '')).match(/\d+/)?.[0], { timeout: 30_000 }).toBe('2000');
    const still = await feedState(page);
    expect(still.first).toBeLessThanOrEqual(reading.first);
    expect(still.held).toBeGreaterThan(TASK_CAP + 1000);

    // Back at the newest row: the window again.
    await page.getByTestId('jump-new').click();
    await expect.poll(async () => (await feedState(page)).held, { timeout: 30_000, message: 'trimmed back to the window' }).toBe(TASK_CAP);
    expect((await feedState(page)).newest).toBe(await newestSeq());
    await expect.poll(async () => (await feedState(page)).onScreen, { timeout: 30_000 }).toBe(true);
    await ctx.close();
  });
});
