// Bench section `client`: the phone surface on a real journal. 1 000 000 journal rows over 20 tasks
// in 3 projects (test/helpers/big-journal.ts), a real Chromium at 390×844, the server in this
// process. Figures: the open (ms until the picked project's tasks are visible, bytes and requests
// it took), the same throttled to 9 Mbit/s with 60 ms latency, opening the 200 000-row task (ms
// until its newest row shows), the longest main-thread task while scrolling it 5 screens, and
// the JS heap after a spell of live updates at 100 lines/s.
//   BENCH_CLIENT_ROWS    journal rows (default 1000000)
//   BENCH_CLIENT_OPENS   cold opens taken of each kind, the median printed (default 5)
//   BENCH_CLIENT_LIVE_S  seconds of live updates before the heap is read (default 60; the figure is 600)
import { chromium, type Page } from 'playwright-core';
import type { Sql } from '../../core/db/client.ts';
import { JournalWriter } from '../../jobs/journal-writer.ts';
import { fillBigJournal } from '../helpers/big-journal.ts';
import { resolveChromium } from '../helpers/chromium.ts';
import { serveInProcess } from './in-process-app.ts';
import type { Print } from './stats.ts';

const OPENS = Math.max(1, Number(process.env.BENCH_CLIENT_OPENS ?? 5));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync', '--enable-precise-memory-info'];


/**
 * Watches, inside the page, for the first frame in which every one of the given tasks is on screen,
 * and records its time from navigation start. A string, not a function: tsx would wrap a
 * function's inner functions in a helper the page does not have.
 */
function watchTasks(ids: string[]): string {
  return `(() => {
    const ids = ${JSON.stringify(ids)};
    const found = (root) => {
      const out = new Set();
      const walk = (r) => { for (const li of r.querySelectorAll('li[data-task]')) out.add(li.dataset.task); for (const e of r.querySelectorAll('*')) if (e.shadowRoot) walk(e.shadowRoot); };
      walk(root);
      return out;
    };
    const tick = () => {
      const seen = found(document);
      if (ids.every((id) => seen.has(id))) window.__tasksVisible = performance.now();
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })();`;
}

/**
 * One cold open: `ms` from navigation start to the frame that shows the tasks, measured in the page
 * (what the person waits); `driverMs` is the same seen from here, one locator round trip per task
 * on top (what this bench printed before: on a loaded machine those round trips alone cost
 * hundreds of milliseconds).
 */
async function openTimed(page: Page, url: string, taskIds: string[]): Promise<{ ms: number; driverMs: number; bytes: number; requests: number }> {
  await page.addInitScript({ content: watchTasks(taskIds) });
  let bytes = 0;
  let requests = 0;
  const pending: Promise<void>[] = [];
  page.on('requestfinished', (r) => {
    requests++;
    pending.push(r.sizes().then((s) => void (bytes += s.responseBodySize + s.responseHeadersSize)));
  });
  const t0 = performance.now();
  await page.goto(url);
  for (const id of taskIds) await page.locator(`li[data-task="${id}"]`).waitFor({ timeout: 120_000 });
  const driverMs = performance.now() - t0;
  const ms = await page.waitForFunction(() => (window as unknown as { __tasksVisible?: number }).__tasksVisible).then((h) => h.jsonValue() as Promise<number>);
  // The stream never ends, so "network idle" is never reached: a quiet second after the open's
  // own requests (usage, gates, the recent rows) settles them.
  await page.waitForLoadState('networkidle', { timeout: 3000 }).catch(() => {});
  await Promise.all(pending);
  return { ms: Math.round(ms), driverMs: Math.round(driverMs), bytes, requests };
}

