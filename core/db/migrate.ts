// Applies sql/migrations (numbered, forward-only, one transaction each; gaps refused) and then
// re-applies every sql/functions file. Several processes may start at once: an advisory lock
// makes them take turns.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './client.ts';
import { LOCKS } from './locks.ts';

const SQL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../sql');
const MIGRATION_LOCK = LOCKS.migrations;

export interface MigrationFile {
  id: number;
  name: string;
  file: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Lists migrations in order; refuses a gap, a duplicate number or a badly named file. */
export function listMigrations(dir = path.join(SQL_DIR, 'migrations')): MigrationFile[] {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  const out: MigrationFile[] = [];
  for (const name of files) {
    const m = /^(\d{4})_[a-z0-9_]+\.sql$/.exec(name);
    if (!m) throw new MigrationError(`badly named migration ${name}: expected NNNN_snake_case.sql`);
    const id = Number(m[1]);
    const expected = out.length + 1;
    if (id !== expected) {
      throw new MigrationError(`migration ${name} breaks the sequence: expected number ${String(expected).padStart(4, '0')}`);
    }
    out.push({ id, name, file: path.join(dir, name) });
  }
  return out;
}

export interface MigrateOptions {
  migrationsDir?: string;
  functionsDir?: string;
  /** Runs between the schema migrations and the function files (graphile-worker's own schema). */
  beforeFunctions?: () => Promise<void>;
  log?: (line: string) => void;
}

/** Brings the database up to date. Returns the names of the migrations it applied. */
export async function migrate(sql: Sql, opts: MigrateOptions = {}): Promise<string[]> {
  const log = opts.log ?? (() => {});
  const migrations = listMigrations(opts.migrationsDir);
  const functionsDir = opts.functionsDir ?? path.join(SQL_DIR, 'functions');
  const applied: string[] = [];

  const conn = await sql.reserve();
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await conn`create schema if not exists dispatch`;
    await conn`
      create table if not exists dispatch.migrations (
        id integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`;
    const done = await conn<{ id: number; name: string }[]>`select id, name from dispatch.migrations order by id`;
    for (const row of done) {
      const known = migrations[row.id - 1];
      if (!known) {
        throw new MigrationError(
          `the database has migration ${row.id} (${row.name}) which this code does not know: it is newer than this checkout`,
        );
      }
      if (known.name !== row.name) {
        throw new MigrationError(`migration ${row.id} was applied as ${row.name} but is now named ${known.name}`);
      }
    }
    for (const m of migrations.slice(done.length)) {
      const text = fs.readFileSync(m.file, 'utf8');
      await conn.unsafe('begin');
      try {
        await conn.unsafe(text);
        await conn`insert into dispatch.migrations (id, name) values (${m.id}, ${m.name})`;
        await conn.unsafe('commit');
      } catch (err) {
        await conn.unsafe('rollback');
        throw new MigrationError(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
      log(`applied migration ${m.name}`);
    }

    if (opts.beforeFunctions) await opts.beforeFunctions();

    const fnFiles = fs.existsSync(functionsDir)
      ? fs.readdirSync(functionsDir).filter((f) => f.endsWith('.sql')).sort()
      : [];
    await conn.unsafe('begin');
    try {
      for (const f of fnFiles) await conn.unsafe(fs.readFileSync(path.join(functionsDir, f), 'utf8'));
      await conn.unsafe('commit');
    } catch (err) {
      await conn.unsafe('rollback');
      throw new MigrationError(`function file failed: ${(err as Error).message}`, { cause: err });
    }
  } finally {
    await conn`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    conn.release();
  }
  return applied;
}

/** Our migrations, graphile-worker's own schema, then our functions (they call graphile_worker.add_job). */
export async function migrateAll(sql: Sql, url: string, log: (line: string) => void = () => {}): Promise<string[]> {
  const { runMigrations, Logger } = await import('graphile-worker');
  const quiet = new Logger(() => (level: string, message: string) => {
    if (level === 'error' || level === 'warning') log(`graphile-worker: ${message}`);
  });
  return migrate(sql, {
    log,
    beforeFunctions: () => runMigrations({ connectionString: url, logger: quiet }),
  });
}
