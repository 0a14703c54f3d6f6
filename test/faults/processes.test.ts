// Whole processes, killed and multiplied: kill -9 of `npm start` while three workers pour out lines,
// then a restart — every line journalled exactly once, no job left locked, no orphan; and two
// `serve` with two `work` processes on one database — jobs spread, both servers stream the same
// sequence.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, waitFor, type TestDb } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, repoRoot, startEntry, startServer, type Started } from '../helpers/process.ts';
import { connectSse } from '../helpers/sse.ts';
import { tempDir } from '../helpers/teardown.ts';

const started: Started[] = [];
afterAll(() => {
  for (const s of started) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
});

function env(db: TestDb, dataDir: string, marker: string, extra: Record<string, string> = {}) {
  return cleanEnv({
    DATABASE_URL: db.url,
    DISPATCH_DATA_DIR: dataDir,
    CLAUDE_BIN: path.join(repoRoot, 'test/fakes/firehose.mjs'),
    FIREHOSE_LINES: '3000',
    FIREHOSE_RATE: '800',
    PD_TEST_MARKER: marker,
    LOG_LEVEL: 'warn',
    KILL_GRACE_SECONDS: '2',
    ...extra,
  });
}

function start(mode: string[], e: NodeJS.ProcessEnv): Started {
  const s = startEntry('bin/main.ts', e, mode);
  started.push(s);
  return s;
}

async function submit(db: TestDb, project: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${project}, ${`Pour out lines ${i}.`}) as id`;
    ids.push(t!.id);
  }
  return ids;
}

async function allLinesOnce(db: TestDb, taskIds: string[]): Promise<void> {
  const sessions = await db.sql<{ id: string; spool_path: string; status: string }[]>`
    select id, spool_path, status from dispatch.sessions where task_id = any(${taskIds}::uuid[]) and role = 'worker' order by created_at`;
  expect(sessions).toHaveLength(taskIds.length);
  for (const s of sessions) {
    expect(s.status).toBe('success');
    const rows = await db.sql<{ line_no: number; payload: unknown }[]>`
      select line_no, payload from dispatch.events where session_id = ${s.id} and line_no is not null order by seq`;
    const spooled = fs.readFileSync(s.spool_path, 'utf8').split('\n').filter(Boolean);
    expect(spooled).toHaveLength(3002);
    expect(rows.map((r) => r.line_no)).toEqual(spooled.map((_, i) => i));
    expect(rows.map((r) => r.payload)).toEqual(spooled.map((l) => JSON.parse(l)));
  }
}

describe('kill -9 of npm start while three workers run', () => {
  it('after a restart every line is journalled exactly once, nothing stays locked, nothing is orphaned', async () => {
    const db = await createTestDb();
    const dataDir = tempDir('pd-kill9-');
    const marker = `kill9-${Date.now()}`;
    const e = env(db, dataDir, marker, { PORT: '0' }); // no worker here calls the server back
    const first = start([], e);
    await waitFor(() => db.sql`select 1 from dispatch.runners`, (r) => r.length > 0, { timeout: 30_000, what: () => `the runner (${first.output()})` });
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('kill -9') as id`;
    const tasks = await submit(db, p!.id, 3);
    await waitFor(
      () => db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.sessions where task_id = any(${tasks}::uuid[]) and lines_written > 200`,
      (r) => r[0]!.n === 3,
      { timeout: 30_000, what: 'three workers writing' },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(3); // the workers outlive the runner

    const second = start([], e);
    await waitFor(
      () => db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.tasks where id = any(${tasks}::uuid[]) and status = 'success'`,
      (r) => r[0]!.n === 3,
      { timeout: 60_000, what: () => `the three tasks to succeed (${second.output()})` },
    );
    await allLinesOnce(db, tasks);
    const adopted = await db.sql`select 1 from dispatch.events where event_type = 'session.adopted' and task_id = any(${tasks}::uuid[])`;
    expect(adopted).toHaveLength(3);
    const locked = await db.sql`select 1 from graphile_worker._private_jobs where locked_at is not null`;
    expect(locked).toHaveLength(0);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(processesWith(marker)).toEqual([]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);
});

