// /api/stream over real sockets: resuming with Last-Event-ID loses nothing and repeats nothing,
// with concurrent writers, clients dropping at random, two server processes and a server restart.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { HEARTBEAT_MS, RETRY_MS } from '../../../functions/routes/events.ts';
import { JournalWriter } from '../../../jobs/journal-writer.ts';
import { listen, startTestApp, type TestApp } from '../../helpers/app.ts';
import { waitFor } from '../../helpers/db.ts';
import { makeSession } from '../../helpers/journal.ts';
import { cleanEnv, startServer } from '../../helpers/process.ts';
import { connectSse, type SseConnection } from '../../helpers/sse.ts';

let a: TestApp;
beforeAll(async () => {
  a = await startTestApp();
});

describe('the journal stream', () => {
  it('4 writers, 3 clients dropping at random across two servers and a restart: identical, complete sequences', async () => {
    // Server B is a second process (its own pool and hub) over the same database.
    const serveEnv = cleanEnv({ DATABASE_URL: a.db.url, LOG_LEVEL: 'info' });
    let b = await startServer(serveEnv);
    const servers: { url: string }[] = [await listen(a), b];
    const refs = await Promise.all([0, 1, 2, 3].map((i) => makeSession(a.db.sql, `stream writer ${i}`)));
    const [{ start } = { start: 0 }] = await a.db.sql<{ start: number }[]>`select coalesce(max(seq), 0) as start from dispatch.events`;
    let writing = true;
    const writers = refs.map(async (ref, w) => {
      const writer = new JournalWriter(a.db.sql, ref, { maxBatch: 50 });
      for (let i = 0; i < 1000; i++) {
        writer.push(Buffer.from(JSON.stringify({ type: 'stream_event', w, i })));
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, Math.random() * 15));
      }
      await writer.flush();
    });

    const seen: number[][] = [[], [], []];
    const clients = seen.map(async (got, k) => {
      let conn: SseConnection | null = null;
      let round = 0;
      for (;;) {
        const last = got.at(-1) ?? start;
        const base = servers[(k + round++) % servers.length]!.url;
        try {
          conn = await connectSse(`${base}/api/stream`, (e) => got.push(Number(e.id)), { lastEventId: last });
        } catch {
          continue; // that server is restarting: like a real client, try again
        }
        expect(conn.status).toBe(200);
        // Stay for a random while, then drop the connection (or stay until the end).
        await Promise.race([conn.done, new Promise((r) => setTimeout(r, 30 + Math.random() * 120))]);
        conn.abort();
        await conn.done;
        if (!writing) {
          const [{ top } = { top: 0 }] = await a.db.sql<{ top: number }[]>`select max(seq) as top from dispatch.events`;
          if ((got.at(-1) ?? 0) >= top) return;
        }
      }
    });

    // Restart server B once a quarter of the lines are in: clients on it resume elsewhere or on the new one.
    await waitFor(
      async () => (await a.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where seq > ${start}`)[0]!.n,
      (n) => n >= 1000,
      { what: 'a quarter of the lines' },
    );
    b.child.kill('SIGTERM');
    await b.exited;
    b = await startServer(serveEnv);
    servers[1] = b;

    await Promise.all(writers);
    writing = false;
    await Promise.all(clients);

    const all = (await a.db.sql<{ seq: number }[]>`select seq from dispatch.events where seq > ${start} order by seq`).map((r) => r.seq);
    // The writers' 4 000 lines, and whatever server B journals when it starts (twice).
    const [{ lines } = { lines: 0 }] = await a.db.sql<{ lines: number }[]>`
      select count(*)::int as lines from dispatch.events where seq > ${start} and session_id = any(${refs.map((r) => r.sessionId)}::uuid[])`;
    expect(lines).toBe(4000);
    for (const got of seen) expect(got).toEqual(all);
  });

  it('sends retry: 2000, a ping comment every 15 s of quiet, and each event with id = seq and the envelope as data', async () => {
    const t = await startTestApp();
    const { url } = await listen(t);
    const comments: string[] = [];
    const retries: number[] = [];
    const events: { id: string | null; data: string }[] = [];
    // The stream's heartbeat interval runs on a fake clock (the hub and sockets keep the real one).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let conn: Awaited<ReturnType<typeof connectSse>>;
    try {
      conn = await connectSse(`${url}/api/stream?after=0`, (e) => events.push(e), { onComment: (c) => comments.push(c), onRetry: (ms) => retries.push(ms) });
      await waitFor(() => comments.length, (n) => n >= 1, { what: 'the opening comment' });
      expect(retries).toEqual([RETRY_MS]);
      expect(RETRY_MS).toBe(2000); // the README's figures
      expect(HEARTBEAT_MS).toBe(15_000);
      vi.advanceTimersByTime(HEARTBEAT_MS - 1);
      vi.advanceTimersByTime(1);
      await waitFor(() => comments.filter((c) => c === 'ping').length, (n) => n === 1, { what: 'the first ping' });
      vi.advanceTimersByTime(HEARTBEAT_MS);
      await waitFor(() => comments.filter((c) => c === 'ping').length, (n) => n === 2, { what: 'the second ping' });
    } finally {
      vi.useRealTimers();
    }
    expect(conn.status).toBe(200);
    await t.db.sql`select dispatch.create_project('streamed')`;
    await waitFor(() => events.length, (n) => n >= 1, { what: 'the project.created event' });
    const row = JSON.parse(events.at(-1)!.data) as { seq: number; event_type: string; payload: unknown };
    expect(row).toMatchObject({ event_type: 'project.created', payload: { name: 'streamed' } });
    expect(events.at(-1)!.id).toBe(String(row.seq));
    expect(comments[0]).toBe('resuming after 0');
    conn.abort();
  });

  it('filters by project', async () => {
    const t = await startTestApp();
    const { url } = await listen(t);
    const [p1] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('one') as id`;
    const got: string[] = [];
    const conn = await connectSse(`${url}/api/stream?after=0&project=${p1!.id}`, (e) => got.push((JSON.parse(e.data) as { project_id: string }).project_id));
    await t.db.sql`select dispatch.create_project('two')`;
    await t.db.sql`select dispatch.submit_task(${p1!.id}, 'in project one')`;
    await waitFor(() => got.length, (n) => n >= 2, { what: 'two events of project one' });
    expect(new Set(got)).toEqual(new Set([p1!.id]));
    conn.abort();
  });

  it('cuts off a client that does not read; resuming then loses nothing', async () => {
    const t = await startTestApp();
    const { url } = await listen(t);
    const res = await fetch(`${url}/api/stream?after=0`);
    expect(res.status).toBe(200);
    const ref = await makeSession(t.db.sql, 'flood');
    const writer = new JournalWriter(t.db.sql, ref);
    const big = 'y'.repeat(60_000);
    for (let i = 0; i < 400; i++) writer.push(Buffer.from(JSON.stringify({ type: 'stream_event', i, big })));
    await writer.flush();
    // The unread response is dropped by the server once its buffer passes the limit.
    const reader = res.body!.getReader();
    let bytes = 0;
    // The server gives up on us by itself while we do not read: its buffer passed the limit.
    await waitFor(() => t.hub.subscriberCount, (n) => n === 0, { what: 'the server to cut the unread client off' });
    const ended = await (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return 'closed';
          bytes += value.length;
        }
      } catch {
        return 'reset';
      }
    })();
    expect(['closed', 'reset']).toContain(ended);
    expect(bytes).toBeLessThan(400 * 60_000);
    expect(t.hub.subscriberCount).toBe(0);

    const ids: number[] = [];
    const again = await connectSse(`${url}/api/stream`, (e) => ids.push(Number(e.id)), { lastEventId: 0 });
    const all = (await t.db.sql<{ seq: number }[]>`select seq from dispatch.events order by seq`).map((r) => r.seq);
    await waitFor(() => ids.length, (n) => n >= all.length, { what: 'the resumed client to catch up' });
    expect(ids).toEqual(all);
    again.abort();
  });
});
