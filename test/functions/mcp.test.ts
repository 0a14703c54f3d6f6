// The dispatch MCP server, with the SDK's own client and with the real claude CLI loading it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../core/db/client.ts';
import { listen, startTestApp, type TestApp } from '../helpers/app.ts';
import { startLoop } from '../helpers/loop.ts';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  url = (await listen(t)).url;
});

async function project(sql: Sql, name: string): Promise<{ id: string; token: string; session: string }> {
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project(${name}) as id`;
  const [s] = await sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, role, status) values (${p!.id}, 'orchestrator', 'running') returning id`;
  await sql`insert into dispatch.events (project_id, session_id, event_type, payload) values (${p!.id}, ${s!.id}, 'session.spawned', '{}')`;
  const [tok] = await sql<{ t: string }[]>`select dispatch.issue_mcp_token(${p!.id}, ${s!.id}) as t`;
  return { id: p!.id, token: tok!.t, session: s!.id };
}

/** A handoff that rules an approach out, written the only way one can be: inside the gate. */
async function ruleOut(sql: Sql, projectId: string, approach: string, reason: string): Promise<string> {
  const [task] = await sql<{ id: string }[]>`
    insert into dispatch.tasks (project_id, brief, status) values (${projectId}, 'earlier work', 'success') returning id`;
  return sql.begin(async (tx) => {
    await tx`select set_config('dispatch.handoff_gate', 'validated', true)`;
    const [h] = await tx<{ event_id: string }[]>`
      insert into dispatch.events (project_id, task_id, event_type, tier, payload)
      values (${projectId}, ${task!.id}, 'handoff', 'derived',
              ${tx.json({ goal: 'g', current_state: 's', ruled_out: [{ approach, reason }] })}) returning event_id`;
    return h!.event_id;
  });
}

