// Budgets that stop spend, with the real CLI and the scripted model: a worker whose first turn
// costs more than the project's per_task_usd is stopped by the CLI's own --max-budget-usd and ends
// partial ("budget reached"), escalated to the orchestrator; once the day's spend reaches
// per_day_usd, new tasks are held (visible, one push), and raising the budget releases them.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import type { BudgetState } from '../../core/contracts/usage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, eventsOf, type Loop } from '../helpers/loop.ts';
import { startPushService, type PushService } from '../helpers/push-service.ts';

// claude-opus-4-8: $5 / $25 / $0.50 / $6.25 per million input / output / cache-read / cache-write tokens.
const EXPENSIVE = { input_tokens: 100000, output_tokens: 20000, cache_read_input_tokens: 50000, cache_creation_input_tokens: 10000 }; // $1.0875
const WORKER = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000, cache_creation_input_tokens: 400 }; // $0.014
const EXTRACTOR = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }; // $0.00075
const handoff = { goal: 'Count', current_state: 'Counted', next_step: 'Nothing', ruled_out: [] };

const scenario: Scenario = {
  name: 'budget',
  description: '',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [{ text: '```json\n' + JSON.stringify(handoff) + '\n```', chunks: 1, delay_ms: 0, usage: EXTRACTOR }] },
    {
      match: 'Refactor everything',
      steps: [
        { tool_use: { name: 'Bash', input: { command: 'echo should-not-run > ran.txt' } }, text: 'Starting.', usage: EXPENSIVE },
        { text: 'Done.', chunks: 1, delay_ms: 0, usage: EXPENSIVE },
      ],
    },
    { match: 'Count ', steps: [{ text: 'Counted.', chunks: 1, delay_ms: 0, usage: WORKER }] },
  ],
};

let loop: Loop;
let app: TestApp;
let push: PushService;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario] });
  app = await startTestApp({}, loop.db);
  push = await startPushService();
});

describe('a per-task budget', () => {
  it('is passed to the worker; the CLI stops the run at it and the task ends partial with "budget reached", escalated to the orchestrator', async () => {
    const project = await loop.project('per task', { allowed_tools: ['Bash'], budget: { per_task_usd: 0.5 } });
    const taskId = await loop.submit(project, 'Refactor everything at once.');
    const t = await loop.waitTask(taskId, ['partial', 'failed', 'success'], 60_000);
    expect(t.status).toBe('partial');
    expect(t.status_reason).toBe('budget reached ($1.09 spent)');

    const events = await eventsOf(loop.db, taskId);
    const spawned = events.find((e) => e.event_type === 'session.spawned')!.payload as { argv: string[] };
    expect(spawned.argv.join(' ')).toContain('--max-budget-usd 0.5');
    const result = events.find((e) => e.event_type === 'claude.result')!.payload;
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true });
    expect(events.find((e) => e.event_type === 'session.exited')!.payload).toMatchObject({ status: 'partial', exit_code: 1 });
    expect(events.find((e) => e.event_type === 'policy.decision')!.payload).toMatchObject({ action: 'escalate_orchestrator' });
    // The stop came before the tool ran; what was spent is recorded all the same.
    expect(events.some((e) => e.event_type === 'claude.tool_result')).toBe(false);
    const [u] = await loop.db.sql<{ cost: number }[]>`select sum(cost_usd)::float8 as cost from dispatch.session_usage where task_id = ${taskId}`;
    expect(u!.cost).toBe(1.0875);

    // The orchestrator's turn hears of it, and of the budget.
    const turn = await waitFor(
      () => loop.model.requests.find((r) => r.userText.includes('orchestrator of project "per task"')),
      (r) => r !== undefined,
      { timeout: 30_000, what: 'the escalated orchestrator turn' },
    );
    expect(turn!.userText).toContain('Budget: each worker stops at $0.50 and ends partial ("budget reached").');
    expect(turn!.userText).toContain(`- task ${taskId} (approach: none) ended partial: budget reached ($1.09 spent)`);
  });
});

