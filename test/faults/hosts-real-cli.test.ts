// The real-CLI twins of the multi-process fault tests (two-hosts.test.ts and processes.test.ts keep
// the volume with the firehose): workers are the real `claude` CLI paced by the scripted model, each
// held at a model gate while the fault happens. Two hosts on one Postgres: host A's runner killed
// with SIGKILL, host B hands the job back instead of starting a duplicate, A's runner restarted
// adopts the live worker, which ends success with its extractor and handoff. Two `serve` and two
// `work` processes: real workers spread over both runners, both servers stream the same sequence.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startScriptedModel, type Scenario } from '../../fixtures/scripted-model/server.ts';
import { claudeEnv } from '../helpers/claude-env.ts';
import { createTestDb, waitFor, type TestDb } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, startEntry, startServer, type Started } from '../helpers/process.ts';
import { connectSse } from '../helpers/sse.ts';
import { defer, tempDir } from '../helpers/teardown.ts';

const handoff = { goal: 'Answer', current_state: 'Answered', next_step: 'Nothing', ruled_out: [] };

/** Workers whose brief holds `marker` answer only once the test releases `gate` (no tool: no hook to call). */
const held = (gate: string, marker: string): Scenario => ({
  name: `held-${gate}`,
  description: '',
  conversations: [
    { match: 'handoff extractor', steps: [{ text: '```json\n' + JSON.stringify(handoff) + '\n```', chunks: 1, delay_ms: 0 }] },
    { match: marker, steps: [{ text: `${marker}: answered.`, chunks: 4, delay_ms: 0, gate }] },
  ],
});

const workerSessions = (db: TestDb, taskIds: string[]) =>
  db.sql<{ id: string; task_id: string; host: string; pid: number | null; status: string; spool_path: string; runner_id: string }[]>`
    select id, task_id, host, pid, status, spool_path, runner_id from dispatch.sessions
     where task_id = any(${taskIds}::uuid[]) and role = 'worker' order by created_at`;

/** The session's journalled lines are exactly its spool file: every line once, in order. */
async function journalIsSpool(db: TestDb, session: { id: string; spool_path: string }): Promise<void> {
  const rows = await db.sql<{ line_no: number; payload: unknown }[]>`
    select line_no, payload from dispatch.events where session_id = ${session.id} and line_no is not null order by seq`;
  const spooled = fs.readFileSync(session.spool_path, 'utf8').split('\n').filter(Boolean);
  expect(spooled.length).toBeGreaterThan(2);
  expect(rows.map((r) => r.line_no)).toEqual(spooled.map((_, i) => i));
  expect(rows.map((r) => r.payload)).toEqual(spooled.map((l) => JSON.parse(l)));
}

