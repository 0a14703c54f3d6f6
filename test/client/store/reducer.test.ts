// The client store's pure parts, without a browser: the reducer folds journal rows into the model,
// the journal holds rows ordered, once, indexed and bounded, and the outbox paints, settles and
// orphans messages.
import { describe, expect, it } from 'vitest';
import { Journal } from '../../../client/src/store/journal.ts';
import { MESSAGE_LIMIT_BYTES, Outbox, TooLongError } from '../../../client/src/store/outbox.ts';
import { emptyModel, fromSnapshot, reduce, reduceAll, type Model } from '../../../client/src/store/reducer.ts';
import { countsOf, tasksOf } from '../../../client/src/store/selectors.ts';
import type { EventRow, State, Task } from '../../../client/src/schemas.ts';

const P = '00000000-0000-4000-8000-000000000001';
const T = '00000000-0000-4000-8000-0000000000a1';
const S = '00000000-0000-4000-8000-0000000000b1';
let n = 0;
function row(seq: number, event_type: string, payload: unknown = {}, over: Partial<EventRow> = {}): EventRow {
  return {
    event_id: `00000000-0000-4000-9000-${String(++n).padStart(12, '0')}`, seq, project_id: P, session_id: null, task_id: null, parent_id: null,
    thread_id: null, message_id: null, event_type, tier: 'raw', payload, summary: null, line_no: null, created_at: new Date(1_700_000_000_000 + seq * 1000).toISOString(),
    ...over,
  };
}
const task = (over: Partial<Task> = {}): Task => ({
  id: T, project_id: P, parent_id: null, status: 'running', status_reason: null, brief: 'b', approach: null, plan_ref: null, attempt: 1,
  created_at: '2026-01-01T00:00:00.000Z', started_at: '2026-01-01T00:00:00.000Z', ended_at: null, last_activity_at: '2026-01-01T00:00:00.000Z',
  duration_ms: null, stalled: false, ...over,
});
const snapshot = (over: Partial<State> = {}): State => ({
  seq: 10, generated_at: '2026-01-01T00:00:00.000Z', projects: [{ id: P, name: 'p', config: {}, created_at: '2026-01-01T00:00:00.000Z' }],
  tasks: [task()], sessions: [], pending_messages: [], focus: null, working_sets: {}, statuses: [], ...over,
});

