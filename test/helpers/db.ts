// One fresh database per test file, cloned from the migrated template (graphile-worker's habit).
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createSql, type Sql } from '../../core/db/client.ts';
import { withDatabase } from '../setup/postgres.ts';
import { defer } from './teardown.ts';

export interface TestDb {
  url: string;
  sql: Sql;
}

export async function createTestDb(): Promise<TestDb> {
  const adminUrl = inject('pgAdminUrl');
  const template = inject('pgTemplate');
  // pd_t_<run>_…: the global teardown (test/setup/postgres.ts) fails the run if one is left.
  const name = `pd_t_${inject('pdRun')}_${randomBytes(5).toString('hex')}`;
  const admin = createSql(adminUrl, { max: 1 });
  try {
    await admin.unsafe(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const sql = createSql(url, { max: 10 });
  defer(async () => {
    await sql.end({ timeout: 5 });
    const a = createSql(adminUrl, { max: 1 });
    try {
      await a.unsafe(`drop database if exists ${name} with (force)`);
    } finally {
      await a.end();
    }
  }, `drop database ${name}`);
  return { url, sql };
}

/** Waits for a condition instead of sleeping; fails with the last value seen. */
export async function waitFor<T>(
  fn: () => Promise<T> | T,
  ok: (v: T) => boolean = Boolean,
  { timeout = 20_000, interval = 25, what = 'condition' as string | (() => string) } = {},
): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: T;
  for (;;) {
    last = await fn();
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}
