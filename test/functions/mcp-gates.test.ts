// The orchestrator cannot lift a rule-out by itself (SC-8), and in interactive mode each worker it
// asks for waits for the person: both become a gate of kind spawn. Approved, the worker is queued;
// denied, the task ends skipped and the orchestrator's next turn is asked for, with the reason.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../core/db/client.ts';
import { listen, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  url = (await listen(t)).url;
});

async function project(sql: Sql, name: string, config: object = {}) {
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project(${name}, ${JSON.stringify(config)}::text::jsonb) as id`;
  const [s] = await sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, role, status) values (${p!.id}, 'orchestrator', 'running') returning id`;
  await sql`insert into dispatch.events (project_id, session_id, event_type, payload) values (${p!.id}, ${s!.id}, 'session.spawned', '{}')`;
  const [tok] = await sql<{ t: string }[]>`select dispatch.issue_mcp_token(${p!.id}, ${s!.id}) as t`;
  const c = new Client({ name: 'test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tok!.t}` } } }));
  return { id: p!.id, client: c };
}

const parse = (r: unknown) => JSON.parse((r as { content: { text: string }[] }).content[0]!.text) as Record<string, any>;

async function decide(gate: string, decision: string, reason?: string) {
  return t.call('POST', `/api/gates/${gate}/decision`, { decision, reason });
}
const taskOf = async (id: string) =>
  (await t.db.sql<{ status: string; status_reason: string }[]>`select status, status_reason from dispatch.tasks where id = ${id}`)[0]!;
const jobs = async (key: string) => (await t.db.sql`select 1 from graphile_worker.jobs where key = ${key}`).length;

describe('spawns that wait for a person', () => {
  it('interactive mode: a spawn waits gated; approved, the worker is queued', async () => {
    const p = await project(t.db.sql, 'interactive', { mode: 'interactive' });
    const r = parse(await p.client.callTool({ name: 'spawn_worker', arguments: { brief: 'Rename the module', approach: 'git mv' } }));
    expect(r).toMatchObject({ spawned: false, gated: true, task_id: expect.any(String), gate_id: expect.any(String) });
    expect(await taskOf(r.task_id)).toMatchObject({ status: 'gated' });
    expect(await jobs(`spawn_worker:${r.task_id}`)).toBe(0);

    const list = (await (await t.call('GET', `/api/gates?project_id=${p.id}`)).json()) as { gates: Record<string, unknown>[] };
    expect(list.gates).toEqual([expect.objectContaining({ id: r.gate_id, kind: 'spawn', category: 'interactive_spawn', tool: 'spawn_worker', subject: 'Rename the module' })]);

    expect((await decide(r.gate_id, 'approve')).status).toBe(200);
    expect(await taskOf(r.task_id)).toMatchObject({ status: 'queued' });
    expect(await jobs(`spawn_worker:${r.task_id}`)).toBe(1);
    await p.client.close();
  });

  it('interactive mode: denied, the task ends skipped and the orchestrator is asked to take a turn with the reason', async () => {
    const p = await project(t.db.sql, 'interactive deny', { mode: 'interactive' });
    const r = parse(await p.client.callTool({ name: 'spawn_worker', arguments: { brief: 'Drop the cache', approach: 'rm the folder' } }));
    expect((await decide(r.gate_id, 'deny', 'keep the cache for now')).status).toBe(200);
    const task = await taskOf(r.task_id);
    expect(task.status).toBe('skipped');
    expect(task.status_reason).toContain('keep the cache for now');
    expect(await jobs(`orchestrator_turn:${p.id}`)).toBe(1);
    expect(await jobs(`spawn_worker:${r.task_id}`)).toBe(0);
    await p.client.close();
  });

  it('an override of a ruled-out approach becomes a gate shown with the rule-out, instead of running', async () => {
    const p = await project(t.db.sql, 'override');
    const [task] = await t.db.sql<{ id: string }[]>`
      insert into dispatch.tasks (project_id, brief, status) values (${p.id}, 'earlier work', 'success') returning id`;
    await t.db.sql.begin(async (tx) => {
      await tx`select set_config('dispatch.handoff_gate', 'validated', true)`;
      await tx`insert into dispatch.events (project_id, task_id, event_type, tier, payload)
               values (${p.id}, ${task!.id}, 'handoff', 'derived',
                       ${tx.json({ goal: 'g', current_state: 's', ruled_out: [{ approach: 'vendor the library', reason: 'licence forbids it' }] })})`;
    });
    const r = parse(await p.client.callTool({
      name: 'spawn_worker',
      arguments: { brief: 'Bundle the parser', approach: 'vendor the library', override_reason: 'the licence changed' },
    }));
    expect(r).toMatchObject({ spawned: false, gated: true, ruled_out: [{ approach: 'vendor the library', reason: 'licence forbids it' }] });
    expect(await jobs(`spawn_worker:${r.task_id}`)).toBe(0);
    const [g] = await t.db.sql<{ category: string; input: Record<string, unknown>; reason: string }[]>`
      select category, input, reason from dispatch.gates where id = ${r.gate_id}`;
    expect(g!.category).toBe('ruled_out_override');
    expect(g!.input).toMatchObject({ override_reason: 'the licence changed', ruled_out: [{ approach: 'vendor the library', reason: 'licence forbids it' }] });
    expect(g!.reason).toContain('the licence changed');
    expect((await decide(r.gate_id, 'approve')).status).toBe(200);
    expect(await taskOf(r.task_id)).toMatchObject({ status: 'queued' });
    await p.client.close();
  });

  it('autonomous mode without a rule-out spawns at once, as before', async () => {
    const p = await project(t.db.sql, 'autonomous');
    const r = parse(await p.client.callTool({ name: 'spawn_worker', arguments: { brief: 'Lint', approach: 'eslint' } }));
    expect(r).toMatchObject({ spawned: true });
    expect(await jobs(`spawn_worker:${r.task_id}`)).toBe(1);
    await p.client.close();
  });
});
