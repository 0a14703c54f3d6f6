// Needs you over HTTP: GET /api/needs-you and GET /api/state list the same items (one SQL
// definition), POST /api/needs-you/dismiss marks one seen, and bad or stale input is a 4xx.
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
let project: string;
let gateKey: string;

beforeAll(async () => {
  t = await startTestApp();
  const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('http needs you') as id`;
  project = p!.id;
  const [task] = await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${project}, 'push the branch') as id`;
  const [s] = await t.db.sql<{ id: string }[]>`insert into dispatch.sessions (project_id, task_id, role, attempt) values (${project}, ${task!.id}, 'worker', 1) returning id`;
  const [g] = await t.db.sql<{ id: string }[]>`
    select (dispatch.open_gate(${project}, ${task!.id}, ${s!.id}, 'tool', 'git_beyond_branch', null, 'Bash', '{"command":"git push"}'::jsonb, 'tu', 'leaves the branch')).id`;
  gateKey = `gate:${g!.id}`;
});

describe('GET /api/needs-you and GET /api/state', () => {
  it('list the same items, an open gate among them', async () => {
    const list = await (await t.call('GET', `/api/needs-you?project_id=${project}`)).json();
    expect(list.items.map((i: { key: string }) => i.key)).toEqual([gateKey]);
    expect(list.items[0]).toMatchObject({ kind: 'gate', title: 'approve Bash?', detail: 'git push — leaves the branch', project_id: project });
    const state = await (await t.call('GET', '/api/state')).json();
    expect(state.needs_you).toEqual(list.items);
  });

  it('refuses a project id that is not a uuid with 400', async () => {
    const res = await t.call('GET', '/api/needs-you?project_id=nope');
    expect(res.status).toBe(400);
  });
});

describe('POST /api/needs-you/dismiss', () => {
  it('refuses a body without a key (400) and a key not listed (404)', async () => {
    expect((await t.call('POST', '/api/needs-you/dismiss', {})).status).toBe(400);
    const res = await t.call('POST', '/api/needs-you/dismiss', { key: 'gate:gone' });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
  });

  it('marks an item seen: it leaves the list and the snapshot, journalled', async () => {
    const res = await t.call('POST', '/api/needs-you/dismiss', { key: gateKey });
    expect(res.status).toBe(200);
    const { event_id } = await res.json();
    expect((await (await t.call('GET', '/api/needs-you')).json()).items).toEqual([]);
    expect((await (await t.call('GET', '/api/state')).json()).needs_you).toEqual([]);
    const [row] = await t.db.sql<{ event_type: string }[]>`select event_type from dispatch.events where event_id = ${event_id}`;
    expect(row!.event_type).toBe('needs_you.dismissed');
  });
});
