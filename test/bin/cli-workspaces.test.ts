// The operator CLI decides about a task's change through the same SQL functions (merge_task,
// discard_task) a psql user calls, and shows the change.
import { describe, expect, it } from 'vitest';
import { createTestDb } from '../helpers/db.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';

async function dispatch(url: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const s = startEntry('bin/cli.ts', cleanEnv({ DATABASE_URL: url }), args);
  const { code } = await s.exited;
  return { code, out: s.output().trim() };
}

describe('npm run dispatch -- task merge|discard|continue|diff', () => {
  it('queues a merge, refuses a second decision, and shows the change', async () => {
    const { url, sql } = await createTestDb();
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('cli ws', '{"repo":"/nowhere"}') as id`;
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Edit the notes') as id`;
    const task = t!.id;
    await sql`select dispatch.workspace_created(${task}, 1, '/nowhere', 'main', 'dispatch/x-1', '/data/wt/x-1', 'main', ${'a'.repeat(40)})`;
    const change = { files: [{ path: 'notes.txt', insertions: 1, deletions: 0 }], patch: '+hello\n', truncated: false, patch_bytes: 7 };
    await sql`select dispatch.workspace_changed(${task}, 1, ${'b'.repeat(40)}, ${JSON.stringify(change)}::text::jsonb)`;

    const diff = await dispatch(url, 'task', 'diff', task);
    expect(diff.out).toContain('dispatch/x-1 → main  (ready)');
    expect(diff.out).toContain('+1 -0  notes.txt');
    expect(diff.out).toContain('+hello');

    const merge = await dispatch(url, 'task', 'merge', task);
    expect(merge).toMatchObject({ code: 0, out: expect.stringMatching(/^merge queued \(job \d+\)$/) });
    const again = await dispatch(url, 'task', 'discard', task);
    expect(again.code).toBe(1);
    expect(again.out).toContain('discard refused (busy)');
    const [job] = await sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'merge_workspace'`;
    expect(job!.n).toBe(1);
    const types = await sql<{ event_type: string }[]>`select event_type from dispatch.events where task_id = ${task} and event_type like 'workspace.%' order by seq`;
    expect(types.map((r) => r.event_type)).toEqual(['workspace.created', 'workspace.changed', 'workspace.merge_requested']);
  });
});
