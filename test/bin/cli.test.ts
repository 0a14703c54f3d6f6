// The operator CLI drives the same SQL functions a psql user calls.
import { describe, expect, it } from 'vitest';
import { createTestDb } from '../helpers/db.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';

async function dispatch(url: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const s = startEntry('bin/cli.ts', cleanEnv({ DATABASE_URL: url }), args);
  const { code } = await s.exited;
  return { code, out: s.output().trim() };
}

describe('npm run dispatch', () => {
  it('adds a project and a task, lists it, and cancels it', async () => {
    const { url, sql } = await createTestDb();
    const project = await dispatch(url, 'project', 'add', 'cli project');
    expect(project.out).toMatch(/^[0-9a-f-]{36}$/);
    const task = await dispatch(url, 'task', 'add', '--project', 'cli project', 'Tidy the README');
    expect(task.code).toBe(0);
    const list = await dispatch(url, 'task', 'list');
    expect(list.out).toContain(`${task.out}  queued`);
    expect(list.out).toContain('Tidy the README');
    expect((await dispatch(url, 'task', 'cancel', task.out)).out).toBe('cancelled');
    const [t] = await sql<{ status: string }[]>`select status from dispatch.tasks where id = ${task.out}`;
    expect(t!.status).toBe('cancelled');
  });

  it('says what went wrong for an unknown project', async () => {
    const { url } = await createTestDb();
    const r = await dispatch(url, 'task', 'add', '--project', 'nope', 'x');
    expect(r.code).toBe(2);
    expect(r.out).toBe('dispatch: no project nope');
  });
});
