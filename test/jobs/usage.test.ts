// What runs cost, with the real CLI and the scripted model reporting known token counts: every
// session's usage (workers, extractors, orchestrator turns) lands in dispatch.session_usage when it
// exits, and the totals per task, project and day are exact; GET /api/usage, the operator CLI and
// SQL say the same.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import type { TaskUsage, UsageReport, UsageTotals } from '../../core/contracts/usage.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';

// The CLI prices the default model (claude-opus-4-8) per million tokens at $5 input, $25 output,
// $0.50 cache read and $6.25 cache write; each step below is priced by hand.
const WORKER = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 3000, cache_creation_input_tokens: 400 }; // $0.014
const EXTRACTOR = { input_tokens: 2000, output_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }; // $0.0125
const SPAWN = { input_tokens: 10000, output_tokens: 400, cache_read_input_tokens: 20000, cache_creation_input_tokens: 0 }; // $0.07
const SAY = { input_tokens: 500, output_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }; // $0.0035

const handoff = { goal: 'Do the step', current_state: 'The step is done', next_step: 'The next step', ruled_out: [] };
const say = (text: string, usage: typeof SAY) => ({ text, chunks: 1, delay_ms: 0, usage });
const spawn = (brief: string) => ({ tool_use: { name: 'mcp__dispatch__spawn_worker', input: { brief, approach: brief } }, usage: SPAWN });

const scenario: Scenario = {
  name: 'usage',
  description: 'known token counts for every kind of session',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [say('```json\n' + JSON.stringify(handoff) + '\n```', EXTRACTOR)] },
    {
      match: 'orchestrator of project',
      steps: [spawn('Step one: count.'), say('Started step one.', SAY), spawn('Step two: count again.'), say('Started step two.', SAY), say('Both done.', SAY)],
    },
    { match: 'Step ', steps: [say('Counted.', WORKER)] },
  ],
};

function totals(steps: (typeof SAY)[], sessions: number): UsageTotals {
  const sum = (k: keyof typeof SAY) => steps.reduce((a, s) => a + s[k], 0);
  const cost = steps.reduce((a, s) => a + (s.input_tokens * 5 + s.output_tokens * 25 + s.cache_read_input_tokens * 0.5 + s.cache_creation_input_tokens * 6.25) / 1e6, 0);
  return {
    cost_usd: Math.round(cost * 1e6) / 1e6,
    input_tokens: sum('input_tokens'),
    output_tokens: sum('output_tokens'),
    cache_read_tokens: sum('cache_read_input_tokens'),
    cache_creation_tokens: sum('cache_creation_input_tokens'),
    sessions,
  };
}
const TASK = totals([WORKER, EXTRACTOR], 2);
const TURNS = totals([SPAWN, SAY, SPAWN, SAY, SAY], 3);
const PROJECT_A = totals([SPAWN, SAY, SPAWN, SAY, SAY, WORKER, EXTRACTOR, WORKER, EXTRACTOR], 7);
const ALL = totals([SPAWN, SAY, SPAWN, SAY, SAY, WORKER, EXTRACTOR, WORKER, EXTRACTOR, WORKER, EXTRACTOR], 9);

let loop: Loop;
let A: string;
let B: string;
let tasksA: { id: string; brief: string }[];
let direct: string;

const report = async (q: string) => {
  const res = await fetch(`${loop.url}/api/usage?${q}`);
  expect(res.status).toBe(200);
  return (await res.json()) as UsageReport;
};
const sqlUsage = async (project: string | null, group: string, since: string | null = null, until: string | null = null) =>
  (await loop.db.sql<{ r: UsageReport }[]>`select dispatch.usage(${project}, ${since}, ${until}, ${group}) as r`)[0]!.r;

beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario], serve: true });
  A = await loop.project('usage A');
  B = await loop.project('usage B');
  const res = await fetch(`${loop.url}/api/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: A, text: 'Count twice.', message_id: randomUUID() }),
  });
  expect(res.status).toBe(201);
  direct = await loop.submit(B, 'Step zero: count once.');
  await loop.waitTask(direct, 'success', 60_000);
  await waitFor(
    async () => (await loop.db.sql<{ turns: number; open: number }[]>`
      select (select count(*)::int from dispatch.session_usage where project_id = ${A} and role = 'orchestrator') as turns,
             (select count(*)::int from dispatch.tasks where project_id = ${A} and ended_at is null) as open`)[0]!,
    (r) => r.turns >= 3 && r.open === 0,
    { timeout: 120_000, what: 'three orchestrator turns and two tasks of project A' },
  );
  tasksA = await loop.db.sql<{ id: string; brief: string }[]>`select id, brief from dispatch.tasks where project_id = ${A} order by created_at`;
}, 180_000);

describe('usage per session, task, project and day', () => {
  it('records every session once, from its result, when it exits', async () => {
    const rows = await loop.db.sql<{ role: string; model: string; n: number; recorded: number }[]>`
      select s.role, u.model, count(*)::int as n,
             (select count(*)::int from dispatch.events e where e.event_type = 'usage.recorded' and e.session_id = any(array_agg(s.id))) as recorded
        from dispatch.sessions s join dispatch.session_usage u on u.session_id = s.id
       group by s.role, u.model order by s.role`;
    expect(rows).toEqual([
      { role: 'extractor', model: 'claude-opus-4-8', n: 3, recorded: 3 },
      { role: 'orchestrator', model: 'claude-opus-4-8', n: 3, recorded: 3 },
      { role: 'worker', model: 'claude-opus-4-8', n: 3, recorded: 3 },
    ]);
    // The CLI's own figure in each result line is what was recorded.
    const [check] = await loop.db.sql<{ journal: number; recorded: number }[]>`
      select (select sum((payload ->> 'total_cost_usd')::numeric) from dispatch.events where event_type = 'claude.result')::float8 as journal,
             (select sum(cost_usd) from dispatch.session_usage)::float8 as recorded`;
    expect(check!.recorded).toBeCloseTo(check!.journal, 9);
    expect(check!.recorded).toBeCloseTo(ALL.cost_usd, 9);
  });

  it('sums tasks, projects and the day exactly, to the token and the cent', async () => {
    const byTask = await sqlUsage(A, 'task');
    expect(byTask.rows).toEqual(
      [{ key: '', ...TURNS }, ...tasksA.map((t) => ({ key: t.id, ...TASK }))].sort((x, y) => x.key.localeCompare(y.key)),
    );
    expect(byTask.total).toEqual(PROJECT_A);

    const byProject = await sqlUsage(null, 'project');
    expect(byProject.rows).toEqual([{ key: A, ...PROJECT_A }, { key: B, ...TASK }].sort((x, y) => x.key.localeCompare(y.key)));
    expect(byProject.total).toEqual(ALL);

    const today = new Date().toISOString().slice(0, 10);
    const byDay = await sqlUsage(null, 'day');
    expect(byDay.rows).toEqual([{ key: today, ...ALL }]);

    const byRole = await sqlUsage(A, 'role');
    expect(byRole.rows.map((r) => [r.key, r.cost_usd, r.sessions])).toEqual([
      ['extractor', totals([EXTRACTOR, EXTRACTOR], 2).cost_usd, 2],
      ['orchestrator', TURNS.cost_usd, 3],
      ['worker', totals([WORKER, WORKER], 2).cost_usd, 2],
    ]);

    // A range that ends before anything ran is empty; one around now holds everything.
    expect((await sqlUsage(null, 'day', null, '2000-01-01T00:00:00Z')).total.sessions).toBe(0);
    const around = await sqlUsage(null, 'model', new Date(Date.now() - 3_600_000).toISOString(), new Date(Date.now() + 60_000).toISOString());
    expect(around.total).toEqual(ALL);
    expect(around.rows).toEqual([{ key: 'claude-opus-4-8', ...ALL }]);
  });

  it('breaks a task down by session role, with the orchestrator turn that spawned it beside it', async () => {
    const [r] = await loop.db.sql<{ r: TaskUsage }[]>`select dispatch.task_usage(${tasksA[0]!.id}) as r`;
    const turn = totals([SPAWN, SAY], 0);
    expect(r!.r).toEqual({
      task_id: tasksA[0]!.id,
      total: TASK,
      by_role: [
        { key: 'extractor', ...totals([EXTRACTOR], 1) },
        { key: 'worker', ...totals([WORKER], 1) },
        { key: 'orchestrator', ...turn },
      ],
      by_model: [{ key: 'claude-opus-4-8', ...TASK }],
    });
    const res = await fetch(`${loop.url}/api/tasks/${tasksA[0]!.id}/usage`);
    expect(await res.json()).toEqual(r!.r);
    // A task no turn spawned has no orchestrator share.
    const [d] = await loop.db.sql<{ r: TaskUsage }[]>`select dispatch.task_usage(${direct}) as r`;
    expect(d!.r.by_role.map((x) => x.key)).toEqual(['extractor', 'worker']);
  });

  it('GET /api/usage and the operator CLI say what SQL says', async () => {
    for (const group of ['task', 'day', 'model', 'project', 'role']) {
      expect(await report(`project_id=${A}&group=${group}`)).toEqual(await sqlUsage(A, group));
      expect(await report(`group=${group}`)).toEqual(await sqlUsage(null, group));
    }
    const since = new Date(Date.now() - 86_400_000).toISOString();
    expect(await report(`since=${encodeURIComponent(since)}&group=project`)).toEqual(await sqlUsage(null, 'project', since));
    expect((await fetch(`${loop.url}/api/usage?group=week`)).status).toBe(400);
    expect((await fetch(`${loop.url}/api/usage?project_id=${randomUUID()}`)).status).toBe(404);

    const cli = startEntry('bin/cli.ts', cleanEnv({ DATABASE_URL: loop.db.url }), ['usage', '--project', 'all', '--group', 'project']);
    expect((await cli.exited).code).toBe(0);
    const lines = cli.output().trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));
    const expected = (await sqlUsage(null, 'project'));
    expect(lines).toEqual([
      ...expected.rows.map((r) => [r.key, `$${r.cost_usd.toFixed(6)}`, ...[r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_creation_tokens, r.sessions].map(String)]),
      ['total', `$${expected.total.cost_usd.toFixed(6)}`, ...[ALL.input_tokens, ALL.output_tokens, ALL.cache_read_tokens, ALL.cache_creation_tokens, ALL.sessions].map(String)],
    ]);
  });
});
