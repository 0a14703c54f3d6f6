// Dependencies with the real CLI and the scripted model, submitted over HTTP as the phone does: a
// chain of three runs strictly in order with two runners racing for its jobs (each task started
// once); a dependency that fails skips the chain after it, naming it; every refusal is a 400.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const handoff = (marker: string): Scenario['conversations'][number] => ({
  match: marker,
  steps: [{ text: JSON.stringify({ goal: marker, current_state: 'done', ruled_out: [] }), chunks: 1, delay_ms: 0 }],
});
const worker = (brief: string, marker: string): Scenario['conversations'][number] => ({
  match: brief,
  steps: [{ text: `${marker}: finished.`, chunks: 2, delay_ms: 0 }],
});

const scenarios: Scenario[] = [
  {
    name: 'dependencies',
    description: '',
    conversations: [
      handoff('CHAIN1-DONE'),
      handoff('CHAIN2-DONE'),
      handoff('CHAIN3-DONE'),
      worker('Chain step one', 'CHAIN1-DONE'),
      worker('Chain step two', 'CHAIN2-DONE'),
      worker('Chain step three', 'CHAIN3-DONE'),
      { match: 'Fail with a server error', steps: [{ error: { status: 500, type: 'api_error', message: 'Internal server error' } }] },
    ],
  },
];

let loop: Loop;
let project: string;
beforeAll(async () => {
  loop = await startLoop({ scenarios });
  project = await loop.project('dependencies');
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${loop.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
async function submit(brief: string, depends_on?: string[]): Promise<string> {
  const r = await post('/api/tasks', { project_id: project, brief, ...(depends_on ? { depends_on } : {}) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

describe('a chain of three tasks', () => {
  it('runs strictly in order, each started once although two runners race for the jobs', async () => {
    await loop.anotherRunner();
    const a = await submit('Chain step one: print a line.');
    const b = await submit('Chain step two: print a line.', [a]);
    const c = await submit('Chain step three: print a line.', [b]);
    const shown = await (await fetch(`${loop.url}/api/tasks/${c}`)).json() as { status: string; status_reason: string; depends_on: string[] };
    expect(shown.depends_on).toEqual([b]);
    expect(shown.status).toBe('queued');
    expect(shown.status_reason).toMatch(/^waits for: Chain step two: print a line\. — queued$/);
    await loop.waitTask(c, 'success', 180_000);

    const ids = [a, b, c];
    const names = new Map(ids.map((id, i) => [id, 'ABC'[i]!]));
    const rows = await loop.db.sql<{ seq: number; task_id: string; event_type: string; status: string | null }[]>`
      select seq, task_id, event_type,
             coalesce(payload ->> 'status', (select s.role from dispatch.sessions s where s.id = e.session_id)) as status
        from dispatch.events e
       where task_id = any(${ids}::uuid[])
         and (event_type in ('task.submitted', 'task.dependencies_met', 'session.spawned')
              or (event_type = 'task.status_changed' and payload ->> 'status' in ('running', 'success')))
       order by seq`;
    const order = rows.map((r) => `${r.seq} ${names.get(r.task_id)} ${r.event_type}${r.status ? ` ${r.status}` : ''}`);
    if (process.env.PD_PRINT_CHAIN) console.info(order.join('\n'));
    const firstOf = (id: string, type: string, status?: string) =>
      rows.find((r) => r.task_id === id && r.event_type === type && (status === undefined || r.status === status))!.seq;
    // Each one's first worker starts after the previous one ended success; met comes in between.
    for (const [prev, next] of [[a, b], [b, c]] as const) {
      const ended = firstOf(prev, 'task.status_changed', 'success');
      expect(firstOf(next, 'task.dependencies_met')).toBeGreaterThan(ended);
      expect(firstOf(next, 'session.spawned')).toBeGreaterThan(ended);
    }
    // Started once: one worker session each, one release each, though two runners were taking jobs.
    const sessions = await loop.db.sql<{ task_id: string; n: number }[]>`
      select task_id, count(*)::int as n from dispatch.sessions where task_id = any(${ids}::uuid[]) and role = 'worker' group by task_id`;
    expect(sessions.map((s) => s.n)).toEqual([1, 1, 1]);
    const met = rows.filter((r) => r.event_type === 'task.dependencies_met').map((r) => names.get(r.task_id));
    expect(met).toEqual(['B', 'C']);
  });
});

describe('a dependency that fails', () => {
  it('skips the tasks after it, the reason naming it', async () => {
    const a = await submit('Fail with a server error, please.');
    const b = await submit('Chain step two: after the failure.', [a]);
    const c = await submit('Chain step three: after that.', [b]);
    await loop.waitTask(a, 'failed');
    const tb = await loop.waitTask(b, 'skipped');
    const tc = await loop.waitTask(c, 'skipped');
    expect(tb.status_reason).toBe('dependency "Fail with a server error, please." ended failed');
    expect(tc.status_reason).toBe('dependency "Fail with a server error, please." ended failed (through "Chain step two: after the failure.")');
    expect(await loop.db.sql`select 1 from dispatch.sessions where task_id in (${b}, ${c})`).toHaveLength(0);
  });
});

describe('a dependency that cannot be', () => {
  it('is refused with 400 invalid_dependency naming the unknown id, and nothing is written', async () => {
    const ghost = '00000000-0000-4000-8000-00000000abcd';
    const before = await loop.db.sql`select 1 from dispatch.tasks`;
    const r = await post('/api/tasks', { project_id: project, brief: 'after a ghost', depends_on: [ghost] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_dependency', details: { field: 'depends_on', unknown: [ghost] } });
    expect(r.body.error.message).toContain(ghost);
    expect(await loop.db.sql`select 1 from dispatch.tasks`).toHaveLength(before.length);
  });

  it("is refused with 400 invalid_dependency naming another project's task", async () => {
    const other = await loop.project('another');
    const [t] = await loop.db.sql<{ id: string }[]>`
      insert into dispatch.tasks (project_id, brief, status) values (${other}, 'theirs', 'success') returning id`;
    const r = await post('/api/tasks', { project_id: project, brief: 'after theirs', depends_on: [t!.id] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_dependency', details: { other_project: [t!.id] } });
  });

  it('is refused with 400 naming the field when depends_on is not a list of ids', async () => {
    const r = await post('/api/tasks', { project_id: project, brief: 'bad list', depends_on: ['not-a-uuid'] });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toContain('depends_on');
  });
});