describe('a daily budget', () => {
  it('holds the third task of the day, pushes once, and releases it when the budget is raised', async () => {
    const key = ((await (await app.call('GET', '/api/push/key')).json()) as { public_key: string }).public_key;
    const sub = await push.subscribe(key);
    expect((await app.call('POST', '/api/push/subscriptions', { subscription: { endpoint: sub.endpoint, keys: sub.keys }, statuses: ['budget_reached'] })).status).toBe(201);

    const project = await loop.project('per day', { budget: { per_day_usd: 0.02 } });
    // Each task costs $0.01475 (worker and extractor): after two, $0.0295 of $0.02 is spent.
    for (const n of [1, 2]) await loop.waitTask(await loop.submit(project, `Count to ${n}.`), 'success', 60_000);
    const third = await loop.submit(project, 'Count to 3.');
    const held = await loop.waitTask(third, 'held');
    expect(held.status_reason).toBe('daily budget reached: $0.029500 of $0.02 spent today; raise budget.per_day_usd or wait for tomorrow (UTC)');
    const fourth = await loop.submit(project, 'Count to 4.');
    await loop.waitTask(fourth, 'held');

    // Visible: /api/state lists them held; the project's state and the budget say so.
    const state = (await (await app.call('GET', '/api/state')).json()) as { tasks: { id: string; status: string }[] };
    expect(state.tasks.filter((t) => t.id === third || t.id === fourth).map((t) => t.status)).toEqual(['held', 'held']);
    const budget = (await (await app.call('GET', `/api/projects/${project}/budget`)).json()) as BudgetState;
    expect(budget).toMatchObject({ per_day_usd: 0.02, spent_today_usd: 0.0295, remaining_today_usd: 0, held_tasks: 2 });
    const ps = (await (await app.call('GET', `/api/projects/${project}/state`)).json()) as { budget: BudgetState };
    expect(ps.budget).toEqual(budget);

    // One push for the day, not one per held task.
    const messages = await waitFor(() => push.messages(sub.clientHash), (m) => m.length >= 1, { timeout: 20_000, what: 'the budget push' });
    const [m] = messages.map((x) => JSON.parse(x as string) as { status: string; title: string; body: string });
    expect(m).toMatchObject({ status: 'budget_reached', title: 'Daily budget reached' });
    expect(m!.body).toContain('$0.03 of $0.02');
    const [reached] = await loop.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where project_id = ${project} and event_type = 'budget.reached'`;
    expect(reached!.n).toBe(1);

    // Raising the budget releases both, and they run.
    const raised = await app.call('PUT', `/api/projects/${project}/budget`, { per_day_usd: 1 });
    expect(raised.status).toBe(200);
    expect(((await raised.json()) as BudgetState).per_day_usd).toBe(1);
    await loop.waitTask(third, 'success', 60_000);
    await loop.waitTask(fourth, 'success', 60_000);
    const released = await loop.db.sql<{ payload: { tasks: number; reason: string } }[]>`
      select payload from dispatch.events where project_id = ${project} and event_type = 'budget.released'`;
    expect(released.map((r) => [r.payload.tasks, r.payload.reason])).toEqual([[2, 'the budget was raised']]);
    expect(await push.messages(sub.clientHash)).toHaveLength(1);
  });

  it('releases work held yesterday once the new day\'s budget allows it (what the release_held cron runs every minute)', async () => {
    const project = await loop.project('new day', { budget: { per_day_usd: 0.01 } });
    // Held yesterday, when that day's budget was spent; today nothing is spent yet.
    const [t] = await loop.db.sql<{ id: string }[]>`insert into dispatch.tasks (project_id, brief) values (${project}, 'Count to 5.') returning id`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'held', 'daily budget reached')`;
    const [r] = await loop.db.sql<{ n: number }[]>`select dispatch.release_held_tasks() as n`;
    expect(r!.n).toBe(1);
    await loop.waitTask(t!.id, 'success', 60_000);
    const [ev] = await loop.db.sql<{ payload: { reason: string } }[]>`
      select payload from dispatch.events where project_id = ${project} and event_type = 'budget.released'`;
    expect(ev!.payload.reason).toBe('a new day began');
  });
});
