// One current body per SQL function and trigger: whatever the migrations defined once, what runs
// now is written in sql/functions (re-applied on every start), and the database agrees with it.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.ts';
import { definitions, functionBody, latestDefinitions, SQL_ROOT, sqlFiles, type SqlFile } from '../helpers/sql-files.ts';

const files = sqlFiles();
const latest = latestDefinitions(files);
const functionFiles = files.filter((f) => f.kind === 'functions');

/** Every `select dispatch.define_trigger('table', 'name', $$definition$$)` of the function files. */
function triggerCalls(): { file: SqlFile; table: string; name: string; definition: string }[] {
  const re = /dispatch\.define_trigger\(\s*'([\w.]+)'\s*,\s*'(\w+)'\s*,\s*(\$\w*\$)([\s\S]*?)\3\s*\)/g;
  return functionFiles.flatMap((file) =>
    [...file.code.matchAll(re)].map((m) => ({ file, table: m[1]!, name: m[2]!, definition: file.text.slice(m.index + m[0].indexOf(m[3]!) + m[3]!.length, m.index + m[0].lastIndexOf(m[3]!)) })),
  );
}

describe('the SQL files', () => {
  it('define every function and trigger that still exists last in sql/functions, never only in a migration', () => {
    const onlyInMigrations = [...latest.entries()].filter(([, d]) => d.file.kind === 'migration').map(([key, d]) => `${key} (${d.file.path})`);
    expect(onlyInMigrations).toEqual([]);
  });

  it('define each trigger through dispatch.define_trigger, so a start re-runs only what changed', () => {
    const defined = new Set(triggerCalls().map((c) => `${c.table}.${c.name}`));
    const bare = [...latest.values()].filter((d) => d.what === 'trigger' && !defined.has(d.key)).map((d) => `${d.key} (${d.file.path})`);
    expect(bare).toEqual([]);
    expect(defined.size).toBeGreaterThan(0);
  });
});

describe('a migrated database', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb();
  });

  it('runs exactly the bodies written in sql/functions', async () => {
    const procs = await db.sql<{ name: string; args: string; src: string }[]>`
      select p.proname as name, pg_get_function_identity_arguments(p.oid) as args, p.prosrc as src
        from pg_proc p where p.pronamespace = 'dispatch'::regnamespace order by 1, 2`;
    expect(procs.length).toBeGreaterThan(0);
    // By name: an overloaded function's bodies are all in its file(s).
    const bodies = (name: string) => definitions(functionFiles)
      .filter((d) => d.what === 'function' && d.act === 'define' && d.key === `dispatch.${name}`)
      .map((d) => functionBody(d.file, d.index));
    const differing = procs.filter((p) => !bodies(p.name).includes(p.src)).map((p) => `dispatch.${p.name}(${p.args})`);
    expect(differing).toEqual([]);
  });

  it('has exactly the triggers written in sql/functions, each as its file defines it', async () => {
    const calls = triggerCalls();
    const triggers = await db.sql<{ table: string; name: string; comment: string | null }[]>`
      select t.tgrelid::regclass::text as table, t.tgname as name, obj_description(t.oid, 'pg_trigger') as comment
        from pg_trigger t join pg_class c on c.oid = t.tgrelid
       where c.relnamespace = 'dispatch'::regnamespace and not t.tgisinternal order by 1, 2`;
    expect(triggers.map((t) => `${t.table}.${t.name}`).sort()).toEqual(calls.map((c) => `${c.table}.${c.name}`).sort());
    const unlike: string[] = [];
    for (const c of calls) {
      const [row] = await db.sql<{ same: boolean }[]>`
        select obj_description(t.oid, 'pg_trigger') = dispatch.trigger_mark(${c.definition}, t.oid) as same
          from pg_trigger t where t.tgrelid = ${c.table}::regclass and t.tgname = ${c.name}`;
      if (!row?.same) unlike.push(`${c.table}.${c.name} (${c.file.path})`);
    }
    expect(unlike).toEqual([]);
  });

  it('fires the triggers of an insert into dispatch.events in the order 05_journal_triggers.sql writes down', async () => {
    const header = fs.readFileSync(path.join(SQL_ROOT, 'functions/05_journal_triggers.sql'), 'utf8').split('\n\n')[0]!;
    const written = [...header.matchAll(/^--\s+(?:(?:before|after) (?:the statement|each row)\s+)?(events_\w+)\s/gm)].map((m) => m[1]);
    // tgtype bits: 1 row, 2 before, 4 insert.
    const fired = await db.sql<{ name: string }[]>`
      select tgname as name from pg_trigger
       where tgrelid = 'dispatch.events'::regclass and not tgisinternal and tgtype & 4 <> 0
       order by case when tgtype & 2 <> 0 then 0 else 1 end, case when (tgtype & 2 <> 0) = (tgtype & 1 <> 0) then 1 else 0 end, tgname`;
    expect(written).toEqual(fired.map((r) => r.name));
  });
});
