// The phone on a real journal: 1 000 000 rows over 20 tasks in 3 projects (one task holds 200 000).
// At 390×844 the picked project's tasks show from a bounded open (the bytes are counted from the
// responses), the big task shows its newest rows, older rows page in when scrolled up, and new
// rows while scrolled up offer "↓ N new". How fast is the bench's business (test/bench/client.ts).
import type { Page, Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../jobs/journal-writer.ts';
import { fillBigJournal, type BigJournal } from '../helpers/big-journal.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { shot } from '../helpers/browser.ts';
import { createTestDb } from '../helpers/db.ts';

let t: BrowserApp;
let big: BigJournal;

beforeAll(async () => {
  const db = await createTestDb();
  big = await fillBigJournal(db.sql, 1_000_000);
  // The server starts after the fill: its hub begins at the journal's head, as after a restart.
  t = await startBrowserApp({ db });
}, 600_000);

/**
 * Bytes each response took on the wire (headers and compressed body). `settled()` waits until every
 * request the page started has finished (the SSE stream aside: it never does), then sums their sizes,
 * so nothing is left uncounted; a failed request is named, not skipped.
 */
function countBytes(page: Page): { settled(): Promise<number>; requests: string[]; failed: string[] } {
  const open = new Set<Request>();
  const sizes: Promise<number>[] = [];
  const requests: string[] = [];
  const failed: string[] = [];
  const name = (r: Request) => new URL(r.url()).pathname + new URL(r.url()).search;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname !== '/api/stream') open.add(r);
  });
  page.on('requestfinished', (r) => {
    sizes.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
    requests.push(name(r));
    open.delete(r);
  });
  page.on('requestfailed', (r) => {
    failed.push(name(r));
    open.delete(r);
  });
  return {
    async settled() {
      await expect.poll(() => open.size, { timeout: 30_000, message: 'every request of the open finishes' }).toBe(0);
      return (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
    },
    requests,
    failed,
  };
}

const detail = (page: Page) => page.locator('pd-task-detail');

describe('a phone on a million-row journal', () => {
  it('shows the picked project’s tasks from a bounded open, then the big task’s newest rows, pages older ones, and offers the new ones', { timeout: 180_000 }, async () => {
    const project = big.projects[0]!;
    const bigTask = big.tasks[0]!;
    const ctx = await t.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await ctx.addInitScript((p) => localStorage.setItem('pd.project', p), project);
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const bytes = countBytes(page);
    await page.goto(t.url);

    const mine = big.tasks.filter((id) => big.projectOf.get(id) === project);
    for (const id of mine) await page.locator(`li[data-task="${id}"]`).waitFor({ timeout: 30_000 });
    expect(await page.locator('li[data-task]').count()).toBe(mine.length);
    // Everything the open downloaded, the stream aside (it never finishes): well under 300 KB.
    const total = await bytes.settled();
    expect(bytes.failed).toEqual([]);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(300 * 1024);
    expect(bytes.requests.filter((r) => r.startsWith('/api/events'))).toHaveLength(1);
    await shot(page, 'phone-tasks-1m');

    // The big task: its newest row is on screen, a few dozen rows are in the DOM.
    const [{ top } = { top: 0 }] = await t.db.sql<{ top: number }[]>`select max(seq) as top from dispatch.events where task_id = ${bigTask}`;
    await page.locator(`li[data-task="${bigTask}"] button.open`).click();
    await detail(page).locator(`pd-journal-line[data-seq="${top}"]`).waitFor({ timeout: 30_000 });
    const inDom = await detail(page).locator('pd-journal-line').count();
    expect(inDom).toBeGreaterThan(3);
    expect(inDom).toBeLessThan(100);
    await shot(page, 'phone-task-200k');

    // Scrolled to the top, the next older page comes in above.
    const heading = detail(page).locator('[data-testid=journal] h3');
    const held = async () => Number((await heading.innerText()).match(/\d+/)![0]);
    const before = await held();
    const list = detail(page).locator('lit-virtualizer');
    await list.hover();
    // Wheel only while the list is not at its top and nothing came in yet: a wheel after the page
    // arrived would scroll to the new top and ask for a second one.
    const atTop = () => list.evaluate((el) => el.scrollTop === 0);
    for (let i = 0; i < 50 && (await held()) === before && !(await atTop()); i++) await page.mouse.wheel(0, -50_000);
    await page.waitForFunction(
      (n) => {
        const h = document.querySelector('pd-app')?.shadowRoot?.querySelector('pd-task-detail')?.shadowRoot?.querySelector('[data-testid=journal] h3');
        return Number(h?.textContent?.match(/\d+/)?.[0] ?? 0) >= n + 300;
      },
      before,
      { timeout: 20_000 },
    );
    // Older rows come in whole pages of 300 (on a loaded machine a second page may follow the first).
    const added = (await held()) - before;
    expect(added % 300).toBe(0);
    expect(added).toBeGreaterThanOrEqual(300);

    // Scrolled up, new rows of the task do not move the view; a button says how many arrived.
    const [session] = await t.db.sql<{ id: string }[]>`select id from dispatch.sessions where task_id = ${bigTask}`;
    const writer = new JournalWriter(t.db.sql, { projectId: project, sessionId: session!.id, taskId: bigTask }, { maxBatch: 10 });
    for (let i = 0; i < 5; i++) writer.push(Buffer.from(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: `late line ${i}` }] } })));
    await writer.flush();
    const jump = detail(page).getByTestId('jump-new');
    await jump.waitFor({ timeout: 20_000 });
    // The writer may commit the five in two batches: the count follows each ("↓ 1 new", then 5).
    await expect.poll(() => jump.innerText(), { timeout: 20_000 }).toContain('5 new');
    await jump.click();
    await detail(page).locator('pd-journal-line', { hasText: 'late line 4' }).waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
