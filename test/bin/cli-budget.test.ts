// The operator CLI shows and sets a project's budget through the same SQL functions psql uses.
import { describe, expect, it } from 'vitest';
import { createTestDb } from '../helpers/db.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';

async function dispatch(url: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const s = startEntry('bin/cli.ts', cleanEnv({ DATABASE_URL: url }), args);
  const { code } = await s.exited;
  return { code, out: s.output().trim() };
}

describe('npm run dispatch -- budget', () => {
  it('sets a daily and a per-task budget, shows what is left today, and removes one with none', async () => {
    const { url, sql } = await createTestDb();
    await sql`select dispatch.create_project('thrifty')`;
    const day = new Date().toISOString().slice(0, 10);
    expect((await dispatch(url, 'budget')).out).toBe(`per task none · per day none · spent today (${day}, UTC) $0.00 · left none · held tasks 0`);
    const set = await dispatch(url, 'budget', '--project', 'thrifty', '--per-day', '5', '--per-task', '0.5');
    expect(set.out).toBe(`per task $0.50 · per day $5.00 · spent today (${day}, UTC) $0.00 · left $5.00 · held tasks 0`);
    const [p] = await sql<{ config: { budget: unknown } }[]>`select config from dispatch.projects where name = 'thrifty'`;
    expect(p!.config.budget).toEqual({ per_day_usd: 5, per_task_usd: 0.5 });
    expect((await dispatch(url, 'budget', '--per-task', 'none')).out).toContain('per task none · per day $5.00');
  });
});
