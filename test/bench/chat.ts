// Bench section `chat`: a long conversation scrolled back to its start. 3 000 turns (a message of
// the person, the orchestrator's reply, a worker's output between them: test/helpers/conversation.ts),
// a real Chromium at 390×844, the server in this process. Figures: the open (ms from navigation
// start to the frame that shows the newest reply), then each page of older messages: ms from the
// feed asking (scrolled to its top) to the frame that draws the older bubbles, the bytes of a
// request for older rows (two a page: the person's messages, the orchestrator's words), and the
// longest main-thread task meanwhile.
//   BENCH_CHAT_TURNS   turns in the conversation (default 3000)
import { chromium } from 'playwright-core';
import type { Sql } from '../../core/db/client.ts';
import { resolveChromium } from '../helpers/chromium.ts';
import { serveInProcess } from './in-process-app.ts';
import { fillConversation } from '../helpers/conversation.ts';
import { r1, spread, type Print } from './stats.ts';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];

/**
 * Watches, inside the page: when the newest reply is first drawn, and for each time the feed asks
 * for older rows, how long until bubbles older than the oldest one drawn then are drawn. A string,
 * not a function: tsx would wrap a function's inner functions in a helper the page does not have.
 */
function watch(last: number): string {
  return `(() => {
    const w = window;
    const list = () => document.querySelector('pd-app')?.shadowRoot?.querySelector('pd-chat')?.shadowRoot?.querySelector('lit-virtualizer');
    const place = (t) => { const m = /^(note|reply) (\\d+):/.exec(t.trim()); return m ? Number(m[2]) * 2 + (m[1] === 'reply' ? 1 : 0) : Infinity; };
    const oldest = () => { let min = Infinity; for (const b of list()?.querySelectorAll('li .bubble') ?? []) min = Math.min(min, place(b.textContent ?? '')); return min; };
    w.__asked = 0;
    w.__pages = [];
    w.__long = 0;
    new PerformanceObserver((l) => l.getEntries().forEach((e) => (w.__long = Math.max(w.__long, e.duration)))).observe({ type: 'longtask' });
    const open = () => { if ([...(list()?.querySelectorAll('li .bubble') ?? [])].some((b) => place(b.textContent ?? '') === ${last * 2 + 1})) w.__opened = performance.now(); else requestAnimationFrame(open); };
    requestAnimationFrame(open);
    w.addEventListener('pd-older', () => {
      w.__asked++;
      const at = performance.now();
      const from = oldest();
      const tick = () => { if (oldest() < from) w.__pages.push(performance.now() - at); else requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    }, true);
  })();`;
}

/** What watch() keeps on the page's window. */
interface Watched {
  __opened?: number;
  __asked: number;
  __pages: number[];
  __long: number;
}

export async function chatBench(sql: Sql, dbUrl: string, print: Print): Promise<void> {
  const turns = Number(process.env.BENCH_CHAT_TURNS ?? 3000);
  const talk = await fillConversation(sql, `bench talk ${Math.random().toString(36).slice(2, 6)}`, turns);
  const served = await serveInProcess(sql, dbUrl);
  const url = served.url;
  const browser = await chromium.launch({ executablePath: (await resolveChromium()).path, args: ARGS, headless: true });
  try {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await ctx.addInitScript((id) => localStorage.setItem('pd.project', id), talk.project);
    const page = await ctx.newPage();
    await page.addInitScript({ content: watch(turns - 1) });
    const bytes: number[] = [];
    page.on('requestfinished', (r) => {
      if (!r.url().includes('/api/events?') || !r.url().includes('before=')) return;
      void r.sizes().then((s) => bytes.push(s.responseBodySize + s.responseHeadersSize));
    });
    await page.goto(`${url}/#/chat`);
    const opened = await page.waitForFunction(() => (window as unknown as Watched).__opened, undefined, { timeout: 120_000 }).then((h) => h.jsonValue() as Promise<number>);
    const list = page.locator('pd-chat lit-virtualizer');
    const start = page.locator('pd-chat pd-feed').getByText('Start of the conversation');
    await list.hover();
    let pages = 0;
    for (; pages < 200 && !(await start.isVisible()); pages++) {
      const asked = await page.evaluate(() => (window as unknown as Watched).__asked);
      for (let i = 0; i < 200 && (await page.evaluate(() => (window as unknown as Watched).__asked)) === asked && !(await start.isVisible()); i++) await page.mouse.wheel(0, -3000);
      await page.waitForFunction((n) => (window as unknown as Watched).__pages.length > n || (window as unknown as Watched).__asked === n, asked, { timeout: 120_000 });
    }
    const times = await page.evaluate(() => (window as unknown as Watched).__pages);
    print(`chat.${turns}_turns`, {
      journal_rows: talk.rows, viewport: '390x844', open_to_newest_reply_ms: Math.round(opened), pages_to_start: times.length,
      page_in_ms: spread(times), older_rows_request_kb: r1(bytes.reduce((a, b) => a + b, 0) / 1024 / Math.max(1, bytes.length)), older_rows_requests: bytes.length,
      longest_task_ms: r1(await page.evaluate(() => (window as unknown as Watched).__long)),
    });
    await ctx.close();
  } finally {
    await browser.close();
    await served.close();
  }
}
