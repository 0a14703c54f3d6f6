// The operator CLI makes, lists, pauses, resumes and deletes schedules, and submits a task that
// waits for another (--after), through the same functions as the HTTP API.
import { describe, expect, it } from 'vitest';
import { createTestDb } from '../helpers/db.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';

async function dispatch(url: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const s = startEntry('bin/cli.ts', cleanEnv({ DATABASE_URL: url }), args);
  const { code } = await s.exited;
  return { code, out: s.output().trim() };
}

describe('npm run dispatch -- schedule', () => {
  it('adds a schedule with its next run, lists it, pauses, resumes and deletes it; a bad expression is refused naming the field', async () => {
    const { url, sql } = await createTestDb();
    await sql`select dispatch.create_project('nightly')`;
    const add = await dispatch(url, 'schedule', 'add', '--cron', '0 2 * * *', '--tz', 'Europe/Paris', 'Audit the dependencies.');
    expect(add.code).toBe(0);
    const id = add.out.split(/\s+/)[0]!;
    expect(add.out).toMatch(/0 2 \* \* \*\s+Europe\/Paris\s+next \S+Z {2}Audit the dependencies\.$/);
    expect((await dispatch(url, 'schedule', 'list')).out).toContain(id);
    expect((await dispatch(url, 'schedule', 'pause', id)).out).toContain('paused');
    expect((await dispatch(url, 'schedule', 'resume', id)).out).toContain('next ');
    expect((await dispatch(url, 'schedule', 'delete', id)).out).toBe(`deleted ${id}`);
    expect(await sql`select 1 from dispatch.schedules`).toHaveLength(0);

    const bad = await dispatch(url, 'schedule', 'add', '--cron', '0 2 * 13 *', 'never');
    expect(bad.code).not.toBe(0);
    expect(bad.out).toContain('cron field 4 (month) "13" at column 7');
  });
});

describe('npm run dispatch -- task add --after', () => {
  it('submits a task that waits for another, and refuses an unknown one', async () => {
    const { url, sql } = await createTestDb();
    await sql`select dispatch.create_project('chain')`;
    const a = (await dispatch(url, 'task', 'add', 'Write the parser')).out;
    const b = await dispatch(url, 'task', 'add', 'Use the parser', '--after', a);
    expect(b.code).toBe(0);
    const [t] = await sql<{ status_reason: string }[]>`select status_reason from dispatch.tasks where id = ${b.out}`;
    expect(t!.status_reason).toBe('waits for: Write the parser — queued');
    const ghost = await dispatch(url, 'task', 'add', 'orphan', '--after', '00000000-0000-4000-8000-000000000009');
    expect(ghost.code).not.toBe(0);
    expect(ghost.out).toContain('depends_on names no such task: 00000000-0000-4000-8000-000000000009');
  });
});
