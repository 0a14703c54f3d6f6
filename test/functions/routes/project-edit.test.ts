// PATCH /api/projects/:id: a project's name and config change from the client, validated, and the
// change is journalled (project.updated) so every open client follows it.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
let id: string;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.call('POST', '/api/projects', { name: 'editable', config: { allowed_tools: ['Bash'] } });
  id = ((await res.json()) as { id: string }).id;
  await t.call('POST', '/api/projects', { name: 'taken' });
});

describe('editing a project', () => {
  it('replaces the config and renames, answering the project as it is now, and journals project.updated', async () => {
    const res = await t.call('PATCH', `/api/projects/${id}`, { name: 'edited', config: { allowed_tools: [], mode: 'autonomous', model: 'sonnet' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id, name: 'edited', config: { allowed_tools: [], mode: 'autonomous', model: 'sonnet' } });
    const rows = await t.db.sql<{ payload: { name: string; config: unknown } }[]>`
      select payload from dispatch.events where project_id = ${id} and event_type = 'project.updated'`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.payload).toEqual({ name: 'edited', config: { allowed_tools: [], mode: 'autonomous', model: 'sonnet' } });
  });

  it('keeps what is not sent: a name alone leaves the config', async () => {
    await t.call('PATCH', `/api/projects/${id}`, { name: 'renamed' });
    const [p] = await t.db.sql<{ name: string; config: { model?: string } }[]>`select name, config from dispatch.projects where id = ${id}`;
    expect(p).toMatchObject({ name: 'renamed', config: { model: 'sonnet' } });
  });

  it('refuses bad input with 4xx: an empty body, an unknown config key, a bad mode, a taken name, an unknown project, a repository that is not one', async () => {
    const cases: [string, unknown, number][] = [
      [id, {}, 400],
      [id, { config: { colour: 'red' } }, 400],
      [id, { config: { mode: 'wild' } }, 400],
      [id, { name: 'Taken' }, 409],
      [randomUUID(), { name: 'ghost' }, 404],
      [id, { config: { repo: '/nonexistent/repository' } }, 400],
    ];
    for (const [pid, body, status] of cases) {
      const res = await t.call('PATCH', `/api/projects/${pid}`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(((await res.json()) as { error: { code: string } }).error.code).toEqual(expect.any(String));
    }
  });
});