async function client(token: string): Promise<Client> {
  const c = new Client({ name: 'test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return c;
}

const parse = (r: unknown) => JSON.parse((r as { content: { text: string }[] }).content[0]!.text) as Record<string, unknown>;

describe('the MCP server (SDK client)', () => {
  it('lists the four dispatch tools', async () => {
    const p = await project(t.db.sql, 'mcp tools');
    const c = await client(p.token);
    const { tools } = await c.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(['check_ruled_out', 'get_handoffs', 'get_project_state', 'spawn_worker']);
    await c.close();
  });

  it('answers get_project_state and get_handoffs for its own project only', async () => {
    const p = await project(t.db.sql, 'mcp reads');
    const other = await project(t.db.sql, 'mcp other');
    const h = await ruleOut(t.db.sql, p.id, 'rewrite in Rust', 'too slow to build here');
    const c = await client(p.token);
    const state = parse(await c.callTool({ name: 'get_project_state', arguments: {} }));
    expect(state).toMatchObject({ project_id: p.id, name: 'mcp reads', open_rule_outs: [{ approach: 'rewrite in Rust', handoff_id: h }] });
    const handoffs = parse(await c.callTool({ name: 'get_handoffs', arguments: {} }));
    expect(handoffs.handoffs).toEqual([expect.objectContaining({ handoff_id: h, ruled_out: [{ approach: 'rewrite in Rust', reason: 'too slow to build here' }] })]);
    const foreign = await c.callTool({ name: 'get_handoffs', arguments: { scope_id: other.id } });
    expect(foreign.isError).toBe(true);
    await c.close();
  });

  it('spawn_worker refuses a ruled-out approach and its paraphrase, returns the rule-out, and accepts another', async () => {
    const p = await project(t.db.sql, 'mcp spawn');
    const h = await ruleOut(t.db.sql, p.id, 'Parse the logs with regular expressions', 'the format is nested JSON');
    const c = await client(p.token);
    for (const approach of ['parse the logs with regular expressions', 'Parse logs with a regular expression']) {
      const r = await c.callTool({ name: 'spawn_worker', arguments: { brief: 'Count errors in the logs', approach } });
      expect(r.isError, approach).toBe(true);
      expect(parse(r)).toMatchObject({
        refused: true,
        ruled_out: [{ approach: 'Parse the logs with regular expressions', reason: 'the format is nested JSON', handoff_id: h }],
      });
    }
    expect(parse(await c.callTool({ name: 'check_ruled_out', arguments: { approach: 'use jq on the JSON logs' } }))).toMatchObject({ ruled_out: false });
    const ok = parse(await c.callTool({ name: 'spawn_worker', arguments: { brief: 'Count errors in the logs', approach: 'use jq on the JSON logs', plan_ref: 'T-7' } }));
    expect(ok).toMatchObject({ spawned: true, task_id: expect.any(String) });

    const tasks = await t.db.sql`select brief, approach, plan_ref, spawned_by_session from dispatch.tasks where project_id = ${p.id} and brief = 'Count errors in the logs'`;
    expect(tasks).toEqual([{ brief: 'Count errors in the logs', approach: 'use jq on the JSON logs', plan_ref: 'T-7', spawned_by_session: p.session }]);
    const refused = await t.db.sql`select payload from dispatch.events where project_id = ${p.id} and event_type = 'spawn.refused'`;
    expect(refused).toHaveLength(2);

    const override = parse(await c.callTool({
      name: 'spawn_worker',
      arguments: { brief: 'Try again', approach: 'parse the logs with regular expressions', override_reason: 'the format changed to plain text' },
    }));
    expect(override).toMatchObject({ spawned: false, gated: true }); // the person decides an override (SC-8)
    const [o] = await t.db.sql`select payload from dispatch.events where project_id = ${p.id} and event_type = 'spawn.override'`;
    expect(o!.payload).toMatchObject({ override_reason: 'the format changed to plain text' });
    await c.close();
  });

  it('spawn_worker with depends_on submits a worker that waits for those tasks, and refuses an unknown one naming it', async () => {
    const p = await project(t.db.sql, 'mcp chain');
    const c = await client(p.token);
    const first = parse(await c.callTool({ name: 'spawn_worker', arguments: { brief: 'Write the parser', approach: 'a recursive descent parser' } }));
    const then = parse(await c.callTool({
      name: 'spawn_worker',
      arguments: { brief: 'Test the parser', approach: 'table tests over the grammar', depends_on: [first.task_id] },
    }));
    expect(then).toMatchObject({ spawned: true, waits_for: [first.task_id] });
    const [waiting] = await t.db.sql<{ status: string; status_reason: string }[]>`
      select status, status_reason from dispatch.tasks where id = ${then.task_id as string}`;
    expect(waiting).toEqual({ status: 'queued', status_reason: 'waits for: Write the parser — queued' });
    expect(await t.db.sql`select depends_on from dispatch.task_dependencies where task_id = ${then.task_id as string}`)
      .toEqual([{ depends_on: first.task_id }]);

    const ghost = '00000000-0000-4000-8000-00000000beef';
    const r = await c.callTool({ name: 'spawn_worker', arguments: { brief: 'After a ghost', approach: 'any', depends_on: [ghost] } });
    expect(r.isError).toBe(true);
    expect(parse(r)).toMatchObject({ spawned: false, refused: true, code: 'invalid_dependency', reason: expect.stringContaining(ghost) });
    expect(await t.db.sql`select 1 from dispatch.tasks where project_id = ${p.id} and brief = 'After a ghost'`).toHaveLength(0);
    await c.close();
  });

  it('refuses an unknown token', async () => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer pdm_${'0'.repeat(48)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
  });
});

describe('the real claude CLI', () => {
  it('calls mcp__dispatch__get_project_state through /mcp and the answer lands in its journal', async () => {
    const loop = await startLoop({
      scenarios: [
        {
          name: 'mcp-cli',
          description: '',
          conversations: [
            { match: 'handoff extractor', steps: [{ text: JSON.stringify({ goal: 'g', current_state: 's', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
            {
              match: 'Look at the project state',
              steps: [
                { tool_use: { name: 'mcp__dispatch__get_project_state', input: {} } },
                { text: 'The project has work in flight.', chunks: 1, delay_ms: 0 },
              ],
            },
          ],
        },
      ],
    });
    const server = await startTestApp({}, loop.db);
    const { url: base } = await listen(server);
    const projectId = await loop.project('mcp via cli');
    const [tok] = await loop.db.sql<{ t: string }[]>`select dispatch.issue_mcp_token(${projectId}) as t`;
    const mcpConfig = JSON.stringify({ mcpServers: { dispatch: { type: 'http', url: `${base}/mcp`, headers: { Authorization: `Bearer ${tok!.t}` } } } });
    await loop.db.sql`update dispatch.projects set config = ${loop.db.sql.json({
      allowed_tools: ['mcp__dispatch__get_project_state'],
      extra_args: ['--mcp-config', mcpConfig, '--strict-mcp-config'],
    })} where id = ${projectId}`;
    const taskId = await loop.submit(projectId, 'Look at the project state.');
    await loop.waitTask(taskId, 'success');
    const [init] = await loop.db.sql<{ payload: { mcp_servers: { name: string; status: string }[] } }[]>`
      select payload from dispatch.events where task_id = ${taskId} and event_type = 'claude.init' order by seq limit 1`;
    expect(init!.payload.mcp_servers).toContainEqual({ name: 'dispatch', status: 'connected' });
    const [result] = await loop.db.sql<{ payload: { message: { content: { content: unknown }[] } } }[]>`
      select payload from dispatch.events where task_id = ${taskId} and event_type = 'claude.tool_result' order by seq limit 1`;
    const text = JSON.stringify(result!.payload.message.content[0]!.content);
    expect(text).toContain(projectId);
    expect(text).toContain('mcp via cli');
  });
});
