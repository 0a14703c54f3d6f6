// The REST routes through app.request(): what a client sees for good and bad input.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  const res = await t.call('POST', '/api/projects', { name: 'api project' });
  projectId = ((await res.json()) as { id: string }).id;
});

describe('projects', () => {
  it('creates a project with 201 and its id', async () => {
    const res = await t.call('POST', '/api/projects', { name: 'second', config: { allowed_tools: ['Bash'] } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: expect.any(String), name: 'second', config: { allowed_tools: ['Bash'] } });
  });

  it('refuses a duplicate name with 409', async () => {
    const res = await t.call('POST', '/api/projects', { name: 'API Project' });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: { code: 'conflict', message: 'a project named API Project exists' } });
  });

  it('lists projects wrapped', async () => {
    const body = (await (await t.call('GET', '/api/projects')).json()) as { projects: { name: string }[] };
    expect(body.projects.map((p) => p.name)).toContain('api project');
  });
});

describe('tasks', () => {
  it('submits a task: 201, queued, journalled and enqueued in one go', async () => {
    const res = await t.call('POST', '/api/tasks', { project_id: projectId, brief: 'Write the changelog', approach: 'from git log' });
    expect(res.status).toBe(201);
    const task = (await res.json()) as Record<string, unknown>;
    expect(task).toMatchObject({
      id: expect.any(String), project_id: projectId, parent_id: null, status: 'queued', brief: 'Write the changelog',
      approach: 'from git log', attempt: 1, started_at: null, ended_at: null,
    });
    expect(task.created_at).toEqual(expect.any(String));
    const [job] = await t.db.sql`select task_identifier from graphile_worker.jobs where key = ${`spawn_worker:${task.id}`}`;
    expect(job).toEqual({ task_identifier: 'spawn_worker' });
    // Journalled: one task.submitted row carrying the brief; in one go: the task row, its journal row
    // and its job were written by one transaction (same xmin).
    const events = await t.db.sql<{ event_type: string; payload: Record<string, unknown>; tx: string }[]>`
      select event_type, payload, xmin::text as tx from dispatch.events where task_id = ${task.id as string} order by seq`;
    expect(events.map((e) => [e.event_type, e.payload])).toEqual([
      ['task.submitted', { brief: 'Write the changelog', approach: 'from git log', attempt: 1 }],
    ]);
    const [{ tx: taskTx } = { tx: '' }] = await t.db.sql<{ tx: string }[]>`select xmin::text as tx from dispatch.tasks where id = ${task.id as string}`;
    const [{ tx: jobTx } = { tx: '' }] = await t.db.sql<{ tx: string }[]>`
      select xmin::text as tx from graphile_worker._private_jobs where key = ${`spawn_worker:${task.id}`}`;
    expect([events[0]!.tx, jobTx]).toEqual([taskTx, taskTx]);
    const got = (await (await t.call('GET', `/api/tasks/${task.id}`)).json()) as Record<string, unknown>;
    expect(got).toMatchObject({ id: task.id, sessions: [] });
  });

  it('cancels a queued task', async () => {
    const task = (await (await t.call('POST', '/api/tasks', { project_id: projectId, brief: 'x' })).json()) as { id: string };
    const res = await t.call('POST', `/api/tasks/${task.id}/cancel`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: task.id, status: 'cancelled' });
  });

  it('retries a task that ended waiting for the person as a new attempt; refuses one running, finished or gated with 409', async () => {
    const task = (await (await t.call('POST', '/api/tasks', { project_id: projectId, brief: 'retry me' })).json()) as { id: string };
    const refused = await t.call('POST', `/api/tasks/${task.id}/retry`);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: 'conflict', message: `task ${task.id} is queued: only a task that ended not clean can be retried`,
    });
    await t.db.sql`select dispatch.set_task_status(${task.id}, 'gated', 'waiting for a person')`;
    const gated = await t.call('POST', `/api/tasks/${task.id}/retry`);
    expect(gated.status).toBe(409);
    expect(((await gated.json()) as { error: { message: string } }).error.message).toMatch(/decide its gate instead/);

    await t.db.sql`select dispatch.set_task_status(${task.id}, 'extraction_failed', 'no JSON')`;
    await t.db.sql`select graphile_worker.remove_job(${`spawn_worker:${task.id}`})`;
    const res = await t.call('POST', `/api/tasks/${task.id}/retry`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: task.id, status: 'queued', attempt: 2, ended_at: null, status_reason: 'retried after extraction_failed' });
    const [job] = await t.db.sql`select task_identifier from graphile_worker.jobs where key = ${`spawn_worker:${task.id}`}`;
    expect(job).toEqual({ task_identifier: 'spawn_worker' });
    const [ev] = await t.db.sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where task_id = ${task.id} and event_type = 'task.status_changed' order by seq desc limit 1`;
    expect(ev!.payload).toEqual({ status: 'queued', reason: 'retried after extraction_failed', attempt: 2, retry_of: 'extraction_failed' });

    await t.db.sql`select dispatch.set_task_status(${task.id}, 'success', 'done')`;
    expect((await t.call('POST', `/api/tasks/${task.id}/retry`)).status).toBe(409);
  });

  it('stops a project\'s orchestrator turn: none when no turn is open', async () => {
    const res = await t.call('POST', `/api/projects/${projectId}/turn/cancel`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ project_id: projectId, status: 'none' });
  });

  it('answers 404 for unknown ids', async () => {
    const id = randomUUID();
    for (const [m, p, b] of [
      ['GET', `/api/tasks/${id}`],
      ['POST', `/api/tasks/${id}/cancel`],
      ['POST', `/api/tasks/${id}/retry`],
      ['POST', `/api/projects/${id}/turn/cancel`],
      ['POST', '/api/tasks', { project_id: id, brief: 'x' }],
      ['GET', `/api/projects/${id}/state`],
      ['GET', `/api/handoffs?scope=${id}`],
      ['POST', '/api/messages', { project_id: id, text: 'hi', message_id: randomUUID() }],
      ['POST', '/api/focus', { task_id: id }],
    ] as [string, string, unknown?][]) {
      const res = await t.call(m, p, b);
      expect(res.status, `${m} ${p}`).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });
});

describe('events and state', () => {
  it('pages the journal in seq order, filtered by project', async () => {
    const body = (await (await t.call('GET', `/api/events?after=0&limit=500&project=${projectId}`)).json()) as {
      events: { seq: number; event_type: string; project_id: string }[];
      next_after: number;
    };
    expect(body.events.length).toBeGreaterThan(2);
    expect(body.events.every((e) => e.project_id === projectId)).toBe(true);
    const seqs = body.events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(body.next_after).toBe(seqs.at(-1));
    expect(body.events[0]!.event_type).toBe('project.created');
  });

  it('serves a state snapshot with the seq it reflects', async () => {
    const s = (await (await t.call('GET', '/api/state')).json()) as Record<string, unknown> & { seq: number; tasks: unknown[] };
    expect(Object.keys(s).sort()).toEqual(
      ['finished', 'focus', 'generated_at', 'needs_you', 'pending_messages', 'projects', 'seq', 'sessions', 'statuses', 'tasks', 'working_sets'].sort(),
    );
    const [{ max }] = (await t.db.sql<{ max: number }[]>`select max(seq) as max from dispatch.events`) as unknown as [{ max: number }];
    expect(s.seq).toBe(max);
    expect(s.tasks.length).toBeGreaterThan(0);
  });

  it('serves the project rollup', async () => {
    const s = (await (await t.call('GET', `/api/projects/${projectId}/state`)).json()) as Record<string, unknown>;
    expect(s).toMatchObject({ project_id: projectId, name: 'api project', tasks: { total: expect.any(Number) } });
  });

  it('publishes an OpenAPI document generated from the route schemas', async () => {
    const doc = (await (await t.call('GET', '/api/openapi.json')).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/tasks', '/api/tasks/{id}/cancel', '/api/tasks/{id}/retry', '/api/events', '/api/stream', '/api/messages', '/api/handoffs', '/api/state', '/api/focus', '/api/trellis', '/api/projects/{id}/state']),
    );
  });
});

describe('messages and focus', () => {
  it('journals a user message once per message_id and keeps it pending', async () => {
    const message_id = randomUUID();
    const first = await t.call('POST', '/api/messages', { project_id: projectId, text: 'Start with the tests', message_id });
    expect(first.status).toBe(201);
    const body = (await first.json()) as { id: string; status: string };
    expect(body).toMatchObject({ message_id, status: 'pending', text: 'Start with the tests' });
    const again = await t.call('POST', '/api/messages', { project_id: projectId, text: 'Start with the tests', message_id });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(body.id);
    const rows = await t.db.sql`select 1 from dispatch.events where event_type = 'user_message' and message_id = ${message_id}`;
    expect(rows).toHaveLength(1);
    const s = (await (await t.call('GET', '/api/state')).json()) as { pending_messages: { message_id: string }[] };
    expect(s.pending_messages.map((m) => m.message_id)).toContain(message_id);
    const reused = await t.call('POST', '/api/messages', { project_id: projectId, text: 'something else', message_id });
    expect(reused.status).toBe(409);
  });

  it('switches focus with one call and the state follows', async () => {
    const task = (await (await t.call('POST', '/api/tasks', { project_id: projectId, brief: 'focus me' })).json()) as { id: string };
    const res = await t.call('POST', '/api/focus', { task_id: task.id, thread_id: 7 });
    expect(res.status).toBe(201);
    const s = (await (await t.call('GET', '/api/state')).json()) as { focus: { task_id: string; thread_id: number } };
    expect(s.focus).toMatchObject({ task_id: task.id, thread_id: 7 });
  });

  it('clears the focus with an explicit null, journals it like a switch, and leaves the task\'s activity time alone', async () => {
    const task = (await (await t.call('POST', '/api/tasks', { project_id: projectId, brief: 'star and unstar me' })).json()) as { id: string };
    const activity = async () => {
      const s = (await (await t.call('GET', '/api/state')).json()) as { tasks: { id: string; last_activity_at: string }[]; focus: unknown };
      return { at: s.tasks.find((x) => x.id === task.id)!.last_activity_at, focus: s.focus };
    };
    const before = await activity();
    expect((await t.call('POST', '/api/focus', { task_id: task.id, thread_id: 'th_1' })).status).toBe(201);
    // Unstar the task, keep the thread.
    const cleared = await t.call('POST', '/api/focus', { task_id: null, thread_id: 'th_1' });
    expect(cleared.status).toBe(201);
    expect(await cleared.json()).toMatchObject({ task_id: null, thread_id: 'th_1', project_id: null });
    expect((await activity()).focus).toMatchObject({ task_id: null, thread_id: 'th_1' });
    // Clear everything.
    expect((await t.call('POST', '/api/focus', { task_id: null })).status).toBe(201);
    const after = await activity();
    expect(after.focus).toMatchObject({ task_id: null, thread_id: null });
    const rows = await t.db.sql<{ task_id: string | null; payload: { task_id: string | null } }[]>`
      select task_id, payload from dispatch.events where event_type = 'focus.changed' order by seq desc limit 3`;
    expect(rows.map((r) => r.payload.task_id)).toEqual([null, null, task.id]);
    expect(after.at).toBe(before.at);
  });
});
