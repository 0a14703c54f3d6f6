// A project's working directory is the person's own folder: POST and PATCH /api/projects refuse one
// that does not exist, is not a directory, is not writable or is not an absolute path (400
// invalid_cwd naming config.cwd), and a refused request creates nothing — no project, no folder.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { tempDir } from '../../helpers/teardown.ts';

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  dir = tempDir('pd-cwd-');
});

/** A directory this process cannot write to: a mode 555 folder, or (root ignores modes) /proc/sys. */
function unwritable(): string {
  if (process.getuid?.() === 0) return '/proc/sys';
  const d = path.join(dir, 'read-only');
  fs.mkdirSync(d, { mode: 0o555 });
  return d;
}

const projects = async (name: string) => (await t.db.sql`select id from dispatch.projects where name = ${name}`).length;

describe('a project working directory (config.cwd)', () => {
  it('is refused at creation with 400 invalid_cwd naming the field when it is not a writable directory, and nothing is created', async () => {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    const missing = path.join(dir, 'typo', 'app');
    const cases: [string, string][] = [
      [missing, 'missing'],
      [file, 'not_a_directory'],
      [unwritable(), 'not_writable'],
      ['relative/app', 'relative'],
    ];
    for (const [cwd, problem] of cases) {
      const res = await t.call('POST', '/api/projects', { name: `cwd ${problem}`, config: { cwd } });
      expect(res.status, cwd).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
      expect(body.error).toMatchObject({ code: 'invalid_cwd', details: { field: 'config.cwd', problem } });
      expect(body.error.message).toContain('config.cwd');
      expect(body.error.message).toContain(cwd);
      expect(await projects(`cwd ${problem}`)).toBe(0);
    }
    expect(fs.existsSync(path.join(dir, 'typo'))).toBe(false);
    const journalled = await t.db.sql`select 1 from dispatch.events where event_type = 'project.created' and payload ->> 'name' like 'cwd %'`;
    expect(journalled).toHaveLength(0);
  });

  it('is accepted, as given, when it is an existing writable directory', async () => {
    const res = await t.call('POST', '/api/projects', { name: 'cwd ok', config: { cwd: dir } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { config: unknown }).config).toEqual({ cwd: dir });
  });

  it('is refused the same way at update, the stored config left as it was', async () => {
    const created = await t.call('POST', '/api/projects', { name: 'cwd edit', config: { cwd: dir, model: 'sonnet' } });
    const { id } = (await created.json()) as { id: string };
    const missing = path.join(dir, 'moved-away');
    const res = await t.call('PATCH', `/api/projects/${id}`, { config: { cwd: missing } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_cwd', details: { field: 'config.cwd', problem: 'missing' } });
    const [p] = await t.db.sql<{ config: unknown }[]>`select config from dispatch.projects where id = ${id}`;
    expect(p!.config).toEqual({ cwd: dir, model: 'sonnet' });
    expect(fs.existsSync(missing)).toBe(false);
    const updates = await t.db.sql`select 1 from dispatch.events where project_id = ${id} and event_type = 'project.updated'`;
    expect(updates).toHaveLength(0);
  });
});