describe('the reducer', () => {
  it('a live status row moves the task and ends it when terminal; the input model is left as it was', () => {
    const m0 = fromSnapshot(snapshot());
    const m1 = reduce(m0, row(11, 'task.status_changed', { status: 'success', reason: 'exit 0' }, { task_id: T }));
    expect(m1.tasks.get(T)).toMatchObject({ status: 'success', status_reason: 'exit 0', ended_at: expect.any(String) });
    expect(m1.seq).toBe(11);
    expect(m0.tasks.get(T)!.status).toBe('running');
    expect(m0.seq).toBe(10);
  });

  it('history (a row at or below the model seq) never overwrites the snapshot status, but fills handoffs', () => {
    const m0 = fromSnapshot(snapshot());
    const m1 = reduceAll(m0, [
      row(5, 'task.status_changed', { status: 'queued' }, { task_id: T }),
      row(6, 'handoff', { goal: 'g' }, { task_id: T, tier: 'derived' }),
    ]);
    expect(m1.tasks.get(T)!.status).toBe('running');
    expect(m1.handoffs.get(T)!.seq).toBe(6);
    expect(m1.seq).toBe(10);
  });

  it('the same rows in the same order give the same model (folding is deterministic)', () => {
    const rows = [
      row(11, 'session.spawned', { role: 'worker', pid: 1 }, { task_id: T, session_id: S }),
      row(12, 'session.stalled', {}, { task_id: T, session_id: S }),
      row(13, 'session.resumed', {}, { task_id: T, session_id: S }),
      row(14, 'session.exited', { status: 'success' }, { task_id: T, session_id: S }),
    ];
    const a = reduceAll(fromSnapshot(snapshot()), rows);
    const b = reduceAll(fromSnapshot(snapshot()), rows);
    expect(a).toEqual(b);
    expect(a.sessions.get(S)).toMatchObject({ status: 'success', stalled: false, ended_at: expect.any(String) });
  });

  it('a new task, a new project, focus and a working set arrive live', () => {
    const T2 = '00000000-0000-4000-8000-0000000000a2';
    const P2 = '00000000-0000-4000-8000-000000000002';
    const m = reduceAll(fromSnapshot(snapshot()), [
      row(11, 'project.created', { name: 'second' }, { project_id: P2 }),
      row(12, 'task.submitted', { brief: 'do it', approach: 'carefully' }, { task_id: T2 }),
      row(13, 'focus.changed', { task_id: T2 }, { task_id: T2 }),
      row(14, 'orchestrator.working_set', { mode: 'plan', needs_user: [] }),
    ]);
    expect(m.projects.get(P2)!.name).toBe('second');
    expect(m.tasks.get(T2)).toMatchObject({ status: 'queued', brief: 'do it', approach: 'carefully' });
    expect(m.focus).toEqual({ task_id: T2, thread_id: null });
    expect(m.workingSets.get(P)).toMatchObject({ mode: 'plan', seq: 14 });
  });

  it('focusing a task is not activity: its last_activity_at stays', () => {
    const m0 = fromSnapshot(snapshot());
    const m1 = reduce(m0, row(11, 'focus.changed', { task_id: T }, { task_id: T }));
    expect(m1.tasks.get(T)!.last_activity_at).toBe(m0.tasks.get(T)!.last_activity_at);
    const m2 = reduce(m1, row(12, 'claude.assistant', {}, { task_id: T }));
    expect(m2.tasks.get(T)!.last_activity_at).toBe(row(12, 'x').created_at);
  });

  it('a user message: pending when live, delivered when found only in history, delivered on its delivery row', () => {
    const M1 = '00000000-0000-4000-8000-0000000000c1';
    const M2 = '00000000-0000-4000-8000-0000000000c2';
    let m: Model = fromSnapshot(snapshot());
    m = reduce(m, row(3, 'user_message', { text: 'old' }, { message_id: M1 }));
    m = reduce(m, row(11, 'user_message', { text: 'new' }, { message_id: M2 }));
    expect(m.messages.get(M1)!.status).toBe('delivered');
    expect(m.messages.get(M2)!.status).toBe('pending');
    m = reduce(m, row(12, 'user_message.delivered', {}, { message_id: M2 }));
    expect(m.messages.get(M2)!.status).toBe('delivered');
    // A failed turn gives it back: pending again, then delivered by the next turn.
    m = reduce(m, row(13, 'user_message.returned', { failed_turns: 1, will_retry: true }, { message_id: M2 }));
    expect(m.messages.get(M2)!.status).toBe('pending');
    m = reduce(m, row(14, 'user_message.delivered', {}, { message_id: M2 }));
    expect(m.messages.get(M2)!.status).toBe('delivered');
  });

  it('an unknown row type changes nothing but the seq', () => {
    const m0 = fromSnapshot(snapshot());
    const m1 = reduce(m0, row(11, 'something.new', { x: 1 }));
    expect({ ...m1, seq: 10 }).toEqual(m0);
    expect(reduce(emptyModel(), row(1, 'claude.assistant')).seq).toBe(1);
  });
});

describe('the selectors', () => {
  it('count each task once: needs you (gated, extraction_failed), stalled, running, failed, finished; scoped by project', () => {
    const P2 = '00000000-0000-4000-8000-000000000002';
    const ids = (i: number) => `00000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`;
    const statuses = ['gated', 'extraction_failed', 'stalled', 'running', 'failed', 'crashed', 'rate_limited', 'success', 'cancelled'];
    const m = fromSnapshot(snapshot({ tasks: [...statuses.map((s, i) => task({ id: ids(i), status: s })), task({ id: ids(20), project_id: P2, status: 'gated' })] }));
    expect(countsOf(m, m.tasks, P)).toEqual({ needsYou: 2, stalled: 1, running: 1, failed: 3, finished: 1 });
    expect(countsOf(m, m.tasks, '').needsYou).toBe(3);
    expect(tasksOf(m.tasks, P2).map((t) => t.id)).toEqual([ids(20)]);
    expect(tasksOf(m.tasks, P)[0]!.status).toBe('stalled');
  });
});

