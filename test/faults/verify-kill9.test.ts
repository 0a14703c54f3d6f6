// The check runs under the runner's supervision: kill -9 of the whole dispatch process while a
// task's check runs, start it again, and the check is run again (the orphan stopped) and counted
// once — never lost, never twice.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startScriptedModel, type Scenario } from '../../fixtures/scripted-model/server.ts';
import { claudeEnv } from '../helpers/claude-env.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, startServer } from '../helpers/process.ts';
import { makeRepo } from '../helpers/repo.ts';
import { defer, tempDir } from '../helpers/teardown.ts';

const scenario: Scenario = {
  name: 'verify-kill9',
  description: '',
  conversations: [
    { match: 'KILL-DONE', steps: [{ text: JSON.stringify({ goal: 'done file', current_state: 'written', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
    {
      match: 'Write the done file',
      steps: [
        { tool_use: { name: 'Write', input: { file_path: 'done.txt', content: 'done\n' } } },
        { text: 'KILL-DONE: written.', chunks: 1, delay_ms: 0 },
      ],
    },
  ],
};

describe('kill -9 of dispatch while a task’s check runs', () => {
  it('after a restart the check runs again and its verdict is journalled exactly once', async () => {
    const db = await createTestDb();
    const model = await startScriptedModel([scenario]);
    defer(() => model.close(), 'scripted model');
    const dataDir = tempDir('pd-verify-kill9-');
    const marker = randomUUID();
    const repo = makeRepo({ 'README.md': '# kill\n' });
    const env = cleanEnv({ DATABASE_URL: db.url, DISPATCH_DATA_DIR: dataDir, ...claudeEnv(model.url, dataDir, marker) });
    const first = await startServer(env, []);
    const port = Number(new URL(first.url).port);
    const config = { repo: repo.dir, allowed_tools: ['Write'], verify: { command: ['sh', '-c', 'sleep 3; test -f done.txt'] } };
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('verify kill', ${db.sql.json(config)}) as id`;
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Write the done file.') as id`;
    const taskId = t!.id;
    const count = async (type: string) =>
      (await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where task_id = ${taskId} and event_type = ${type}`)[0]!.n;

    await waitFor(() => count('verify.started'), (n) => n === 1, { timeout: 60_000, what: () => `the check to start (${first.output()})` });
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await count('verify.finished')).toBe(0);

    const second = await startServer(env, [], { port });
    const status = async () => (await db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${taskId}`)[0]!.status;
    await waitFor(status, (s) => s === 'success' || s === 'failed', { timeout: 90_000, what: () => `the task to end (${second.output()})` });
    expect(await status()).toBe('success');
    const started = await db.sql<{ payload: { rerun: boolean } }[]>`
      select payload from dispatch.events where task_id = ${taskId} and event_type = 'verify.started' order by seq`;
    expect(started.map((s) => s.payload.rerun)).toEqual([false, true]);
    const finished = await db.sql<{ payload: { passed: boolean; attempt: number } }[]>`
      select payload from dispatch.events where task_id = ${taskId} and event_type = 'verify.finished'`;
    expect(finished.map((f) => [f.payload.attempt, f.payload.passed])).toEqual([[1, true]]);
    expect(await count('handoff')).toBe(1);

    second.child.kill('SIGTERM');
    await second.exited;
    expect(processesWith(marker)).toEqual([]); // the orphaned check did not outlive it
  }, 180_000);
});
