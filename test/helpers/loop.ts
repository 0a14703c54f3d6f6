// A running execution loop for tests: a fresh database, the scripted model, and a job runner whose
// claude processes are the real CLI talking to that model.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config.ts';
import type { Logger } from '../../core/log.ts';
import { createLogger } from '../../core/log.ts';
import { startRunner, type StartedRunner } from '../../jobs/runner.ts';
import { claudeBin } from '../../jobs/substrate/claude.ts';
import { startScriptedModel, type Scenario, type ScriptedModel } from '../../fixtures/scripted-model/server.ts';
import { listen, startTestApp, type TestApp } from './app.ts';
import { processesWith } from './marked-processes.ts';
import { createTestDb, waitFor, type TestDb } from './db.ts';
import { defer } from './teardown.ts';
import { claudeEnv } from './claude-env.ts';

export interface LoopOptions {
  scenarios: Scenario[];
  env?: Record<string, string>;
  /** A fault-injection wrapper from test/fakes around the real CLI. */
  wrapper?: string;
  log?: boolean;
  /**
   * Serve the app (the API, /mcp and the gate hook's /hooks/gate) on a loopback port; the runner's
   * MCP and gate URLs point at it. On by default: a worker's gate hook fails closed without it.
   */
  serve?: boolean;
  /** The served app's environment (with `serve: true`). */
  serveEnv?: Record<string, string>;
  /** The runners' clock for schedules (move it on instead of waiting for a minute to pass). */
  now?: () => Date;
}

export interface Loop {
  db: TestDb;
  model: ScriptedModel;
  runner: StartedRunner;
  dataDir: string;
  /** Set in every child's environment, to find leftover processes. */
  marker: string;
  /** The served app's base URL, with `serve: true`. */
  url?: string;
  /** The served app and its socket (stop it to make dispatch unreachable; listen again on the same port). */
  app?: TestApp;
  http?: { url: string; close(): Promise<void> };
  project(name: string, config?: Record<string, unknown>): Promise<string>;
  submit(projectId: string, brief: string, approach?: string): Promise<string>;
  /** POSTs the person's message to the served app (as the phone does); its message_id. */
  message(projectId: string, text: string): Promise<string>;
  waitTask(taskId: string, status: string | string[], timeout?: number): Promise<TaskState>;
  /**
   * Stops the runner the way a restart does (its live processes are left running, their jobs fail
   * as detached) and starts another with the same config, which re-adopts them; `runner` is then
   * the new one.
   */
  restart(): Promise<StartedRunner>;
  /** A second runner on the same database and data folder (two runners racing for the same jobs); stopped with the loop. */
  anotherRunner(): Promise<StartedRunner>;
  stop(): Promise<void>;
}

export interface TaskState {
  status: string;
  status_reason: string | null;
  attempt: number;
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export async function startLoop(opts: LoopOptions): Promise<Loop> {
  const db = await createTestDb();
  let url: string | undefined;
  let app: TestApp | undefined;
  let http: { url: string; close(): Promise<void> } | undefined;
  if (opts.serve ?? true) {
    app = await startTestApp(opts.serveEnv ?? {}, db);
    http = await listen(app);
    url = http.url;
  }
  const model = await startScriptedModel(opts.scenarios);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-loop-'));
  defer(() => fs.rmSync(dataDir, { recursive: true, force: true }), `remove ${dataDir}`);
  const marker = randomUUID();
  const config = loadConfig({
    DISPATCH_DATA_DIR: dataDir,
    STALL_SECONDS: '120',
    RESULT_GRACE_SECONDS: '30',
    KILL_GRACE_SECONDS: '3',
    WORKER_CONCURRENCY: '4',
    ...(url ? { PUBLIC_URL: url } : {}),
    ...opts.env,
  });
  // The developer's own CLAUDE_BIN / REAL_CLAUDE_BIN must not replace the real CLI under test.
  const { CLAUDE_BIN: _ownBin, REAL_CLAUDE_BIN: _ownReal, ...inherited } = process.env;
  const childEnv: NodeJS.ProcessEnv = { ...inherited, ...claudeEnv(model.url, dataDir, marker) };
  if (opts.wrapper) {
    childEnv.REAL_CLAUDE_BIN = claudeBin();
    childEnv.CLAUDE_BIN = path.resolve('test/fakes', opts.wrapper);
  }
  const runnerOptions = { url: db.url, sql: db.sql, config, log: opts.log ? createLogger('debug', 'test') : silent, childEnv, now: opts.now };
  let runner = await startRunner(runnerOptions);
  const others: StartedRunner[] = [];

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(others.map((r) => r.stop()));
    await runner.stop();
    await model.close();
  };
  defer(async () => {
    await stop();
    // A process signalled by stop() may take a moment to be gone on a loaded machine: wait for it
    // (up to 10 s), then fail naming what is left.
    const left = await waitFor(() => processesWith(marker), (p) => p.length === 0, { timeout: 10_000, what: 'the loop processes to exit' }).catch(() =>
      processesWith(marker),
    );
    if (left.length) throw new Error(`the loop's processes outlived runner.stop(): ${left.map((pid) => describe(pid)).join('; ')}`);
  }, 'stop the loop');

  return {
    db,
    model,
    get runner() {
      return runner;
    },
    dataDir,
    marker,
    url,
    app,
    http,
    async project(name, cfg = {}) {
      const [r] = await db.sql<{ id: string }[]>`select dispatch.create_project(${name}, ${db.sql.json(cfg as Record<string, never>)}) as id`;
      return r!.id;
    },
    async submit(projectId, brief, approach) {
      const [r] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${projectId}, ${brief}, ${approach ?? null}) as id`;
      return r!.id;
    },
    async message(projectId, text) {
      if (!url) throw new Error('loop.message needs the served app (serve: true)');
      const message_id = randomUUID();
      const res = await fetch(`${url}/api/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: projectId, text, message_id }),
      });
      if (res.status !== 201) throw new Error(`POST /api/messages answered ${res.status}: ${await res.text()}`);
      return message_id;
    },
    // Generous: a worker and its extractor are two real claude processes, seconds of CPU each on a
    // busy 2-core machine. The wait ends as soon as the status is reached.
    async waitTask(taskId, status, timeout = 90_000) {
      const want = Array.isArray(status) ? status : [status];
      return waitFor(
        async () => (await db.sql<TaskState[]>`select status, status_reason, attempt from dispatch.tasks where id = ${taskId}`)[0]!,
        (t) => want.includes(t.status),
        { timeout, what: `task ${taskId} to reach ${want.join('|')}` },
      );
    },
    async anotherRunner() {
      const r = await startRunner(runnerOptions);
      others.push(r);
      return r;
    },
    async restart() {
      await runner.stop();
      runner = await startRunner(runnerOptions);
      return runner;
    },
    stop,
  };
}

function describe(pid: number): string {
  try {
    return `${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').slice(0, 160)}`;
  } catch {
    return String(pid);
  }
}

export async function eventsOf(db: TestDb, taskId: string) {
  return db.sql<{ seq: number; event_id: string; event_type: string; tier: string; parent_id: string | null; session_id: string | null; payload: Record<string, unknown> }[]>`
    select seq, event_id, event_type, tier, parent_id, session_id, payload from dispatch.events where task_id = ${taskId} order by seq`;
}
