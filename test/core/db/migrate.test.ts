// The migration runner applies numbered files once, in order, and refuses gaps.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../../../core/db/migrate.ts';
import { createTestDb, waitFor } from '../../helpers/db.ts';
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

  it('refuses a migration renamed after it was applied, naming both names', async () => {
    const { sql } = await createTestDb();
    const real = listMigrations();
    const first = real[0]!;
    const dir = dirWith(Object.fromEntries(real.map((m) => [m.name === first.name ? first.name.replace(/^(\d{4})_.*$/, '$1_renamed.sql') : m.name, fs.readFileSync(m.file, 'utf8')])));
    await expect(migrate(sql, { migrationsDir: dir })).rejects.toThrow(
      new RegExp(`migration ${first.id} was applied as ${first.name.replace('.', '\\.')} but is now named \\d{4}_renamed\\.sql`),
    );
  });

  it('re-applies every function file at each start: a function changed in the database is put back', async () => {
    const { sql } = await createTestDb();
    const source = async () => (await sql<{ src: string }[]>`select prosrc as src from pg_proc where proname = 'project_state'`)[0]!.src;
    const before = await source();
    await sql.unsafe(`create or replace function dispatch.project_state(project_id uuid) returns jsonb language sql as $$ select '{"tampered": true}'::jsonb $$`);
    expect((await sql<{ s: unknown }[]>`select dispatch.project_state(gen_random_uuid()) as s`)[0]!.s).toEqual({ tampered: true });
    expect(await migrate(sql)).toEqual([]); // no migration to apply…
    // …yet the function files ran again: the tampered function is the repository's again.
    expect(await source()).toBe(before);
    await expect(sql`select dispatch.project_state(gen_random_uuid())`).rejects.toThrow(/no project/);
  });

  it('puts back a trigger dropped or disabled by hand, and leaves an unchanged one as it is', async () => {
    const { sql } = await createTestDb();
    const xmin = async (name: string) =>
      (await sql<{ x: string; on: string }[]>`select xmin::text as x, tgenabled::text as on from pg_trigger where tgname = ${name}`)[0];
    const untouched = await xmin('events_assign_seq');
    await sql`drop trigger events_push_gate on dispatch.events`;
    await sql`alter table dispatch.gate_rules disable trigger gate_rules_check`;
    expect(await migrate(sql)).toEqual([]);
    expect(await xmin('events_push_gate')).toBeDefined();
    expect((await xmin('gate_rules_check'))!.on).toBe('O');
    await expect(sql`insert into dispatch.gate_rules (category, tool, decision, reason) values ('privilege', '(', 'ask', 'bad regex')`)
      .rejects.toThrow(/parentheses/);
    // Not re-created: its row in pg_trigger is the one written before this start.
    expect(await xmin('events_assign_seq')).toEqual(untouched);
  });

  it('does not wait for an open write to the journal: an unchanged trigger takes no lock on its table', async () => {
    const { sql } = await createTestDb();
    const writer = await sql.reserve();
    try {
      await writer.unsafe('begin');
      await writer.unsafe('lock table dispatch.events in row exclusive mode'); // what an insert holds to its commit
      let done = false;
      const run = migrate(sql).finally(() => { done = true; });
      run.catch(() => {}); // awaited below; a failure is reported there
      const waiting = await waitFor(
        async () => done || (await sql<{ n: number }[]>`
          select count(*)::int as n from pg_locks where not granted and relation = 'dispatch.events'::regclass`)[0]!.n > 0,
        Boolean,
        { what: 'migrate to finish or to wait for a lock on dispatch.events' },
      ).then(() => !done);
      expect(waiting).toBe(false);
      await run;
    } finally {
      await writer.unsafe('rollback').catch(() => {});
      writer.release();
    }
  });

  it('refuses a database that has a migration this code does not know', async () => {
    const { sql } = await createTestDb();
    await sql`insert into dispatch.migrations (id, name) values (999, '0999_future.sql')`;
    await expect(migrate(sql)).rejects.toThrow(/newer than this checkout/);
  });
});
