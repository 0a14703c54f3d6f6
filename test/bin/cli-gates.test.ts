// The operator CLI decides gates through the same SQL function as the API and psql.
import { describe, expect, it } from 'vitest';
import { readCall } from '../../core/gates/reading.ts';
import { createTestDb } from '../helpers/db.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';

async function dispatch(url: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  const s = startEntry('bin/cli.ts', cleanEnv({ DATABASE_URL: url, USER: 'ops' }), args);
  const { code } = await s.exited;
  return { code, out: s.output().trim() };
}

describe('npm run dispatch -- gate', () => {
  it('lists an open gate, approves it once (journalled as from the cli), and refuses a second decision', async () => {
    const { url, sql } = await createTestDb();
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('cli gates') as id`;
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Publish') as id`;
    const [s] = await sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, task_id, role, attempt) values (${p!.id}, ${t!.id}, 'worker', 1) returning id`;
    const reading = await readCall('Bash', { command: 'git push origin main' }, { cwd: '/tmp' });
    const [a] = await sql<{ a: { gate_id: string } }[]>`
      select dispatch.gate_check(${s!.id}, 'Bash', '{"command":"git push origin main"}'::jsonb, 'toolu_cli', '/tmp', ${JSON.stringify(reading)}::text::jsonb) as a`;
    const gate = a!.a.gate_id;

    const list = await dispatch(url, 'gate', 'list');
    expect(list.out).toContain(gate);
    expect(list.out).toContain('git_beyond_branch');
    expect(list.out).toContain('Bash: git push origin main');

    expect((await dispatch(url, 'gate', 'approve', gate, 'reviewed'))).toEqual({ code: 0, out: `${gate}  approved` });
    const again = await dispatch(url, 'gate', 'deny', gate);
    expect(again.code).toBe(2);
    expect(again.out).toContain('already decided');
    const [ev] = await sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where event_type = 'gate.decided' and payload->>'gate_id' = ${gate}`;
    expect(ev!.payload).toMatchObject({ decision: 'approved', via: 'cli', by: 'ops', reason: 'reviewed' });
    expect((await dispatch(url, 'gate', 'list')).out).not.toContain(gate);
    expect((await dispatch(url, 'gate', 'list', '--all')).out).toContain(gate);
  });

  it('tries a call against the rules with gate test, opening and journalling nothing', async () => {
    const { url, sql } = await createTestDb();
    await sql`select dispatch.create_project('tries')`;
    const [{ n: before } = { n: 0 }] = await sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
    expect(await dispatch(url, 'gate', 'test', 'tries', '--', 'git', 'branch', '-f', 'main', 'HEAD')).toEqual({
      code: 0, out: 'ask  git_beyond_branch  git.beyond-branch  a git operation beyond the working branch (git-ref other main)' });
    expect(await dispatch(url, 'gate', 'test', 'tries', '--', 'rm -rf dist')).toEqual({ code: 0, out: 'pass' });
    const edit = JSON.stringify({ file_path: 'package.json', old_string: '"dependencies": {', new_string: '"dependencies": {\n "left-pad": "^1.3.0",' });
    expect((await dispatch(url, 'gate', 'test', 'tries', '--tool', 'Edit', '--input', edit)).out).toMatch(/^ask {2}dependencies {2}dependencies\.manifest /);
    const bad = await dispatch(url, 'gate', 'test', 'tries', '--tool', 'Edit', '--input', '{nope');
    expect(bad.code).not.toBe(0);
    expect(bad.out).toContain('--input');
    const [{ n: after } = { n: 0 }] = await sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
    expect(after).toBe(before);
  });
});
