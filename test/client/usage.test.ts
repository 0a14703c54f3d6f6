// Cost on screen, in a real browser at a phone viewport against a real server, Postgres and the
// real CLI with the scripted model reporting known usage: the glance header's spend and tokens, a
// task row's cost, the task's breakdown by session and model, and the 14-day chart — updating live
// when a run ends; and the quota state in the header.
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { launch, open, shot } from '../helpers/browser.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

// claude-opus-4-8 prices: worker $0.014, extractor $0.0125 — a task costs $0.0265 ("$0.03").
const WORKER = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000, cache_creation_input_tokens: 400 };
const EXTRACTOR = { input_tokens: 2000, output_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const handoff = { goal: 'Count', current_state: 'Counted', next_step: 'Nothing', ruled_out: [] };
const scenario: Scenario = {
  name: 'usage-client',
  description: '',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [{ text: '```json\n' + JSON.stringify(handoff) + '\n```', chunks: 1, delay_ms: 0, usage: EXTRACTOR }] },
    { match: 'Count the sheep', steps: [{ text: 'One sheep. Two sheep. Three sheep.', chunks: 6, delay_ms: 300, usage: WORKER }] },
  ],
};

let loop: Loop;
let browser: Browser;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario], serve: true });
  browser = await launch();
  return async () => {
    await browser.close();
  };
});

describe('cost on screen', () => {
  it('the header, the task row, the breakdown and the 14-day chart show what runs cost at a phone viewport, live when a run ends', async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    // The task view asks for the task's workspace, which a project without a repo answers with 404;
    // any other error the page logs fails the test.
    const { page, errors } = await open(ctx, loop.url!, { allowErrors: true });
    const today = page.getByTestId('usage-today');
    await today.getByText('$0.00').waitFor();
    expect(await today.innerText()).toContain('0 tokens');

    const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('sheep') as id`;
    const taskId = await loop.submit(p!.id, 'Count the sheep, slowly.');
    const row = page.locator(`li[data-task="${taskId}"]`);
    await row.locator('[data-status="running"]').waitFor({ timeout: 20_000 });
    expect(await row.getByTestId('task-cost').count()).toBe(0); // nothing has ended yet

    // The worker ends, then its extractor: the row, the header and the chart follow with no reload.
    await row.getByTestId('task-cost').getByText('$0.03').waitFor({ timeout: 30_000 });
    await today.getByText('$0.03').waitFor({ timeout: 30_000 });
    expect(await today.innerText()).toMatch(/today \$0\.03 · 6\.7 k tokens/);
    const bars = page.locator('pd-usage-chart .bar');
    expect(await bars.count()).toBe(14);
    expect(await bars.last().getAttribute('data-day')).toBe(new Date().toISOString().slice(0, 10));
    expect(Number(await bars.last().getAttribute('data-cost'))).toBe(0.0265);
    expect(await page.getByRole('img', { name: /spend per day, last 14 days: \$0\.03 in all/ }).count()).toBe(1);
    await shot(page, 'phone-usage-header');

    // The task's breakdown: by session and by model.
    await row.locator('button.open').click();
    const breakdown = page.getByTestId('usage-breakdown');
    await breakdown.waitFor({ timeout: 30_000 });
    expect(await breakdown.getByTestId('task-total').innerText()).toBe('$0.03');
    expect(await breakdown.locator('tr[data-key="worker"]').innerText()).toMatch(/worker\s+\$0\.01\s+4\.6 k tokens/);
    expect(await breakdown.locator('tr[data-key="extractor"]').innerText()).toMatch(/extractor\s+\$0\.01\s+2\.1 k tokens/);
    expect(await breakdown.locator('tr[data-key="claude-opus-4-8"]').innerText()).toMatch(/claude-opus-4-8\s+\$0\.03\s+6\.7 k tokens/);
    await shot(page, 'phone-usage-task');
    expect(errors.filter((e) => !e.includes('status of 404'))).toEqual([]);
    await ctx.close();
  });

  it('with a project picked, a phone keeps the money line to one row of the sticky header: its spend, all projects’ and the chart', async () => {
    const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('one project') as id`;
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await ctx.addInitScript((id) => localStorage.setItem('pd.project', id), p!.id);
    const { page } = await open(ctx, loop.url!);
    const all = page.getByTestId('usage-all');
    await all.waitFor();
    expect(await all.innerText()).toMatch(/^all \$\d+\.\d\d$/);
    expect(await all.getAttribute('title')).toBe('today, all projects');
    const middle = async (testId: string) => {
      const b = (await page.getByTestId(testId).boundingBox())!;
      return b.y + b.height / 2;
    };
    const row = await middle('usage-today');
    expect(Math.abs((await middle('usage-all')) - row)).toBeLessThan(4);
    expect(Math.abs((await middle('usage-chart')) - row)).toBeLessThan(4);
    await ctx.close();
  });

  it('shows the account rate limited until its reset time, with the tasks waiting for it', async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const { page } = await open(ctx, loop.url!);
    await page.getByTestId('usage-today').waitFor();
    // The quota read that the limit's own row asks for is answered as the server said it before
    // the task waited, and only once the page has the task's waiting row too: the reload that row
    // asked for must still follow (an answer saying "limited" once cancelled it, and the count
    // stayed short until the minute's poll).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let read!: () => void;
    const readBefore = new Promise<void>((r) => (read = r));
    let first = true;
    await page.route('**/api/quota', async (route) => {
      if (!first) return route.continue();
      first = false;
      const response = await route.fetch();
      read();
      await held;
      await route.fulfill({ response });
    });
    const until = new Date(Date.now() + 10 * 60_000);
    await loop.db.sql`select dispatch.rate_limited(null, ${until}, 'rate limited (429)')`;
    await readBefore;
    const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('waiting') as id`;
    const waiting = await loop.submit(p!.id, 'Count the sheep again.');
    await loop.waitTask(waiting, 'queued');
    await page.getByText('Count the sheep again.').first().waitFor();
    release();
    // Its clock time, as the page writes it; with its day in front when that is past midnight.
    const [hm, day] = await page.evaluate((t) => {
      const d = new Date(t);
      return [d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), d.toLocaleDateString([], { month: 'short', day: 'numeric' })];
    }, until.toISOString());
    const label = new RegExp(`rate limited until (${day} )?${hm} \\(1 task waiting\\)`);
    await page.getByTestId('quota').getByText(label).waitFor({ timeout: 15_000 });
    await shot(page, 'phone-usage-quota');
    await loop.db.sql`select dispatch.cancel_task(${waiting})`;
    await ctx.close();
  });
});
