// "Needs you" on the phone, from real runs: the real CLI against the scripted model makes a gate
// (a worker's risky tool call), an extraction_failed task (an extractor that answers no JSON),
// a stalled extractor and a stalled orchestrator turn (the model holds their requests). Each
// appears in the section, in the header chip and on the app badge, and leaves them when the person
// (or the model) resolves it: Approve, Retry, the model answering, Stop. A loop that then ends
// because its work is done is finished: the badge goes back to 0.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { launch, open, shot } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const handoff = (goal: string) => JSON.stringify({ goal, current_state: 'done', ruled_out: [] });
// Extractors first: an extractor's prompt carries its worker's brief too.
const scenario: Scenario = {
  name: 'needs-you',
  description: '',
  conversations: [
    { match: 'GATE-DONE', steps: [{ text: handoff('Write the env file'), chunks: 1, delay_ms: 0 }] },
    { match: 'NOJSON-DONE', steps: [{ text: 'I would rather not answer in JSON.', chunks: 1, delay_ms: 0 }] },
    { match: 'STALL-DONE', steps: [{ text: handoff('Count the notes'), chunks: 1, delay_ms: 0, gate: 'extractor' }] },
    { match: 'TURN-STALL', steps: [{ text: 'The week is planned.', chunks: 1, delay_ms: 0, gate: 'turn' }] },
    {
      match: 'GATE-ME',
      steps: [
        { text: 'Writing it.', tool_use: { name: 'Bash', input: { command: 'echo API_KEY=placeholder > .env', description: 'write .env' } } },
        { text: 'GATE-DONE: the env file is written.', chunks: 1, delay_ms: 0 },
      ],
    },
    { match: 'NOJSON-ME', steps: [{ text: 'NOJSON-DONE: the logs are summarised.', chunks: 1, delay_ms: 0 }] },
    { match: 'STALL-ME', steps: [{ text: 'STALL-DONE: three notes.', chunks: 1, delay_ms: 0 }] },
  ],
};
// What the next turn answers once the person stopped the stalled one.
const answered: Scenario = { name: 'needs-you-turn', description: '', conversations: [{ match: 'TURN-STALL', steps: [{ text: 'Planned after the stop.', chunks: 1, delay_ms: 0 }] }] };
// What the extractor answers once the person retries the task.
const fixed: Scenario = { name: 'needs-you-retry', description: '', conversations: [{ match: 'NOJSON-DONE', steps: [{ text: handoff('Summarise the logs'), chunks: 1, delay_ms: 0 }] }] };

let loop: Loop;
let browser: Browser;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario], env: { STALL_SECONDS: '1' } });
  browser = await launch();
});

const badge = (page: Page) => page.evaluate(() => (window as unknown as { __badge: number | null }).__badge);
/** The keys listed in Needs you, and the badge, once the badge agrees with the list. */
async function listed(page: Page): Promise<{ keys: string[]; badge: number | null }> {
  return waitFor(
    async () => {
      const keys = await page.locator('pd-needs-you li').evaluateAll((els) => els.map((e) => e.getAttribute('data-key') ?? ''));
      return { keys, badge: await badge(page) };
    },
    (s) => s.badge === s.keys.length || (s.keys.length === 0 && s.badge === 0),
    { what: 'the badge to show the Needs you count' },
  );
}

async function sessionOf(where: string, role: string, id: string): Promise<string> {
  const row = await waitFor(
    async () =>
      (where === 'task'
        ? await loop.db.sql<{ id: string; stalled: boolean }[]>`select id, stalled from dispatch.sessions where task_id = ${id} and role = ${role}`
        : await loop.db.sql<{ id: string; stalled: boolean }[]>`select id, stalled from dispatch.sessions where project_id = ${id} and role = ${role}`)[0],
    (s) => !!s?.stalled,
    { timeout: 30_000, what: `the ${role} to stall` },
  );
  return row!.id;
}

