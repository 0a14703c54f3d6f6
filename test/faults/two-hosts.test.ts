// Sessions belong to their host: two runners with different RUNNER_HOST_IDs and their own data
// folders on one Postgres. Host A's runner is killed with SIGKILL while its worker runs; host B's
// runner takes the dead runner's job but never starts a duplicate. A's runner, restarted, re-adopts
// the worker (every line journalled once); with A never back, the task is retried after
// HOST_LOST_SECONDS, once.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTestDb, waitFor, type TestDb } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, repoRoot, startEntry, type Started } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';

interface Hosts {
  db: TestDb;
  marker: string;
  dirs: { A: string; B: string };
  runner(host: 'A' | 'B'): Started;
}

/** `hold`: a file the worker waits for before its result line (see test/fakes/firehose.mjs). */
async function hosts(hostLostSeconds: number, lines: number, hold?: string): Promise<Hosts> {
  const db = await createTestDb();
  const marker = randomUUID();
  const dirs = { A: tempDir('pd-host-a-'), B: tempDir('pd-host-b-') };
  const runner = (host: 'A' | 'B') =>
    startEntry(
      'bin/main.ts',
      cleanEnv({
        DATABASE_URL: db.url,
        DISPATCH_DATA_DIR: dirs[host],
        RUNNER_HOST_ID: `host-${host.toLowerCase()}`,
        RUNNER_STALE_SECONDS: '2',
        HOST_LOST_SECONDS: String(hostLostSeconds),
        CLAUDE_BIN: path.join(repoRoot, 'test/fakes/firehose.mjs'),
        FIREHOSE_LINES: String(lines),
        FIREHOSE_RATE: '200',
        PD_TEST_MARKER: marker,
        LOG_LEVEL: 'info',
        ...(hold ? { FIREHOSE_HOLD_FILE: hold } : {}),
      }),
      ['work'],
    );
  return { db, marker, dirs, runner };
}

const workerSessions = (db: TestDb, taskId: string) =>
  db.sql<{ id: string; host: string; pid: number | null; status: string; status_reason: string | null; spool_path: string; attempt: number }[]>`
    select id, host, pid, status, status_reason, spool_path, attempt from dispatch.sessions
     where task_id = ${taskId} and role = 'worker' order by created_at`;

/** A task whose worker runs on host A and has printed; `beforeB` runs before host B's runner starts. */
async function submitOnA(h: Hosts, beforeB?: (taskId: string, a: Started) => Promise<void>): Promise<{ taskId: string; a: Started; b: Started }> {
  const a = h.runner('A');
  await waitFor(() => h.db.sql`select 1 from dispatch.runners where host = 'host-a'`, (r) => r.length === 1, { what: () => `runner A (${a.output()})` });
  const [p] = await h.db.sql<{ id: string }[]>`select dispatch.create_project('two hosts') as id`;
  const [t] = await h.db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Pour out lines.') as id`;
  const taskId = t!.id;
  await waitFor(
    async () => (await h.db.sql<{ n: number }[]>`select lines_written as n from dispatch.sessions where task_id = ${taskId} and role = 'worker'`)[0]?.n ?? 0,
    (n) => n > 100,
    { timeout: 30_000, what: () => `the worker on host A to print (${a.output()})` },
  );
  await beforeB?.(taskId, a);
  const b = h.runner('B');
  await waitFor(() => h.db.sql`select 1 from dispatch.runners where host = 'host-b'`, (r) => r.length === 1, { what: () => `runner B (${b.output()})` });
  return { taskId, a, b };
}

