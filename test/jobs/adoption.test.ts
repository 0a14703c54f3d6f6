// A runner killed with SIGKILL mid-run: the worker keeps writing to its spool file, the next runner
// unlocks the dead runner's job at once, re-adopts the session, and every line lands exactly once.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type Scenario } from '../../fixtures/scripted-model/server.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, startEntry, startServer, type Started } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';
import { claudeEnv } from '../helpers/claude-env.ts';

const scenario: Scenario = {
  name: 'adoption',
  description: '',
  conversations: [
    { match: 'handoff extractor', steps: [{ text: JSON.stringify({ goal: 'count', current_state: 'counted', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
    {
      match: 'Count slowly',
      steps: [
        { tool_use: { name: 'Bash', input: { command: 'echo one', description: 'first' } } },
        // Held until the new runner has adopted the worker: the model, not a sleep, keeps it alive.
        { tool_use: { name: 'Bash', input: { command: 'echo two', description: 'second' } }, gate: 'adopted' },
        { text: 'Counted to two.', chunks: 4, delay_ms: 100 },
      ],
    },
  ],
};

const started: Started[] = [];
afterAll(() => {
  for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGKILL');
});

describe('a runner killed mid-run', () => {
  it('is replaced by one that re-adopts the worker; every line is journalled exactly once', async () => {
    const db = await createTestDb();
    const model = await startScriptedModel([scenario]);
    const dataDir = tempDir('pd-adopt-');
    const marker = randomUUID();
    const base = cleanEnv({ DATABASE_URL: db.url, DISPATCH_DATA_DIR: dataDir, ...claudeEnv(model.url, dataDir, marker), LOG_LEVEL: 'info' });
    // The workers' gate hook asks a server that outlives the runners (a runner alone fails closed):
    // served on a port the system picks, which the runners are told as PUBLIC_URL.
    const server = await startServer(base);
    const env = { ...base, PUBLIC_URL: server.url };
    const work = () => {
      const s = startEntry('bin/main.ts', env, ['work']);
      started.push(s);
      return s;
    };

    const first = work();
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('adoption', '{"allowed_tools":["Bash"]}') as id`;
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Count slowly to two.') as id`;
    const taskId = t!.id;

    // Kill the runner once the worker ran its first tool and waits on the model.
    await model.atGate('adopted');
    first.child.kill('SIGKILL');
    await first.exited;
    const [s] = await db.sql<{ id: string; pid: number; spool_path: string }[]>`
      select id, pid, spool_path from dispatch.sessions where task_id = ${taskId} and role = 'worker'`;
    expect(processesWith(marker)).toContain(s!.pid); // the worker outlived its runner

    const second = work();
    const [adopted] = await waitFor(
      () => db.sql<{ payload: { pid: number; process_alive: boolean; lines_already_journalled: number } }[]>`
        select payload from dispatch.events where session_id = ${s!.id} and event_type = 'session.adopted'`,
      (rows) => rows.length === 1,
      { timeout: 30_000, what: () => `the adoption (${second.output()})` },
    );
    // Adopted alive (not closed from its spool): the same process, still running.
    expect(adopted!.payload).toMatchObject({ pid: s!.pid, process_alive: true });
    expect(processesWith(marker)).toContain(s!.pid);
    model.release('adopted');
    const [done] = await waitFor(
      () => db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${taskId}`,
      (rows) => rows[0]?.status === 'success',
      { timeout: 20_000, what: () => `the task to succeed after adoption (${second.output()})` },
    );
    expect(done!.status).toBe('success');

    const rows = await db.sql<{ line_no: number; payload: unknown }[]>`
      select line_no, payload from dispatch.events where session_id = ${s!.id} and line_no is not null order by seq`;
    const spooled = fs.readFileSync(s!.spool_path, 'utf8').split('\n').filter(Boolean);
    expect(rows.map((r) => r.line_no)).toEqual(spooled.map((_, i) => i));
    expect(rows.map((r) => r.payload)).toEqual(spooled.map((l) => JSON.parse(l)));
    // It kept writing after adoption: its second tool call and its result came after, via the new runner.
    const after = spooled.slice(adopted!.payload.lines_already_journalled).join('\n');
    expect(after).toContain('echo two');
    expect(after).toContain('"type":"result"');

    const types = await db.sql<{ event_type: string; payload: Record<string, unknown> }[]>`
      select event_type, payload from dispatch.events where session_id = ${s!.id} and line_no is null order by seq`;
    expect(types.map((r) => r.event_type)).toEqual(['session.spawned', 'session.adopted', 'session.exited', 'usage.recorded', 'handoff']);
    expect(types[2]!.payload).toMatchObject({ status: 'success', exit_known: false });
    const [lost] = await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where event_type = 'runner.lost'`;
    expect(lost!.n).toBe(1);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(processesWith(marker)).toEqual([]);
    await model.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
