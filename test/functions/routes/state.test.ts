// GET /api/state keeps its last answer while nothing it shows has changed: what a client reads is
// still the state at the seq it names, whoever wrote what since, and however it is encoded.
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { State } from '../../../core/contracts/state.ts';
import { waitFor } from '../../helpers/db.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('state project') as id`;
  projectId = p!.id;
});

const state = async (headers: Record<string, string> = {}) => (await (await t.call('GET', '/api/state', undefined, headers)).json()) as State;
const head = async () => (await t.db.sql<{ s: number }[]>`select max(seq) as s from dispatch.events`)[0]!.s;

describe('GET /api/state', () => {
  it('shows a task journalled from psql in the very next read, with the new seq', async () => {
    const before = await state();
    await state(); // a second read at the same head (the kept answer)
    const [task] = await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${projectId}, 'written from psql') as id`;
    const after = await state();
    expect(after.seq).toBe(await head());
    expect(after.seq).toBeGreaterThan(before.seq);
    expect(after.tasks.map((x) => x.id)).toContain(task!.id);
  });

  it('names the new head in the very next read after a journal row that changes no table it shows', async () => {
    const before = await state();
    await state();
    await t.db.sql`insert into dispatch.events (project_id, event_type, payload) values (${projectId}, 'claude.stream_event', '{}')`;
    const after = await state();
    expect(after.seq).toBe(await head());
    expect(after.seq).toBeGreaterThan(before.seq);
  });

  it('shows a change that journals nothing (a budget set from psql) once its notification arrives', async () => {
    await state();
    await t.db.sql`select dispatch.set_budget(${projectId}, 3, null)`;
    const s = await waitFor(state, (x) => !!x.projects.find((p) => p.id === projectId)?.config.budget, { what: 'the budget in /api/state' });
    expect(s.projects.find((p) => p.id === projectId)!.config).toMatchObject({ budget: { per_task_usd: 3 } });
  });

  it('shows a budget set through this server in the very next read', async () => {
    await state();
    const res = await t.call('PUT', `/api/projects/${projectId}/budget`, { per_task_usd: 5 });
    expect(res.status).toBeLessThan(300);
    const s = await state();
    expect(s.projects.find((p) => p.id === projectId)!.config).toMatchObject({ budget: { per_task_usd: 5 } });
  });

  it('answers the same head twice with a fresh generated_at and the running task a little older', async () => {
    const [task] = await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${projectId}, 'runs a while') as id`;
    await t.db.sql`select dispatch.set_task_status(${task!.id}, 'running')`;
    const first = await state();
    await new Promise((r) => setTimeout(r, 30)); // the clock must move for the durations to
    const second = await state();
    expect(second.seq).toBe(first.seq);
    expect(Date.parse(second.generated_at)).toBeGreaterThan(Date.parse(first.generated_at));
    const d1 = first.tasks.find((x) => x.id === task!.id)!.duration_ms!;
    const d2 = second.tasks.find((x) => x.id === task!.id)!.duration_ms!;
    expect(d2).toBeGreaterThan(d1);
    // duration_ms is the task's age when the answer was generated
    const started = Date.parse(second.tasks.find((x) => x.id === task!.id)!.started_at!);
    expect(Math.abs(Date.parse(second.generated_at) - started - d2)).toBeLessThanOrEqual(1);
  });

  it('sends the same document gzipped to a client that takes gzip, and plain to one that does not', async () => {
    const gz = await t.app.request('/api/state', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.headers.get('content-type')).toMatch(/^application\/json/);
    const fromGzip = JSON.parse(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()) as State;
    const plain = await t.app.request('/api/state', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const fromPlain = (await plain.json()) as State;
    expect({ ...fromGzip, generated_at: '', tasks: [], sessions: [] }).toEqual({ ...fromPlain, generated_at: '', tasks: [], sessions: [] });
    expect(fromGzip.tasks.map((x) => x.id)).toEqual(fromPlain.tasks.map((x) => x.id));
  });
});