describe('the Needs you section', () => {
  it('lists a gated task, an extraction_failed task, a stalled extractor and a stalled turn, counts them, and clears each as it is resolved', async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await ctx.addInitScript(() => {
      const w = window as unknown as { __badge: number | null };
      w.__badge = null;
      Object.assign(navigator, {
        setAppBadge: async (n?: number) => void (w.__badge = n ?? 0),
        clearAppBadge: async () => void (w.__badge = 0),
      });
    });
    const { page } = await open(ctx, loop.url!);
    await page.locator('pd-task-list').waitFor();
    const section = page.getByTestId('needs-you');
    const item = (key: string) => section.locator(`li[data-key^="${key}"]`);

    const work = await loop.project('needs you', { allowed_tools: ['Bash'] });
    const gated = await loop.submit(work, 'GATE-ME: write the env file with a placeholder key.');
    const failed = await loop.submit(work, 'NOJSON-ME: summarise the logs.');
    const counted = await loop.submit(work, 'STALL-ME: count the notes.');
    const planning = await loop.project('needs you turn');
    const res = await fetch(`${loop.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: planning, text: 'TURN-STALL: plan the week.', message_id: randomUUID() }),
    });
    expect(res.status).toBe(201);

    await loop.waitTask(gated, 'gated', 60_000);
    await loop.waitTask(failed, 'extraction_failed', 60_000);
    await loop.model.atGate('extractor');
    const extractor = await sessionOf('task', 'extractor', counted);
    await loop.model.atGate('turn');
    const turn = await sessionOf('project', 'orchestrator', planning);

    const [g] = await loop.db.sql<{ id: string }[]>`select id from dispatch.gates where task_id = ${gated} and status = 'open'`;
    const gateKey = `gate:${g!.id}`;
    // All four, and nothing else (the workers are over: no transient stall of theirs is left).
    await item(gateKey).filter({ hasText: 'approve Bash?' }).filter({ hasText: 'echo API_KEY=placeholder > .env' }).waitFor({ timeout: 20_000 });
    await item(`task:${failed}:1`).filter({ hasText: 'extraction failed: NOJSON-ME' }).waitFor();
    await item(`stalled:${extractor}:`).filter({ hasText: 'the extractor has gone quiet: STALL-ME' }).waitFor();
    await item(`stalled:${turn}:`).filter({ hasText: 'the orchestrator has gone quiet' }).waitFor();
    // Each says since when it has been silent (a time of day), not a generic "stall threshold".
    for (const s of [extractor, turn]) expect(await item(`stalled:${s}:`).locator('.detail').innerText()).toMatch(/^no output since \d{1,2}:\d{2}/);
    const all = await waitFor(() => listed(page), (s) => s.keys.length === 4, { timeout: 20_000, what: 'exactly the four items' });
    expect(all.keys.map((k) => k.split(':').slice(0, 2).join(':')).sort()).toEqual([gateKey, `task:${failed}`, `stalled:${extractor}`, `stalled:${turn}`].sort());
    expect(all.badge).toBe(4);
    await page.locator('[data-chip="needs-you"]', { hasText: '4 needs you' }).waitFor();
    await shot(page, 'phone-needs-you');

    // Tapping a task item opens it.
    await item(gateKey).locator('button[aria-label="open the task"]').click();
    await page.locator('pd-task-detail h2', { hasText: 'GATE-ME' }).waitFor();
    await page.goBack();
    await section.waitFor();

    // The gated task: approved from the gates list, its worker resumes.
    await page.locator('pd-gates li').filter({ hasText: 'echo API_KEY=placeholder > .env' }).locator('button.approve').click();
    await item(gateKey).waitFor({ state: 'detached', timeout: 30_000 });
    // The extraction_failed task: Retry runs it again (this time its extractor answers JSON).
    loop.model.use(fixed);
    await item(`task:${failed}:1`).locator('button[aria-label="retry the task"]').click();
    await item(`task:${failed}:1`).waitFor({ state: 'detached', timeout: 30_000 });
    let now = await listed(page);
    // (A resumed worker may be listed a moment as quiet too, with STALL_SECONDS=1.)
    for (const s of [extractor, turn]) expect(now.keys.some((k) => k.startsWith(`stalled:${s}:`))).toBe(true);
    expect(now.keys.filter((k) => k === gateKey || k.startsWith(`task:${failed}`))).toEqual([]);
    // The stalled extractor: its model answers, it resumes and ends.
    loop.model.release('extractor');
    await item(`stalled:${extractor}:`).waitFor({ state: 'detached', timeout: 30_000 });
    // The stalled turn: the person stops it; its message goes back to the next turn, which answers.
    loop.model.use(answered);
    await item(`stalled:${turn}:`).locator('button[aria-label="stop the orchestrator turn"]').click();
    await item(`stalled:${turn}:`).waitFor({ state: 'detached', timeout: 30_000 });
    const [stopped] = await loop.db.sql<{ status: string; stalled: boolean }[]>`select status, stalled from dispatch.sessions where id = ${turn}`;
    expect(stopped).toEqual({ status: 'cancelled', stalled: false });
    const returned = await loop.db.sql`select 1 from dispatch.events where session_id = ${turn} and event_type = 'user_message.returned'`;
    expect(returned).toHaveLength(1);
    await waitFor(
      () => loop.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.sessions where project_id = ${planning} and role = 'orchestrator' and status = 'success'`,
      (r) => r[0]!.n === 1,
      { timeout: 60_000, what: 'the next turn to end' },
    );

    for (const t of [gated, failed, counted]) await loop.waitTask(t, 'success', 60_000);
    // The planning loop ended clean with nothing left to run: finished, not Needs you. Nothing is
    // left, the badge is 0 (the working set comes a moment after the turn's session ends).
    await waitFor(
      () => loop.db.sql<{ project_id: string }[]>`select project_id from dispatch.finished_loops(${planning})`,
      (r) => r.length === 1,
      { timeout: 20_000, what: 'the planning loop to be finished' },
    );
    now = await waitFor(() => listed(page), (s) => s.keys.length === 0 && s.badge === 0, { timeout: 20_000, what: 'Needs you to be empty' });
    expect(now).toEqual({ keys: [], badge: 0 });
    await page.locator('[data-chip="needs-you"]', { hasText: '0 needs you' }).waitFor();
    await ctx.close();
  }, 180_000);
});
