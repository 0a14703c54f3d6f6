// The migration runner applies numbered files once, in order, and refuses gaps.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../../core/db/migrate.ts';
import { createTestDb } from '../../helpers/db.ts';
import { tempDir } from '../../helpers/teardown.ts';

function dirWith(files: Record<string, string>): string {
  const dir = tempDir('pd-mig-');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('the migration runner', () => {
  it('refuses a gap in the numbering', () => {
    const dir = dirWith({ '0001_a.sql': 'select 1;', '0003_c.sql': 'select 1;' });
    expect(() => listMigrations(dir)).toThrow(/expected number 0002/);
  });

  it('refuses a badly named file', () => {
    const dir = dirWith({ '0001_a.sql': 'select 1;', 'two.sql': 'select 1;' });
    expect(() => listMigrations(dir)).toThrow(/badly named migration two\.sql/);
  });

  it('is a no-op on an up-to-date database and re-applies function files', async () => {
    const { sql } = await createTestDb();
    expect(await migrate(sql)).toEqual([]);
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from dispatch.migrations`;
    expect(row!.n).toBe(listMigrations().length);
  });

  it('rolls back a failing migration and applies nothing of it', async () => {
    const { sql } = await createTestDb();
    const real = listMigrations();
    const dir = dirWith(Object.fromEntries(real.map((m) => [m.name, fs.readFileSync(m.file, 'utf8')])));
    const next = String(real.length + 1).padStart(4, '0');
    fs.writeFileSync(path.join(dir, `${next}_broken.sql`), 'create table dispatch.half_done (id int); select 1/0;');
    await expect(migrate(sql, { migrationsDir: dir })).rejects.toThrow(/broken\.sql failed: division by zero/);
    const [row] = await sql<{ t: string | null }[]>`select to_regclass('dispatch.half_done')::text as t`;
    expect(row!.t).toBeNull();
  });

  it('refuses a database that has a migration this code does not know', async () => {
    const { sql } = await createTestDb();
    await sql`insert into dispatch.migrations (id, name) values (999, '0999_future.sql')`;
    await expect(migrate(sql)).rejects.toThrow(/newer than this checkout/);
  });
});
