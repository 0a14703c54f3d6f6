// What the API actually answers fits its contracts, on both sides: every answer a client reads is
// accepted by the server's zod schema and by the client's valibot schema, and a worker's stdout
// line reaches the client with its summary (the client never needs the substrate's line shapes).
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { STATUS_NAMES } from '../../../core/contracts/status.ts';
import { JournalWriter } from '../../../jobs/journal-writer.ts';
import * as S from '../../core/contracts/shapes.ts';
import { listen, startTestApp, type TestApp } from '../../helpers/app.ts';
import { waitFor } from '../../helpers/db.ts';
import { fixtureStdout } from '../../helpers/journal.ts';
import { connectSse } from '../../helpers/sse.ts';

let t: TestApp;
let projectId: string;
let taskId: string;
let sessionId: string;
beforeAll(async () => {
  t = await startTestApp();
  const p = await t.call('POST', '/api/projects', { name: 'contracts', config: { allowed_tools: ['Bash'], mode: 'interactive' } });
  projectId = ((await p.json()) as { id: string }).id;
  const task = await t.call('POST', '/api/tasks', { project_id: projectId, brief: 'Run a command' });
  taskId = ((await task.json()) as { id: string }).id;
  const [s] = await t.db.sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, task_id, role, attempt, status, started_at)
    values (${projectId}, ${taskId}, 'worker', 1, 'running', now()) returning id`;
  sessionId = s!.id;
});

/** The body, accepted by both sides of the contract; returns what the client reads. */
async function both<Z extends z.ZodType, V extends v.GenericSchema>(res: Response, zod: Z, valibot: V): Promise<v.InferOutput<V>> {
  expect(res.status).toBeLessThan(300);
  const body = (await res.json()) as unknown;
  const server = zod.safeParse(body);
  expect(server.success, `zod: ${server.error?.message}`).toBe(true);
  const client = v.safeParse(valibot, body);
  expect(client.success, `valibot: ${JSON.stringify(client.issues?.[0]?.path?.map((p) => p.key))} ${client.issues?.[0]?.message}`).toBe(true);
  return client.output as v.InferOutput<V>;
}

describe('the API answers in its contracts', () => {
  it('a worker\'s lines reach GET /api/events with their summary, the raw line kept as the payload', async () => {
    const writer = new JournalWriter(t.db.sql, { projectId, sessionId, taskId });
    const lines = fixtureStdout('bash-tool').toString('utf8').split('\n').filter(Boolean);
    for (const line of lines) writer.push(Buffer.from(line));
    await writer.flush();
    const page = await t.call('GET', `/api/events?session=${sessionId}`);
    const body = (await page.json()) as { events: unknown[] };
    const events = body.events.map((e) => v.parse(S.valibot.EventSchema, e));
    for (const e of body.events) expect(S.zod.EventSchema.safeParse(e).success).toBe(true);
    expect(events.map((e) => e.summary?.kind)).toEqual(['init', 'text', 'tool_use', 'tool_result', 'text', 'result']);
    expect(events[2]!.summary).toEqual({ kind: 'tool_use', tool: 'Bash', input_summary: 'echo hello from the worker' });
    expect(events.map((e) => e.payload)).toEqual(lines.map((l) => JSON.parse(l) as unknown));
  });

  it('the journal\'s own events carry no summary', async () => {
    const page = (await (await t.call('GET', `/api/events?task=${taskId}`)).json()) as { events: { event_type: string; summary: unknown }[] };
    expect(page.events.find((e) => e.event_type === 'task.submitted')!.summary).toBeNull();
  });

  it('the stream sends the same rows, summary included', async () => {
    const { url } = await listen(t);
    const frames: string[] = [];
    const conn = await connectSse(`${url}/api/stream?session=${sessionId}&after=0`, (e) => frames.push(e.data));
    await waitFor(() => frames.length, (n) => n >= 6, { what: 'six frames' });
    conn.abort();
    const rows = frames.map((f) => v.parse(S.valibot.EventSchema, JSON.parse(f)));
    expect(rows.map((r) => r.summary?.kind)).toEqual(['init', 'text', 'tool_use', 'tool_result', 'text', 'result']);
  });

  it('GET /api/state: a real schema, with the status table so a client needs no list of its own', async () => {
    await t.call('POST', '/api/messages', { project_id: projectId, text: 'hello', message_id: randomUUID() });
    await t.call('POST', '/api/focus', { task_id: taskId });
    const state = await both(await t.call('GET', '/api/state'), S.zod.StateSchema, S.valibot.StateSchema);
    expect(state.statuses.map((s) => s.name).sort()).toEqual([...STATUS_NAMES].sort());
    expect(state.statuses.find((s) => s.name === 'extraction_failed')).toMatchObject({ terminal: true, alarming: true, needs_user: true, notifies: true });
    expect(state.tasks.map((x) => x.id)).toContain(taskId);
    expect(state.sessions.map((x) => x.id)).toContain(sessionId);
    expect(state.pending_messages.map((m) => m.text)).toContain('hello');
    expect(state.focus).toMatchObject({ task_id: taskId, project_id: projectId });
    expect(state.projects.find((p) => p.id === projectId)!.config).toEqual({ allowed_tools: ['Bash'], mode: 'interactive' });
  });

  it('tasks, projects, messages and focus', async () => {
    const detail = await both(await t.call('GET', `/api/tasks/${taskId}`), S.zod.TaskDetailSchema, S.valibot.TaskDetailSchema);
    expect(detail.sessions.map((s) => s.id)).toEqual([sessionId]);
    expect(detail.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const list = (await (await t.call('GET', `/api/tasks?project=${projectId}`)).json()) as { tasks: unknown[] };
    for (const task of list.tasks) expect(v.safeParse(S.valibot.TaskSchema, task).success).toBe(true);
    const projects = (await (await t.call('GET', '/api/projects')).json()) as { projects: unknown[] };
    for (const p of projects.projects) expect(v.safeParse(S.valibot.ProjectSchema, p).success).toBe(true);
    const message = await both(
      await t.call('POST', '/api/messages', { project_id: projectId, text: 'again', message_id: randomUUID() }),
      S.zod.MessageSchema,
      S.valibot.MessageSchema,
    );
    expect(message).toMatchObject({ text: 'again', status: 'pending' });
    const focus = await both(await t.call('POST', '/api/focus', { thread_id: 7 }), S.zod.FocusSchema, S.valibot.FocusSchema);
    expect(focus).toMatchObject({ thread_id: 7, task_id: null });
    await both(await t.call('GET', '/api/trellis'), S.zod.TrellisViewSchema, S.valibot.TrellisViewSchema);
  });

  it('push moments come from the status table: an unknown one is refused with its place named', async () => {
    const subscription = { endpoint: 'https://push.example/abc', keys: { p256dh: 'p'.repeat(20), auth: 'a'.repeat(8) } };
    const bad = await t.call('POST', '/api/push/subscriptions', { subscription, statuses: ['failed', 'exploded'] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_input', details: [{ path: 'statuses.1' }] } });
    const ok = await t.call('POST', '/api/push/subscriptions', { subscription });
    const [row] = await t.db.sql<{ m: string[] }[]>`select dispatch.push_moments() as m`;
    expect(((await ok.json()) as { statuses: string[] }).statuses).toEqual(row!.m);
  });

  it('the same timestamps a Date would have given', async () => {
    const [row] = await t.db.sql<{ created_at: Date }[]>`select created_at from dispatch.tasks where id = ${taskId}`;
    const task = (await (await t.call('GET', `/api/tasks/${taskId}`)).json()) as { created_at: string };
    expect(task.created_at).toBe(row!.created_at.toISOString());
  });
});