export async function clientBench(sql: Sql, dbUrl: string, print: Print): Promise<void> {
  const rows = Number(process.env.BENCH_CLIENT_ROWS ?? 1_000_000);
  const t0 = performance.now();
  const big = await fillBigJournal(sql, rows);
  const fillS = (performance.now() - t0) / 1000;
  const served = await serveInProcess(sql, dbUrl);
  const url = served.url;
  const browser = await chromium.launch({ executablePath: (await resolveChromium()).path, args: ARGS, headless: true });
  try {
    const project = big.projects[0]!;
    const mine = big.tasks.filter((id) => big.projectOf.get(id) === project);
    const context = async (throttle: boolean) => {
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      await ctx.addInitScript((p) => localStorage.setItem('pd.project', p), project);
      const page = await ctx.newPage();
      if (throttle) {
        const cdp = await ctx.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 60, downloadThroughput: (9e6 / 8), uploadThroughput: (9e6 / 8) });
      }
      return { ctx, page };
    };

    // Each open is a cold one (a fresh context: no cache, no service worker). One sample on a shared
    // machine says little, so OPENS of each are taken and the median printed with the spread; the
    // first includes the browser's own warm-up (its first renderer).
    const opens = async (throttle: boolean, keepLast: boolean) => {
      const runs: Awaited<ReturnType<typeof openTimed>>[] = [];
      let kept: Awaited<ReturnType<typeof context>> | null = null;
      for (let i = 0; i < OPENS; i++) {
        const c = await context(throttle);
        runs.push(await openTimed(c.page, url, mine));
        if (keepLast && i === OPENS - 1) kept = c;
        else await c.ctx.close();
      }
      const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
      const median = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
      return { median, kept, spread: { min: ms[0], max: ms.at(-1), first: runs[0]!.ms, all: runs.map((r) => r.ms) } };
    };
    const open = await opens(false, true);
    const fast = open.kept!;
    const throttled = await opens(true, false);

    // The 200 000-row task: newest row on screen, then 5 screens of scrolling, watching long tasks.
    const page = fast.page;
    const bigTask = big.tasks[0]!;
    const [{ top } = { top: 0 }] = await sql<{ top: number }[]>`select max(seq) as top from dispatch.events where task_id = ${bigTask}`;
    const t1 = performance.now();
    await page.locator(`li[data-task="${bigTask}"] button.open`).click();
    await page.locator(`pd-task-detail pd-journal-line[data-seq="${top}"]`).waitFor({ timeout: 120_000 });
    const taskMs = Math.round(performance.now() - t1);
    await page.evaluate(() => {
      const w = window as unknown as { __long: number[] };
      w.__long = [];
      new PerformanceObserver((l) => l.getEntries().forEach((e) => w.__long.push(e.duration))).observe({ type: 'longtask', buffered: false });
    });
    const list = page.locator('pd-task-detail lit-virtualizer');
    await list.hover();
    for (let i = 0; i < 5; i++) {
      await page.mouse.wheel(0, -844);
      await page.waitForTimeout(150);
    }
    const longest = await page.evaluate(() => Math.max(0, ...(window as unknown as { __long: number[] }).__long));

    // Live updates at 100 lines/s into the open task, then the JS heap.
    const liveS = Number(process.env.BENCH_CLIENT_LIVE_S ?? 60);
    const [s] = await sql<{ id: string }[]>`select id from dispatch.sessions where task_id = ${bigTask}`;
    const writer = new JournalWriter(sql, { projectId: project, sessionId: s!.id, taskId: bigTask }, { maxBatch: 50 });
    const line = (i: number) => Buffer.from(JSON.stringify({ type: 'assistant', message: { id: `live_${i}`, role: 'assistant', content: [{ type: 'text', text: `live line ${i}: ${'a realistic sentence of model output. '.repeat(8)}` }] } }));
    const end = Date.now() + liveS * 1000;
    let i = 0;
    while (Date.now() < end) {
      for (let k = 0; k < 10; k++) writer.push(line(i++));
      await new Promise((r) => setTimeout(r, 100));
    }
    await writer.flush();
    const cdp = await fast.ctx.newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    await fast.ctx.close();

    print('client open (1M rows)', {
      rows, fill_s: Math.round(fillS), opens: OPENS, tasks_visible_ms: open.median.ms, spread_ms: open.spread, seen_by_driver_ms: open.median.driverMs,
      open_kb: Math.round(open.median.bytes / 1024), open_requests: open.median.requests,
      target: '≤ 1000 ms, ≤ 300 KB',
    });
    print('client open 9 Mbit/s 60 ms', {
      tasks_visible_ms: throttled.median.ms, spread_ms: throttled.spread, seen_by_driver_ms: throttled.median.driverMs, open_kb: Math.round(throttled.median.bytes / 1024), target: '≤ 2000 ms',
    });
    print('client task 200k rows', { newest_rows_ms: taskMs, longest_task_scrolling_ms: Math.round(longest), target: '≤ 1000 ms, no task > 200 ms' });
    print('client heap after live', { live_s: liveS, lines: i, js_heap_mb: Math.round((heap.usedSize / 2 ** 20) * 10) / 10, target: '≤ 50 MB' });
  } finally {
    await browser.close();
    await served.close();
  }
}