describe('two hosts on one Postgres', () => {
  it('host B never starts a duplicate of host A\'s worker; A\'s runner, restarted, re-adopts it with no line lost', async () => {
    // 20 s of lines, and the worker then waits for `hold` before its result: however slow the
    // machine, it is still alive when A's new runner adopts it. A comes back long before the timeout.
    const hold = path.join(tempDir('pd-hold-'), 'release');
    const h = await hosts(600, 4000, hold);
    const { taskId, a } = await submitOnA(h);
    const [s] = await workerSessions(h.db, taskId);
    expect(s!.host).toBe('host-a');
    const [spawned] = await h.db.sql<{ payload: { host: string } }[]>`
      select payload from dispatch.events where session_id = ${s!.id} and event_type = 'session.spawned'`;
    expect(spawned!.payload.host).toBe('host-a');

    a.child.kill('SIGKILL');
    await a.exited;
    expect(processesWith(h.marker)).toContain(s!.pid); // the worker outlives its runner

    // B sweeps the silent runner, takes its job, and hands it to host A instead of running it.
    await waitFor(
      () => h.db.sql`select 1 from dispatch.events where session_id = ${s!.id} and event_type = 'session.handed_over'`,
      (r) => r.length === 1,
      { timeout: 30_000, what: 'host B to hand the job over to host A' },
    );
    const [handed] = await h.db.sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where session_id = ${s!.id} and event_type = 'session.handed_over'`;
    expect(handed!.payload).toMatchObject({ host: 'host-a', by_host: 'host-b' });
    const [still] = await workerSessions(h.db, taskId);
    expect(still).toMatchObject({ status: 'running', host: 'host-a' }); // not closed crashed by B
    expect(processesWith(h.marker)).toContain(s!.pid);
    const spoolB = path.join(h.dirs.B, 'spool');
    expect(fs.existsSync(spoolB) ? fs.readdirSync(spoolB) : []).toEqual([]); // B started nothing

    const a2 = h.runner('A');
    await waitFor(
      () => h.db.sql`select 1 from dispatch.events where session_id = ${s!.id} and event_type = 'session.adopted'`,
      (r) => r.length > 0,
      { timeout: 60_000, what: () => `host A's new runner to re-adopt the worker (${a2.output()})` },
    );
    fs.writeFileSync(hold, '');
    const [done] = await waitFor(
      () => h.db.sql<{ status: string }[]>`select status from dispatch.sessions where id = ${s!.id}`,
      (r) => r[0]?.status === 'success',
      { timeout: 60_000, what: () => `host A's new runner to finish the worker (${a2.output()})` },
    );
    expect(done!.status).toBe('success');
    const sessions = await workerSessions(h.db, taskId);
    expect(sessions.map((x) => x.id)).toEqual([s!.id]); // no duplicate, ever
    const [adopted] = await h.db.sql<{ payload: { runner_id: string; process_alive: boolean } }[]>`
      select payload from dispatch.events where session_id = ${s!.id} and event_type = 'session.adopted' order by seq desc limit 1`;
    expect(adopted!.payload.process_alive).toBe(true);
    expect(adopted!.payload.runner_id).toMatch(/^host-a:/);

    const rows = await h.db.sql<{ line_no: number }[]>`
      select line_no from dispatch.events where session_id = ${s!.id} and line_no is not null order by seq`;
    const spooled = fs.readFileSync(s!.spool_path, 'utf8').split('\n').filter(Boolean);
    expect(spooled).toHaveLength(4002);
    expect(rows.map((r) => r.line_no)).toEqual(spooled.map((_, i) => i));
    const [lost] = await h.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where event_type = 'session.lost'`;
    expect(lost!.n).toBe(0);
  }, 150_000);

  it('with host A never back, the task is retried once, after HOST_LOST_SECONDS of silence from all its runners', async () => {
    const h = await hosts(8, 3000);
    // Host A goes away whole, its runner and its worker, while the worker still prints (killed
    // before host B's runner starts: on a busy machine that start outlasts the worker's lines).
    const { taskId, b } = await submitOnA(h, async (taskId, a) => {
      const [w] = await workerSessions(h.db, taskId);
      a.child.kill('SIGKILL');
      process.kill(-w!.pid!, 'SIGKILL');
      await a.exited;
    });
    const [s] = await workerSessions(h.db, taskId);

    const sessions = await waitFor(
      () => workerSessions(h.db, taskId),
      (r) => r.length === 2 && r[1]!.status === 'success',
      { timeout: 60_000, what: () => `the retry on host B to finish (B: ${b.output()})` },
    );
    expect(sessions[0]).toMatchObject({ host: 'host-a', status: 'crashed', attempt: 1 });
    expect(sessions[0]!.status_reason).toMatch(/^lost: every runner of host host-a silent for \d+ s \(HOST_LOST_SECONDS=8\)$/);
    expect(sessions[1]).toMatchObject({ host: 'host-b', status: 'success', attempt: 2 });

    // Declared lost only after the timeout: A's last heartbeat → session.lost is at least 8 s.
    const [gap] = await h.db.sql<{ s: number }[]>`
      select extract(epoch from (select created_at from dispatch.events where event_type = 'session.lost' and session_id = ${s!.id})
                     - (select max(heartbeat_at) from dispatch.runners where host = 'host-a'))::float as s`;
    expect(gap!.s).toBeGreaterThanOrEqual(8);
    const decisions = await h.db.sql<{ payload: { action: string } }[]>`
      select payload from dispatch.events where task_id = ${taskId} and event_type = 'policy.decision' order by seq`;
    expect(decisions.map((d) => d.payload.action)).toEqual(['retry_same']); // once
    await waitFor(() => workerSessions(h.db, taskId), (r) => r.length === 2, { what: 'no third worker' });
  }, 150_000);
});
