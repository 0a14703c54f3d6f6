// A project's check (config.verify) is refused at config time when it cannot run: an empty
// command, one that is not an array of strings, or a program not on the PATH the runner will use
// — 400 naming the field, and nothing created. A good one is stored and can be edited.
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const projects = async (name: string) => (await t.db.sql`select id from dispatch.projects where name = ${name}`).length;

describe('a project check (config.verify)', () => {
  it('is refused with 400 naming config.verify.command when empty, not strings, or a program that does not exist', async () => {
    const cases: [string, unknown][] = [
      ['empty', []],
      ['not strings', ['npm', 3]],
      ['a string', 'npm test'],
      ['an empty argument', ['npm', '']],
      ['missing program', ['no-such-check-program-31', 'test']],
      ['missing absolute', ['/nowhere/bin/check']],
    ];
    for (const [label, command] of cases) {
      const res = await t.call('POST', '/api/projects', { name: `verify ${label}`, config: { verify: { command } } });
      expect(res.status, label).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.message, label).toContain('verify.command');
      expect(await projects(`verify ${label}`), label).toBe(0);
    }
    const bad = await t.call('POST', '/api/projects', { name: 'verify timeout', config: { verify: { command: ['sh'], timeout_s: 0 } } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('verify.timeout_s');
  });

  it('is stored when its program is on the PATH, and edited with PATCH', async () => {
    const res = await t.call('POST', '/api/projects', { name: 'verify ok', config: { verify: { command: ['node', '--test'], max_fix_attempts: 1 } } });
    expect(res.status).toBe(201);
    const p = (await res.json()) as { id: string; config: { verify: unknown } };
    expect(p.config.verify).toEqual({ command: ['node', '--test'], max_fix_attempts: 1 });
    const edited = await t.call('PATCH', `/api/projects/${p.id}`, { config: { verify: { command: ['sh', '-c', 'npm test'], timeout_s: 30 } } });
    expect(edited.status).toBe(200);
    const refused = await t.call('PATCH', `/api/projects/${p.id}`, { config: { verify: { command: ['no-such-check-program-31'] } } });
    expect(refused.status).toBe(400);
    const [row] = await t.db.sql<{ config: { verify: unknown } }[]>`select config from dispatch.projects where id = ${p.id}`;
    expect(row!.config.verify).toEqual({ command: ['sh', '-c', 'npm test'], timeout_s: 30 });
  });
});
