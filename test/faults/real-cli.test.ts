// The fault tests with the real `claude` CLI (the firehose tests keep the volume): a worker paced by
// the scripted model (its answer is held at a gate while the fault happens), with its extractor and
// handoff. kill -9 of the whole dispatch process: the worker outlives it, the next dispatch adopts it
// while it is alive, and it keeps writing after adoption. Postgres restarted while the worker
// prints: every line it printed during the outage lands once, the extractor runs, the handoff holds.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { createSql } from '../../core/db/client.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/db/embedded.ts';
import { migrateAll } from '../../core/db/migrate.ts';
import { startScriptedModel, type Scenario } from '../../fixtures/scripted-model/server.ts';
import { startRunner } from '../../jobs/runner.ts';
import { listen, startTestApp } from '../helpers/app.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { cleanEnv, startServer } from '../helpers/process.ts';
import { defer, tempDir } from '../helpers/teardown.ts';
import { claudeEnv } from '../helpers/claude-env.ts';

const handoff = { goal: 'Count to three', current_state: 'Counted to three', next_step: 'Nothing', ruled_out: [] };

/**
 * A worker that runs one tool and a second one, then ends; its answer after the first tool (or, with
 * `gateLast`, its final answer) is held at `gate`. Every tool call goes through dispatch's gate hook,
 * so a fault window with the database down holds no tool call (gateLast).
 */
function counting(gate: string, marker: string, gateLast = false): Scenario {
  return {
    name: `real-cli-${gate}`,
    description: '',
    conversations: [
      { match: 'handoff extractor', steps: [{ text: '```json\n' + JSON.stringify(handoff) + '\n```', chunks: 1, delay_ms: 0 }] },
      {
        match: marker,
        steps: [
          { tool_use: { name: 'Bash', input: { command: 'echo one', description: 'first' } } },
          { tool_use: { name: 'Bash', input: { command: 'echo two; echo three', description: 'second' } }, ...(gateLast ? {} : { gate }) },
          { text: `${marker}: counted to three.`, chunks: 4, delay_ms: 0, ...(gateLast ? { gate } : {}) },
        ],
      },
    ],
  };
}

const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'latin1'));

interface Row {
  line_no: number;
  payload: unknown;
}

function expectJournalIsSpool(rows: Row[], spoolPath: string): string[] {
  const spooled = fs.readFileSync(spoolPath, 'utf8').split('\n').filter(Boolean);
  expect(rows.map((r) => r.line_no)).toEqual(spooled.map((_, i) => i));
  expect(rows.map((r) => r.payload)).toEqual(spooled.map((l) => JSON.parse(l)));
  return spooled;
}

