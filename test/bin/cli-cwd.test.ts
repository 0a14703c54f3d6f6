// `npm run dispatch -- project add NAME --cwd DIR` and `project set PROJECT --cwd DIR`: a working
// directory that is not a writable directory is refused naming config.cwd, and nothing is created.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDb } from '../helpers/db.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';

async function dispatch(url: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const s = startEntry('bin/cli.ts', cleanEnv({ DATABASE_URL: url }), args);
  const { code } = await s.exited;
  return { code, out: s.output().trim() };
}

describe('npm run dispatch -- project … --cwd', () => {
  it('refuses a working directory that does not exist or is a file, at add and at set, creating nothing', async () => {
    const { url, sql } = await createTestDb();
    const dir = tempDir('pd-cli-cwd-');
    const missing = path.join(dir, 'typo', 'app');
    const added = await dispatch(url, 'project', 'add', 'cli cwd', '--cwd', missing);
    expect(added).toEqual({ code: 2, out: `dispatch: config.cwd: the working directory ${missing} does not exist` });
    expect(await sql`select 1 from dispatch.projects where name = 'cli cwd'`).toHaveLength(0);
    expect(fs.existsSync(path.join(dir, 'typo'))).toBe(false);

    const ok = await dispatch(url, 'project', 'add', 'cli cwd', '--cwd', dir);
    expect(ok.code).toBe(0);
    const [p] = await sql<{ id: string; config: unknown }[]>`select id, config from dispatch.projects where name = 'cli cwd'`;
    expect(p).toEqual({ id: ok.out, config: { cwd: dir } });

    const file = path.join(dir, 'notes.txt');
    fs.writeFileSync(file, 'x');
    const set = await dispatch(url, 'project', 'set', 'cli cwd', '--cwd', file);
    expect(set).toEqual({ code: 2, out: `dispatch: config.cwd: the working directory ${file} is not a directory` });
    const inner = path.join(dir, 'inner');
    fs.mkdirSync(inner);
    expect((await dispatch(url, 'project', 'set', 'cli cwd', '--cwd', inner)).code).toBe(0);
    const [after] = await sql<{ config: unknown }[]>`select config from dispatch.projects where id = ${p!.id}`;
    expect(after!.config).toEqual({ cwd: inner });
  });
});
