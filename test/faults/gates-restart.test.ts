// A gated task holds nothing but rows: kill -9 of the whole dispatch process (server and runner in
// one) while a task is gated, start it again, decide from psql, and the task resumes and ends.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedModel, type Scenario } from '../../fixtures/scripted-model/server.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, startServer } from '../helpers/process.ts';
import { defer, tempDir } from '../helpers/teardown.ts';
import { randomUUID } from 'node:crypto';
import { claudeEnv } from '../helpers/claude-env.ts';

const scenario: Scenario = {
  name: 'gated-restart',
  description: '',
  conversations: [
    { match: 'SECRET-DONE', steps: [{ text: JSON.stringify({ goal: 'write the env file', current_state: 'written', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
    {
      match: 'Write the env file',
      steps: [
        { text: 'Writing it.', tool_use: { name: 'Bash', input: { command: 'echo API_KEY=placeholder > .env', description: 'write .env' } } },
        { text: 'SECRET-DONE: the env file is written.', chunks: 1, delay_ms: 0 },
      ],
    },
  ],
};

/** Live processes carrying the marker that are the claude CLI (a worker), by pid. */
function claudeProcesses(marker: string): number[] {
  return processesWith(marker).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('claude');
    } catch {
      return false;
    }
  });
}


describe('a gated task and a dispatch killed with SIGKILL', () => {
  it('stays gated across the kill and a restart; decided from psql, it resumes and ends success', async () => {
    const db = await createTestDb();
    const model = await startScriptedModel([scenario]);
    defer(() => model.close(), 'scripted model');
    const dataDir = tempDir('pd-gated-');
    const marker = randomUUID();
    const env = cleanEnv({ DATABASE_URL: db.url, DISPATCH_DATA_DIR: dataDir, ...claudeEnv(model.url, dataDir, marker) });
    // serve + work (as `npm start`) on a port the system picks; the restart comes back on it.
    const first = await startServer(env, []);
    const port = Number(new URL(first.url).port);
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('gated restart', '{"allowed_tools":["Bash"]}') as id`;
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Write the env file with a placeholder key.') as id`;
    const taskId = t!.id;
    const status = async () => (await db.sql<{ status: string; status_reason: string }[]>`select status, status_reason from dispatch.tasks where id = ${taskId}`)[0]!;
    const parked = await waitFor(status, (s) => s.status === 'gated', { timeout: 60_000, what: () => `the task to be gated (${first.output()})` });
    expect(parked.status_reason).toContain('secrets');
    expect(claudeProcesses(marker)).toEqual([]); // no worker left: only dispatch itself runs

    first.child.kill('SIGKILL');
    await first.exited;
    expect((await status()).status).toBe('gated');
    const cwd = path.join(dataDir, 'work', p!.id);
    expect(fs.existsSync(path.join(cwd, '.env'))).toBe(false);

    const second = await startServer(env, [], { port });
    expect((await status()).status).toBe('gated');

    // Decided from psql, the way an operator at a terminal would.
    const [g] = await db.sql<{ id: string }[]>`select id from dispatch.gates where task_id = ${taskId} and status = 'open'`;
    const out = execFileSync('psql', [db.url, '-At', '-c', `select dispatch.decide_gate('${g!.id}', 'approve', 'placeholder only')->>'status'`], { encoding: 'utf8' });
    expect(out.trim()).toBe('approved');

    const done = await waitFor(status, (s) => s.status === 'success', { timeout: 60_000, what: () => `the task to end (${second.output()})` });
    expect(done.status).toBe('success');
    expect(fs.readFileSync(path.join(cwd, '.env'), 'utf8')).toBe('API_KEY=placeholder\n');
    const [h] = await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where task_id = ${taskId} and event_type = 'handoff'`;
    expect(h!.n).toBe(1);

    second.child.kill('SIGTERM');
    await second.exited;
    expect(processesWith(marker)).toEqual([]);
  });
});