describe('two hosts on one Postgres, with a real claude worker', () => {
  it('host B hands the job back instead of starting a duplicate; A restarted adopts the live worker, which ends success with its handoff', async () => {
    const db = await createTestDb();
    const model = await startScriptedModel([held('two-hosts', 'HOSTS-ANSWER')]);
    defer(() => model.close(), 'close the scripted model');
    const marker = randomUUID();
    const dirs = { A: tempDir('pd-real-host-a-'), B: tempDir('pd-real-host-b-') };
    const runner = (host: 'A' | 'B'): Started =>
      startEntry(
        'bin/main.ts',
        cleanEnv({
          DATABASE_URL: db.url,
          DISPATCH_DATA_DIR: dirs[host],
          RUNNER_HOST_ID: `host-${host.toLowerCase()}`,
          RUNNER_STALE_SECONDS: '2',
          HOST_LOST_SECONDS: '600',
          LOG_LEVEL: 'info',
          ...claudeEnv(model.url, dirs[host], marker),
        }),
        ['work'],
      );

    const a = runner('A');
    await waitFor(() => db.sql`select 1 from dispatch.runners where host = 'host-a'`, (r) => r.length === 1, { what: () => `runner A (${a.output()})` });
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('two real hosts') as id`;
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'HOSTS-ANSWER: answer when asked.') as id`;
    const taskId = t!.id;
    await model.atGate('two-hosts');
    const [s] = await waitFor(() => workerSessions(db, [taskId]), (r) => r.length === 1 && r[0]!.pid !== null, { what: 'the worker on host A' });
    expect(s!.host).toBe('host-a');

    a.child.kill('SIGKILL');
    await a.exited;
    expect(processesWith(marker)).toContain(s!.pid); // the worker outlives its runner

    const b = runner('B');
    await waitFor(
      () => db.sql`select 1 from dispatch.events where session_id = ${s!.id} and event_type = 'session.handed_over'`,
      (r) => r.length === 1,
      { timeout: 60_000, what: () => `host B to hand the job over to host A (${b.output()})` },
    );
    expect(await workerSessions(db, [taskId])).toEqual([expect.objectContaining({ id: s!.id, status: 'running', host: 'host-a' })]);
    expect(fs.existsSync(`${dirs.B}/spool`) ? fs.readdirSync(`${dirs.B}/spool`) : []).toEqual([]); // B started nothing

    const a2 = runner('A');
    const [adopted] = await waitFor(
      () => db.sql<{ payload: { process_alive: boolean; runner_id: string } }[]>`
        select payload from dispatch.events where session_id = ${s!.id} and event_type = 'session.adopted' order by seq desc limit 1`,
      (r) => r.length === 1,
      { timeout: 60_000, what: () => `host A's new runner to adopt the worker (${a2.output()})` },
    );
    expect(adopted!.payload).toMatchObject({ process_alive: true, runner_id: expect.stringMatching(/^host-a:/) });

    model.release('two-hosts');
    await waitFor(
      () => db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${taskId}`,
      (r) => r[0]?.status === 'success',
      { timeout: 60_000, what: () => `the task to succeed on host A (${a2.output()})` },
    );
    const sessions = await workerSessions(db, [taskId]);
    expect(sessions.map((x) => x.id)).toEqual([s!.id]); // no duplicate, ever
    await journalIsSpool(db, s!);
    const [h] = await db.sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where task_id = ${taskId} and event_type = 'handoff'`;
    expect(h!.payload).toMatchObject({ goal: 'Answer' });
    const [lost] = await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where event_type = 'session.lost'`;
    expect(lost!.n).toBe(0);

    for (const r of [b, a2]) r.child.kill('SIGTERM');
    await Promise.all([b.exited, a2.exited]);
    expect(processesWith(marker)).toEqual([]);
  }, 180_000);
});

describe('two serve and two work processes on one database, with real claude workers', () => {
  it('spread four held workers over both runners, and both servers stream the identical sequence', async () => {
    const db = await createTestDb();
    const model = await startScriptedModel([held('spread', 'SPREAD-ANSWER')]);
    defer(() => model.close(), 'close the scripted model');
    const dataDir = tempDir('pd-real-scale-');
    const marker = randomUUID();
    const env = (extra: Record<string, string> = {}) =>
      cleanEnv({ DATABASE_URL: db.url, DISPATCH_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...claudeEnv(model.url, dataDir, marker), ...extra });
    const servers = await Promise.all([0, 1].map(() => startServer(env())));
    // Two workers at most each: four held workers can only all run if both runners take two.
    const runners = [0, 1].map(() => startEntry('bin/main.ts', env({ WORKER_CONCURRENCY: '2' }), ['work']));
    await waitFor(() => db.sql`select 1 from dispatch.runners where stopped_at is null`, (r) => r.length === 2, { timeout: 30_000, what: 'two runners' });
    const [{ start: from } = { start: 0 }] = await db.sql<{ start: number }[]>`select coalesce(max(seq), 0) as start from dispatch.events`;
    const seen: number[][] = [[], []];
    const conns = await Promise.all(servers.map((s, k) => connectSse(`${s.url}/api/stream`, (e) => seen[k]!.push(Number(e.id)), { lastEventId: from })));

    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('real scale out') as id`;
    const tasks: string[] = [];
    for (let i = 0; i < 4; i++) tasks.push((await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, ${`SPREAD-ANSWER ${i}: answer when asked.`}) as id`)[0]!.id);
    const running = await waitFor(
      () => workerSessions(db, tasks),
      (r) => r.length === 4 && r.every((x) => x.pid !== null),
      { timeout: 90_000, what: () => `four workers running (${runners.map((r) => r.output()).join('\n')})` },
    );
    expect(new Set(running.map((x) => x.runner_id)).size).toBe(2);
    model.release('spread');
    await waitFor(
      () => db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.tasks where id = any(${tasks}::uuid[]) and status = 'success'`,
      (r) => r[0]!.n === 4,
      { timeout: 120_000, what: 'four tasks to succeed' },
    );
    for (const s of await workerSessions(db, tasks)) await journalIsSpool(db, s);

    const all = (await db.sql<{ seq: number }[]>`select seq from dispatch.events where seq > ${from} order by seq`).map((r) => r.seq);
    await waitFor(() => Math.min(seen[0]!.length, seen[1]!.length), (n) => n >= all.length, { timeout: 30_000, what: 'both streams to catch up' });
    for (const c of conns) c.abort();
    expect(seen[0]!.slice(0, all.length)).toEqual(all);
    expect(seen[1]!.slice(0, all.length)).toEqual(all);

    for (const s of [...servers, ...runners]) s.child.kill('SIGTERM');
    await Promise.all([...servers, ...runners].map((s) => s.exited));
    expect(processesWith(marker)).toEqual([]);
  }, 240_000);
});
