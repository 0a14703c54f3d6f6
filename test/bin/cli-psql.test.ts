// `npm run dispatch -- psql`: psql on the database in use — the embedded cluster of a running
// `npm start` too — with the password kept off its command line; a clear word when psql is missing.
// And --help, made from the command table.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../bin/cli/commands.ts';
import { loadConfig } from '../../core/config.ts';
import { createSql } from '../../core/db/client.ts';
import { openDatabase, type Database } from '../../core/db/open.ts';
import { createTestDb } from '../helpers/db.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';
import { defer, tempDir } from '../helpers/teardown.ts';

async function dispatch(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const s = startEntry('bin/cli.ts', cleanEnv(env), args);
  const { code } = await s.exited;
  return { code, out: s.output().trim() };
}

/** A folder holding a stand-in `psql` that prints what it was started with and exits 3. */
function fakePsql(): string {
  const dir = tempDir('pd-fake-psql-');
  const file = path.join(dir, 'psql');
  fs.writeFileSync(file, `#!${process.execPath}\nconsole.log(JSON.stringify({ argv: process.argv.slice(2), password: process.env.PGPASSWORD ?? null }));\nprocess.exit(3);\n`);
  fs.chmodSync(file, 0o755);
  return dir;
}

describe('npm run dispatch -- psql, on the embedded Postgres of npm start', () => {
  let dataDir: string;
  let db: Database;
  beforeAll(async () => {
    dataDir = tempDir('pd-cli-psql-');
    fs.chmodSync(dataDir, 0o755); // the postgres user runs the server when we are root
    db = await openDatabase(loadConfig(cleanEnv({ DISPATCH_DATA_DIR: dataDir })), () => {}); // what npm start opens
    defer(() => db.close(), 'stop the embedded Postgres');
  }, 180_000); // initdb alone can take a minute on a loaded 2-core machine

  it('--print-url prints a URL that connects to that database', async () => {
    const r = await dispatch({ DISPATCH_DATA_DIR: dataDir }, 'psql', '--print-url');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/dispatch$/);
    const sql = createSql(r.out, { max: 1 });
    try {
      expect(await sql<{ db: string }[]>`select current_database() as db`).toEqual([{ db: 'dispatch' }]);
    } finally {
      await sql.end();
    }
  });

  it('starts psql on it with the arguments given, the password in its environment and not on its command line, and exits as psql did', async () => {
    const bin = fakePsql();
    const r = await dispatch({ DISPATCH_DATA_DIR: dataDir, PATH: `${bin}${path.delimiter}${process.env.PATH}` }, 'psql', '-c', 'select 1');
    expect(r.code).toBe(3);
    const seen = JSON.parse(r.out) as { argv: string[]; password: string | null };
    const password = fs.readFileSync(path.join(dataDir, 'pg.password'), 'utf8').trim();
    expect(seen).toEqual({ argv: [expect.stringMatching(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/dispatch$/), '-c', 'select 1'], password });
  });
});

describe('npm run dispatch -- psql, elsewhere', () => {
  it('--print-url prints DATABASE_URL when it is set', async () => {
    const { url } = await createTestDb();
    expect(await dispatch({ DATABASE_URL: url }, 'psql', '--print-url')).toEqual({ code: 0, out: url });
  });

  it('without psql on PATH, says how to install it and exits 1', async () => {
    const { url } = await createTestDb();
    const r = await dispatch({ DATABASE_URL: url, PATH: tempDir('pd-no-psql-') }, 'psql');
    expect(r.code).toBe(1);
    expect(r.out).toContain('dispatch: psql is not installed');
    expect(r.out).toContain('apt install postgresql-client');
  });
});

describe('npm run dispatch -- --help', () => {
  it('lists every command of the table and exits 0; an unknown command shows the same and exits 2', async () => {
    const help = await dispatch({}, '--help');
    expect(help.code).toBe(0);
    expect(help.out.split('\n')[0]).toBe('usage: npm run dispatch -- <command>');
    for (const c of COMMANDS) expect(help.out).toContain(`  ${[...c.words, ...(c.args ? [c.args] : [])].join(' ')}`);
    expect(help.out).toContain('psql --print-url');
    expect(await dispatch({}, 'no-such-command')).toEqual({ code: 2, out: help.out });
  });
});
