// The Trellis read surface: the live thread and its context when Trellis answers; a quick
// "unavailable" when it is down, slow or not configured — and /api/state never waits on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrellis, type TrellisServer } from '../../../fixtures/trellis/server.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let trellis: TrellisServer;
let t: TestApp;
beforeAll(async () => {
  trellis = await startTrellis(
    [
      { id: 1, title: 'petal-dispatch v1', recent_context: [{ role: 'user', text: 'ship the journal first' }] },
      { id: 2, title: 'garden notes' },
    ],
    1,
  );
  t = await startTestApp({ TRELLIS_URL: trellis.url });
});
afterAll(() => trellis.close());

describe('GET /api/trellis', () => {
  it('shows the live thread, its identity and recent context', async () => {
    trellis.set({ mode: 'ok' });
    const body = await (await t.call('GET', '/api/trellis')).json();
    expect(body).toEqual({
      available: true,
      live_thread: { id: 1, title: 'petal-dispatch v1' },
      threads: [{ id: 1, title: 'petal-dispatch v1' }, { id: 2, title: 'garden notes' }],
      recent_context: [{ role: 'user', text: 'ship the journal first' }],
    });
  });

  it('says unavailable, timed out at its 1 s limit, when Trellis hangs, and /api/state still answers', async () => {
    trellis.set({ mode: 'slow' });
    // The reason proves the limit cut the call (speed itself is the bench's business, not a test's).
    const [trellisRes, stateRes] = await Promise.all([t.call('GET', '/api/trellis'), t.call('GET', '/api/state')]);
    const body = (await trellisRes.json()) as { available: boolean; reason: string };
    expect(body).toEqual({ available: false, reason: 'timed out after 1000 ms' });
    expect(stateRes.status).toBe(200);
  });

  it('says why when Trellis fails or is not there', async () => {
    trellis.set({ mode: 'error' });
    expect(await (await t.call('GET', '/api/trellis')).json()).toEqual({ available: false, reason: 'HTTP 500 from /threads/live' });
    // Port 2 on loopback: below the range the system hands out, so no test's server can be there,
    // and not on fetch's list of blocked ports (1 is): the connection is refused every time.
    const down = await startTestApp({ TRELLIS_URL: 'http://127.0.0.1:2' });
    expect(await (await down.call('GET', '/api/trellis')).json()).toEqual({ available: false, reason: 'unreachable (ECONNREFUSED)' });
    const none = await startTestApp();
    expect(await (await none.call('GET', '/api/trellis')).json()).toEqual({ available: false, reason: 'not configured (set TRELLIS_URL)', configured: false });
  });
});

describe('thread ids as Trellis gives them', () => {
  it('reads threads with string ids, and the context of the thread asked for', async () => {
    const strings = await startTrellis(
      [
        { id: 'th_a', title: 'Alpha', updated_at: '2026-11-30T07:00:00.000Z', recent_context: [{ role: 'user', text: 'alpha words' }] },
        { id: 'th b/2', title: 'Beta', recent_context: [{ role: 'user', text: 'beta words' }] },
      ],
      'th_a',
    );
    try {
      const s = await startTestApp({ TRELLIS_URL: strings.url });
      expect(await (await s.call('GET', '/api/trellis')).json()).toEqual({
        available: true,
        live_thread: { id: 'th_a', title: 'Alpha', updated_at: '2026-11-30T07:00:00.000Z' },
        threads: [{ id: 'th_a', title: 'Alpha', updated_at: '2026-11-30T07:00:00.000Z' }, { id: 'th b/2', title: 'Beta' }],
        recent_context: [{ role: 'user', text: 'alpha words' }],
      });
      const other = (await (await s.call('GET', `/api/trellis?thread=${encodeURIComponent('th b/2')}`)).json()) as { recent_context: unknown };
      expect(other.recent_context).toEqual([{ role: 'user', text: 'beta words' }]);
      // A focused thread Trellis does not know: no context, but Trellis is available.
      expect(await (await s.call('GET', '/api/trellis?thread=th_gone')).json()).toMatchObject({ available: true, recent_context: [] });
    } finally {
      await strings.close();
    }
  });

  it('POST /api/focus keeps a string id and a number id exactly, in the answer, the state and the journal', async () => {
    for (const id of ['th_8f2c', 'th b/2', 7, '7']) {
      const res = await t.call('POST', '/api/focus', { thread_id: id });
      expect(res.status).toBe(201);
      const focus = (await res.json()) as { id: string; thread_id: unknown };
      expect(focus.thread_id).toStrictEqual(id);
      const state = (await (await t.call('GET', '/api/state')).json()) as { focus: { thread_id: unknown } };
      expect(state.focus.thread_id).toStrictEqual(id);
      const [row] = await t.db.sql<{ thread_id: string | null; thread_ref: string; payload: { thread_id: unknown } }[]>`
        select thread_id::text, thread_ref, payload from dispatch.events where event_id = ${focus.id}`;
      expect(row).toEqual({ thread_id: typeof id === 'number' ? String(id) : null, thread_ref: String(id), payload: { thread_id: id, task_id: null } });
      const page = (await (await t.call('GET', `/api/events?after=${(await t.db.sql`select seq from dispatch.events where event_id = ${focus.id}`)[0]!.seq - 1}&limit=1`)).json()) as {
        events: { thread_ref: string }[];
      };
      expect(page.events[0]!.thread_ref).toBe(String(id));
    }
  });

  it('refuses a thread id that is neither a string nor a non-negative integer', async () => {
    for (const bad of [{ a: 1 }, -1, 1.5, '', true]) {
      const res = await t.call('POST', '/api/focus', { thread_id: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
  });

  it('a derived row inherits its parent row thread_ref', async () => {
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('thread inherit') as id`;
    const [parent] = await t.db.sql<{ event_id: string }[]>`
      insert into dispatch.events (project_id, event_type, thread_ref) values (${p!.id}, 'focus.changed', 'th_parent') returning event_id`;
    const child = await t.db.sql.begin(async (tx) => {
      await tx`select set_config('dispatch.handoff_gate', 'validated', true)`;
      return tx<{ thread_ref: string }[]>`
        insert into dispatch.events (project_id, event_type, tier, parent_id, payload)
        values (${p!.id}, 'handoff', 'derived', ${parent!.event_id}, '{}') returning thread_ref`;
    });
    expect(child[0]!.thread_ref).toBe('th_parent');
  });
});