describe('two serve and two work processes on one database', () => {
  it('spread the jobs over both runners, and both servers stream the identical sequence', async () => {
    const db = await createTestDb();
    const dataDir = tempDir('pd-scale-');
    const marker = `scale-${Date.now()}`;
    const servers = await Promise.all([0, 1].map(() => startServer(env(db, dataDir, marker, { LOG_LEVEL: 'info' }))));
    started.push(...servers);
    const ports = servers.map((s) => new URL(s.url).port);
    for (let i = 0; i < 2; i++) start(['work'], env(db, dataDir, marker, { FIREHOSE_LINES: '1000', FIREHOSE_RATE: '500' }));
    await waitFor(() => db.sql`select 1 from dispatch.runners where stopped_at is null`, (r) => r.length === 2, { timeout: 30_000, what: 'two runners' });
    const [{ start: from } = { start: 0 }] = await db.sql<{ start: number }[]>`select coalesce(max(seq), 0) as start from dispatch.events`;
    const seen: number[][] = [[], []];
    const conns = await Promise.all(ports.map((port, k) => connectSse(`http://127.0.0.1:${port}/api/stream`, (e) => seen[k]!.push(Number(e.id)), { lastEventId: from })));

    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('scale out') as id`;
    const tasks = await submit(db, p!.id, 8);
    await waitFor(
      () => db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.tasks where id = any(${tasks}::uuid[]) and status = 'success'`,
      (r) => r[0]!.n === 8,
      { timeout: 90_000, what: 'eight tasks to succeed' },
    );
    const runners = await db.sql<{ runner_id: string }[]>`
      select distinct runner_id from dispatch.sessions where task_id = any(${tasks}::uuid[]) and role = 'worker'`;
    expect(runners).toHaveLength(2);

    const all = (await db.sql<{ seq: number }[]>`select seq from dispatch.events where seq > ${from} order by seq`).map((r) => r.seq);
    await waitFor(() => Math.min(seen[0]!.length, seen[1]!.length), (n) => n >= all.length, { timeout: 30_000, what: 'both streams to catch up' });
    for (const c of conns) c.abort();
    expect(seen[0]!.slice(0, all.length)).toEqual(all);
    expect(seen[1]!.slice(0, all.length)).toEqual(all);

    for (const s of started) if (s.child.exitCode === null) s.child.kill('SIGTERM');
    await Promise.all(started.map((s) => s.exited));
    expect(processesWith(marker)).toEqual([]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 150_000);
});

describe('a server killed mid-stream', () => {
  it('its clients resume with Last-Event-ID on the restarted server, with no gap and no duplicate', async () => {
    const db = await createTestDb();
    const dataDir = tempDir('pd-serve-kill-');
    const e = env(db, dataDir, `serve-kill-${Date.now()}`, { LOG_LEVEL: 'info' });
    // On a port the system picks; the restart must come back on the same one (the client retries it).
    let server = await startServer(e);
    const port = Number(new URL(server.url).port);
    const [{ from } = { from: 0 }] = await db.sql<{ from: number }[]>`select coalesce(max(seq), 0) as from from dispatch.events`;

    const seen: number[] = [];
    let done = false;
    const client = (async () => {
      while (!done) {
        try {
          const c = await connectSse(`http://127.0.0.1:${port}/api/stream`, (ev) => seen.push(Number(ev.id)), { lastEventId: seen.at(-1) ?? from });
          await Promise.race([c.done, waitFor(() => done, Boolean, { timeout: 60_000 })]);
          c.abort();
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    })();
    const writer = (async () => {
      for (let i = 0; i < 300; i++) {
        await db.sql`select dispatch.create_project(${`p${i}`})`;
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await waitFor(() => seen.length, (n) => n > 50, { what: 'the first events' });
    server.child.kill('SIGKILL');
    await server.exited;
    server = await startServer(e, ['serve'], { port });
    await writer;
    const all = (await db.sql<{ seq: number }[]>`select seq from dispatch.events where seq > ${from} order by seq`).map((r) => r.seq);
    await waitFor(() => seen.length, (n) => n >= all.length, { timeout: 30_000, what: 'the client to catch up' });
    done = true;
    await client;
    expect(seen).toEqual(all);
    server.child.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 90_000);
});