describe('the journal', () => {
  it('holds rows in seq order, each once, indexed by task and project', () => {
    const j = new Journal();
    const a = row(3, 'x', {}, { task_id: T });
    const b = row(1, 'x');
    const c = row(2, 'x', {}, { task_id: T });
    expect(j.add([a, b]).map((r) => r.seq)).toEqual([1, 3]);
    expect(j.add([c, a]).map((r) => r.seq)).toEqual([2]);
    expect(j.rows().map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(j.task(T).map((r) => r.seq)).toEqual([2, 3]);
    expect(j.project(P).length).toBe(3);
  });

  it('stays bounded: the oldest rows go, the floor rises to say so, and the task on screen keeps its rows', () => {
    const j = new Journal(1000);
    j.keep(T);
    const rows = Array.from({ length: 5000 }, (_, i) => row(i + 1, 'x', {}, { task_id: i % 10 === 0 ? T : null }));
    for (let i = 0; i < rows.length; i += 100) j.add(rows.slice(i, i + 100));
    expect(j.size).toBeLessThanOrEqual(1000 + 2000 + 500);
    expect(j.floor).toBeGreaterThan(1);
    expect(j.rows()[0]!.seq).toBeGreaterThanOrEqual(j.floor);
    expect(j.task(T).length).toBe(500);
    expect(j.taskFloor(T)).toBe(0);
    // A row dropped by trimming can be paged in again.
    expect(j.has(rows[1]!.event_id)).toBe(false);
  });

  it('keeps the conversation on screen through trimming, however far back it was paged, and says below which seq others may be gone', () => {
    const j = new Journal(1000);
    // A chat paged back to its start: messages far below the rows that stream in afterwards.
    const said = Array.from({ length: 300 }, (_, i) => row(i + 1, 'user_message', { text: `note ${i}` }, { message_id: `m${i}` }));
    j.add(said);
    j.spare((r) => r.event_type === 'user_message');
    const live = Array.from({ length: 5000 }, (_, i) => row(1000 + i, 'claude.assistant'));
    for (let i = 0; i < live.length; i += 100) j.add(live.slice(i, i + 100));
    expect(j.trimmed).toBeGreaterThan(1000);
    expect(j.project(P).filter((r) => r.event_type === 'user_message').map((r) => r.seq)).toEqual(said.map((r) => r.seq));
    // Off screen, they go with the next trim like any old row.
    j.spare(null);
    for (let i = 0; i < 30; i++) j.add([row(7000 + i * 100, 'claude.assistant'), ...Array.from({ length: 99 }, (_, k) => row(7001 + i * 100 + k, 'x'))]);
    expect(j.project(P).some((r) => r.event_type === 'user_message')).toBe(false);
  });
});

describe('the outbox', () => {
  const deps = (post: () => Promise<void>) => {
    const timers: (() => void)[] = [];
    let changes = 0;
    const recorded = new Set<string>();
    const o = new Outbox({ post, recorded: (id) => recorded.has(id), now: () => '2026-01-01T00:00:00.000Z', changed: () => changes++, setTimer: (fn) => timers.push(fn) });
    return { o, timers, recorded, changes: () => changes };
  };

  it('paints a message at once, drops it when its record arrives, orphans it when none comes', async () => {
    const { o, timers, recorded } = deps(async () => {});
    await o.send(P, 'hello', 'm1');
    expect(o.messages.get('m1')!.status).toBe('sending');
    await o.send(P, 'again', 'm2');
    recorded.add('m1');
    o.settle('m1');
    for (const t of timers) t();
    expect(o.messages.has('m1')).toBe(false);
    expect(o.messages.get('m2')!.status).toBe('orphaned');
  });

  it('a failed POST orphans the message and rethrows; retry sends the same id again', async () => {
    let ok = false;
    const { o } = deps(async () => {
      if (!ok) throw new Error('offline');
    });
    await expect(o.send(P, 'hi', 'm1')).rejects.toThrow('offline');
    expect(o.messages.get('m1')!.status).toBe('orphaned');
    ok = true;
    await o.retry('m1');
    expect(o.messages.get('m1')).toMatchObject({ status: 'sending', text: 'hi' });
  });

  it('refuses a message over the body limit before sending, saying its size', async () => {
    let posted = 0;
    const { o } = deps(async () => void posted++);
    const text = 'x'.repeat(MESSAGE_LIMIT_BYTES + 10);
    const err = await o.send(P, text, 'm1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooLongError);
    expect((err as Error).message).toBe('too long (257 KB, limit 256 KB)');
    expect(posted).toBe(0);
    expect(o.messages.size).toBe(0);
  });
});
