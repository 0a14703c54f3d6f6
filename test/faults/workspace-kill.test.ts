// kill -9 of dispatch while a worker writes in its worktree: the worker outlives its runner, the next
// runner re-adopts the session, the worktree and every byte the worker wrote are still there, and
// the change is committed and journalled exactly once.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startScriptedModel, type Scenario } from '../../fixtures/scripted-model/server.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, startEntry, startServer } from '../helpers/process.ts';
import { makeRepo } from '../helpers/repo.ts';
import { defer, tempDir } from '../helpers/teardown.ts';
import { claudeEnv } from '../helpers/claude-env.ts';

const ROWS = 40;
const rows = Array.from({ length: ROWS }, (_, i) => `row ${i + 1}\n`).join('');

const scenario: Scenario = {
  name: 'workspace-kill',
  description: '',
  conversations: [
    { match: 'handoff extractor', steps: [{ text: JSON.stringify({ goal: 'write', current_state: 'written', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
    {
      match: 'Write the rows slowly',
      steps: [
        { tool_use: { name: 'Bash', input: { command: `for i in $(seq 1 ${ROWS}); do echo "row $i" >> out.txt; sleep 0.1; done`, description: 'write rows' } } },
        { text: 'Wrote the rows.', chunks: 1, delay_ms: 0 },
      ],
    },
  ],
};

describe('dispatch killed with SIGKILL while a worker writes in its worktree', () => {
  it('leaves the worktree and every byte intact; after re-adoption the change is journalled once', async () => {
    const db = await createTestDb();
    const model = await startScriptedModel([scenario]);
    defer(() => model.close(), 'scripted model');
    const dataDir = tempDir('pd-wskill-');
    const repo = makeRepo({ 'README.md': '# kill test\n' });
    const marker = randomUUID();
    const base = cleanEnv({ DATABASE_URL: db.url, DISPATCH_DATA_DIR: dataDir, ...claudeEnv(model.url, dataDir, marker), LOG_LEVEL: 'info' });
    // The workers' gate hook asks a server that outlives the runners, on a port the system picks.
    const server = await startServer(base);
    const env = { ...base, PUBLIC_URL: server.url };
    const first = startEntry('bin/main.ts', env, ['work']);
    const config = JSON.stringify({ repo: repo.dir, allowed_tools: ['Bash'] });
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('ws-kill', ${config}::text::jsonb) as id`;
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Write the rows slowly.') as id`;
    const taskId = t!.id;

    // Kill the runner while the worker is part-way through its writes.
    const [created] = await waitFor(
      () => db.sql<{ payload: { path: string } }[]>`select payload from dispatch.events where task_id = ${taskId} and event_type = 'workspace.created'`,
      (r) => r.length === 1,
      { timeout: 30_000, what: () => `workspace.created (${first.output()})` },
    );
    const out = path.join(created!.payload.path, 'out.txt');
    await waitFor(() => (fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').length - 1 : 0), (n) => n >= 3 && n < ROWS, {
      timeout: 30_000,
      what: 'the worker to be writing',
    });
    first.child.kill('SIGKILL');
    await first.exited;
    const written = fs.readFileSync(out, 'utf8').split('\n').length - 1;
    expect(written).toBeLessThan(ROWS);
    const [s] = await db.sql<{ id: string; pid: number }[]>`select id, pid from dispatch.sessions where task_id = ${taskId} and role = 'worker'`;
    expect(processesWith(marker)).toContain(s!.pid); // the worker outlived its runner, still writing

    const second = startEntry('bin/main.ts', env, ['work']);
    await waitFor(
      () => db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${taskId}`,
      (r) => r[0]?.status === 'success',
      { timeout: 40_000, what: () => `the task to succeed after adoption (${second.output()})` },
    );

    // Every byte is in the worktree and on the branch; the change was journalled once.
    expect(fs.readFileSync(out, 'utf8')).toBe(rows);
    const branch = `dispatch/${taskId.slice(0, 8)}-1`;
    expect(repo.git('show', `${branch}:out.txt`) + '\n').toBe(rows);
    const events = await db.sql<{ event_type: string; payload: Record<string, unknown> }[]>`
      select event_type, payload from dispatch.events where task_id = ${taskId} order by seq`;
    const types = events.map((e) => e.event_type);
    expect(types.filter((x) => x === 'workspace.created')).toHaveLength(1);
    expect(types.filter((x) => x === 'session.adopted')).toHaveLength(1);
    const changed = events.filter((e) => e.event_type === 'workspace.changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]!.payload).toMatchObject({ branch, files: [{ path: 'out.txt', insertions: ROWS, deletions: 0 }], truncated: false });
    expect(changed[0]!.payload.patch).toContain(`+row ${ROWS}`);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(processesWith(marker)).toEqual([]);
  });
});
