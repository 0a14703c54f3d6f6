// What a person configures reaches the CLI, shown by what the CLI then did: the project's model
// (the model server sees it), permission mode and cwd (the CLI's own init line), extra_args and
// extractor_args (the system prompt the model receives), CLAUDE_ARGS (the worker's argv), the
// default cwd, the orchestrator's tools; WORKER_CONCURRENCY=1 runs one worker at a time; and the
// orchestrator's MCP token works during its turn and is revoked after it.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop } from '../helpers/loop.ts';
import { tempDir } from '../helpers/teardown.ts';

const handoff = { goal: 'g', current_state: 's', next_step: 'n', ruled_out: [] };
const scenario: Scenario = {
  name: 'argv',
  description: '',
  conversations: [
    { match: 'handoff extractor', steps: [{ text: '```json\n' + JSON.stringify(handoff) + '\n```', chunks: 1, delay_ms: 0 }] },
    { match: 'orchestrator of project', steps: [{ text: 'Nothing to do.', chunks: 1, delay_ms: 0, gate: 'turn' }] },
    { match: 'FIRST-TASK', steps: [{ text: 'first done', chunks: 1, delay_ms: 0, gate: 'first' }] },
    { match: 'SECOND-TASK', steps: [{ text: 'second done', chunks: 1, delay_ms: 0 }] },
    { match: 'CONFIGURED', steps: [{ text: 'configured done', chunks: 1, delay_ms: 0 }] },
    { match: 'DEFAULTS', steps: [{ text: 'defaults done', chunks: 1, delay_ms: 0 }] },
  ],
};

const systemOf = (body: Record<string, unknown>) => JSON.stringify(body.system ?? '');

describe('configuration reaching the CLI', () => {
  it('project config and CLAUDE_ARGS: model, permission mode, cwd, extra and extractor args; the default cwd', async () => {
    const loop = await startLoop({ scenarios: [scenario], env: { CLAUDE_ARGS: '--max-turns 9' } });
    const cwd = fs.realpathSync(tempDir('pd-cwd-'));
    const configured = await loop.project('configured', {
      model: 'claude-haiku-4-5',
      permission_mode: 'acceptEdits',
      cwd,
      extra_args: ['--append-system-prompt', 'PROJECT-EXTRA-ARG'],
      extractor_args: ['--append-system-prompt', 'EXTRACTOR-EXTRA-ARG'],
    });
    const taskId = await loop.submit(configured, 'CONFIGURED: run with the project config.');
    await loop.waitTask(taskId, 'success', 60_000);
    const events = await eventsOf(loop.db, taskId);
    const spawned = events.filter((e) => e.event_type === 'session.spawned');
    const worker = spawned.find((e) => e.payload.role === 'worker')!;
    const argv = worker.payload.argv as string[];
    expect(argv.join(' ')).toContain('--max-turns 9'); // CLAUDE_ARGS
    const init = events.find((e) => e.event_type === 'claude.init' && e.session_id === worker.session_id)!.payload;
    expect(init).toMatchObject({ permissionMode: 'acceptEdits', cwd });
    const workerRequest = loop.model.requests.find((r) => r.userText.includes('CONFIGURED: run') && !r.userText.includes('handoff extractor'))!;
    expect(workerRequest.body.model).toBe('claude-haiku-4-5');
    expect(systemOf(workerRequest.body)).toContain('PROJECT-EXTRA-ARG');
    expect(systemOf(workerRequest.body)).not.toContain('EXTRACTOR-EXTRA-ARG');
    const extractorRequest = loop.model.requests.find((r) => r.userText.includes('handoff extractor') && r.userText.includes('configured done'))!;
    expect(systemOf(extractorRequest.body)).toContain('EXTRACTOR-EXTRA-ARG');
    expect(extractorRequest.body.model).toBe('claude-haiku-4-5');

    // Without a cwd the worker runs in DISPATCH_DATA_DIR/work/<project id>.
    const plain = await loop.project('defaults');
    const plainTask = await loop.submit(plain, 'DEFAULTS: run with no config.');
    await loop.waitTask(plainTask, 'success', 60_000);
    const plainInit = (await eventsOf(loop.db, plainTask)).find((e) => e.event_type === 'claude.init')!.payload;
    expect(plainInit.cwd).toBe(path.join(fs.realpathSync(loop.dataDir), 'work', plain));
  });

  it('WORKER_CONCURRENCY=1: the second worker starts only after the first ended', async () => {
    const loop = await startLoop({ scenarios: [scenario], env: { WORKER_CONCURRENCY: '1' } });
    const project = await loop.project('one at a time');
    const first = await loop.submit(project, 'FIRST-TASK: hold on.');
    const second = await loop.submit(project, 'SECOND-TASK: go.');
    await loop.model.atGate('first'); // the first worker runs and waits on the model
    loop.model.release('first');
    await loop.waitTask(first, 'success', 60_000);
    await loop.waitTask(second, 'success', 60_000);
    const [order] = await loop.db.sql<{ ok: boolean }[]>`
      select (select started_at from dispatch.sessions where task_id = ${second} and role = 'worker')
          >= (select ended_at from dispatch.sessions where task_id = ${first} and role = 'worker') as ok`;
    expect(order!.ok).toBe(true);
  });

  it("the orchestrator gets the dispatch tools and its project's orchestrator_tools; its MCP token works during the turn, then is revoked", async () => {
    const loop = await startLoop({ scenarios: [scenario] });
    const project = await loop.project('orchestrated', { orchestrator_tools: ['WebSearch'] });
    const res = await fetch(`${loop.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project, text: 'Anything to do?', message_id: randomUUID() }),
    });
    expect(res.status).toBe(201);
    await loop.model.atGate('turn');
    const [s] = await waitFor(
      () => loop.db.sql<{ id: string; pid: number }[]>`select id, pid from dispatch.sessions where project_id = ${project} and role = 'orchestrator' and pid is not null`,
      (rows) => rows.length === 1,
      { what: 'the orchestrator session' },
    );
    const spawned = (await loop.db.sql<{ payload: { argv: string[] } }[]>`
      select payload from dispatch.events where session_id = ${s!.id} and event_type = 'session.spawned'`)[0]!.payload;
    const allowed = spawned.argv[spawned.argv.indexOf('--allowedTools') + 1]!.split(',');
    expect(allowed).toEqual(expect.arrayContaining(['mcp__dispatch__spawn_worker', 'mcp__dispatch__get_project_state', 'WebSearch']));

    // The token as the CLI holds it (its argv), used the way the CLI uses it.
    const cmdline = fs.readFileSync(`/proc/${s!.pid}/cmdline`, 'utf8').split('\0');
    const mcp = JSON.parse(cmdline[cmdline.indexOf('--mcp-config') + 1]!) as { mcpServers: Record<string, { url: string; headers: { Authorization: string } }> };
    const server = mcp.mcpServers.dispatch!;
    const list = () =>
      fetch(server.url, {
        method: 'POST',
        headers: { authorization: server.headers.Authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const during = await list();
    expect(during.status).toBe(200);
    await during.body?.cancel();

    loop.model.release('turn');
    await waitFor(
      () => loop.db.sql`select 1 from dispatch.sessions where id = ${s!.id} and ended_at is not null`,
      (rows) => rows.length === 1,
      { what: 'the turn to end' },
    );
    await waitFor(
      () => loop.db.sql`select 1 from dispatch.mcp_tokens where session_id = ${s!.id} and revoked_at is not null`,
      (rows) => rows.length === 1,
      { what: 'the token to be revoked' },
    );
    expect((await list()).status).toBe(401);
  });
});