describe('kill -9 of dispatch with a real claude worker', () => {
  it('the next dispatch adopts the live worker, which keeps writing; every line once; extractor and handoff run', async () => {
    const db = await createTestDb();
    const model = await startScriptedModel([counting('after-kill', 'KILL-COUNT')]);
    defer(() => model.close(), 'close the scripted model');
    const dataDir = tempDir('pd-real-kill9-');
    const marker = randomUUID();
    const env = cleanEnv({ DATABASE_URL: db.url, DISPATCH_DATA_DIR: dataDir, ...claudeEnv(model.url, dataDir, marker) });
    // serve + work, as `npm start`, on a port the system picks (PORT=0): the worker's gate hook must
    // still call dispatch back at it. The restart comes back on that same port.
    const first = await startServer(env, []);
    const port = Number(new URL(first.url).port);
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('real kill', '{"allowed_tools":["Bash"]}') as id`;
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'KILL-COUNT: count to three.') as id`;
    const taskId = t!.id;

    // The worker ran its first tool and now waits on the model: kill dispatch under it.
    await model.atGate('after-kill');
    const [s] = await waitFor(
      () => db.sql<{ id: string; pid: number; spool_path: string }[]>`
        select id, pid, spool_path from dispatch.sessions where task_id = ${taskId} and role = 'worker' and pid is not null`,
      (rows) => rows.length === 1,
      { what: 'the worker session' },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    expect(alive(s!.pid)).toBe(true); // the worker outlived dispatch
    expect(processesWith(marker)).toContain(s!.pid);

    const second = await startServer(env, [], { port });
    const [adopted] = await waitFor(
      () => db.sql<{ payload: { pid: number; process_alive: boolean; lines_already_journalled: number } }[]>`
        select payload from dispatch.events where session_id = ${s!.id} and event_type = 'session.adopted'`,
      (rows) => rows.length === 1,
      { timeout: 30_000, what: () => `the adoption (${second.output()})` },
    );
    // Adopted alive: the same process, still running, and still held by the model.
    expect(adopted!.payload).toMatchObject({ pid: s!.pid, process_alive: true });
    expect(alive(s!.pid)).toBe(true);
    const before = adopted!.payload.lines_already_journalled;

    model.release('after-kill');
    await waitFor(
      () => db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${taskId}`,
      (rows) => rows[0]?.status === 'success',
      { timeout: 60_000, what: () => `the task to succeed after adoption (${second.output()})` },
    );

    const rows = await db.sql<Row[]>`
      select line_no, payload from dispatch.events where session_id = ${s!.id} and line_no is not null order by seq`;
    const spooled = expectJournalIsSpool(rows, s!.spool_path);
    // It kept writing after adoption: its second tool's output and its result came after, through the new runner.
    const after = spooled.slice(before).join('\n');
    expect(spooled.length).toBeGreaterThan(before);
    expect(after).toContain('two\\nthree');
    expect(after).toContain('"type":"result"');

    const own = await db.sql<{ event_type: string; payload: Record<string, unknown> }[]>`
      select event_type, payload from dispatch.events where session_id = ${s!.id} and line_no is null order by seq`;
    expect(own.map((r) => r.event_type)).toEqual(expect.arrayContaining(['session.spawned', 'session.adopted', 'session.exited', 'handoff']));
    expect(own.find((r) => r.event_type === 'handoff')!.payload).toMatchObject({ goal: 'Count to three' });
    const [extractor] = await db.sql<{ status: string }[]>`select status from dispatch.sessions where task_id = ${taskId} and role = 'extractor'`;
    expect(extractor).toEqual({ status: 'success' });

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(processesWith(marker)).toEqual([]);
  });
});

describe('Postgres restarted under a real claude worker', () => {
  it('the lines it printed during the outage land once; extractor and handoff run after', async () => {
    const dir = tempDir('pd-real-pg-');
    fs.chmodSync(dir, 0o755);
    let pg: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), fast: true });
    defer(() => pg.stop(), 'stop the embedded Postgres');
    const sql = createSql(pg.url, { max: 8 });
    defer(() => sql.end({ timeout: 2 }), 'close the pool');
    await migrateAll(sql, pg.url);
    const model = await startScriptedModel([counting('pg-down', 'PG-COUNT', true)]);
    defer(() => model.close(), 'close the scripted model');
    const marker = randomUUID();
    const dataDir = path.join(dir, 'data');
    const { CLAUDE_BIN: _own, ...inherited } = process.env;
    // The API (and the gate hook's /hooks/gate) served on a port the OS picked.
    const { url } = await listen(await startTestApp({}, { url: pg.url, sql }));
    const runner = await startRunner({
      url: pg.url,
      sql,
      config: loadConfig({ DISPATCH_DATA_DIR: dataDir, KILL_GRACE_SECONDS: '2', PUBLIC_URL: url }),
      log: { debug() {}, info() {}, warn() {}, error() {} },
      childEnv: { ...inherited, ...claudeEnv(model.url, dataDir, marker) },
    });
    defer(() => runner.stop(), 'stop the runner');
    const retrying = async <T>(fn: () => Promise<T>): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fn();
        } catch (err) {
          if (attempt >= 5) throw err; // a pooled connection the restart killed
        }
      }
    };

    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('real pg', '{"allowed_tools":["Bash"]}') as id`;
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'PG-COUNT: count to three.') as id`;
    await model.atGate('pg-down');
    const [s] = await sql<{ id: string; pid: number; spool_path: string }[]>`
      select id, pid, spool_path from dispatch.sessions where task_id = ${t!.id} and role = 'worker'`;
    const spooled = () => fs.readFileSync(s!.spool_path, 'utf8').split('\n').filter(Boolean);

    await pg.stop();
    const atStop = spooled().length;
    model.release('pg-down');
    // With the database down the worker finishes its turn: its result line reaches the spool and it exits.
    await waitFor(() => spooled().some((l) => l.includes('"type":"result"')), Boolean, { what: 'the result printed during the outage' });
    await waitFor(() => alive(s!.pid), (a) => !a, { what: 'the worker to exit during the outage' });
    const printedDuringOutage = spooled().length - atStop;
    expect(printedDuringOutage).toBeGreaterThan(0);
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), fast: true, port: pg.port });

    await waitFor(
      () => sql<{ status: string }[]>`select status from dispatch.tasks where id = ${t!.id}`.catch(() => []),
      (rows) => rows[0]?.status === 'success',
      { timeout: 60_000, what: 'the task to succeed after the restart' },
    );
    const rows = await retrying(() => sql<Row[]>`
      select line_no, payload from dispatch.events where session_id = ${s!.id} and line_no is not null order by seq`);
    const all = expectJournalIsSpool(rows, s!.spool_path);
    expect(all.slice(atStop).join('\n')).toContain('PG-COUNT: counted to three.'); // printed while the database was down
    const [h] = await retrying(() => sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where task_id = ${t!.id} and event_type = 'handoff'`);
    expect(h!.payload).toMatchObject({ goal: 'Count to three' });
    const [extractor] = await retrying(() => sql<{ status: string }[]>`select status from dispatch.sessions where task_id = ${t!.id} and role = 'extractor'`);
    expect(extractor).toEqual({ status: 'success' });
    await runner.stop();
    expect(processesWith(marker)).toEqual([]);
  });
});
