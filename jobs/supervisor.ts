// Runs (or re-adopts) one Claude Code process as a journalled session: spawn with an argument array
// in its own process group, stdout spooled to a file and tailed into the journal while it runs,
// stall and result-without-exit detection, cancel by signal, and a derived status at the end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../core/db/client.ts';
import type { Logger } from '../core/log.ts';
import { JournalWriter } from './journal-writer.ts';
import { SpoolTail } from './spool-tail.ts';
import { redactArgs } from './substrate/claude.ts';
import { LineSplitter } from './substrate/stream-json.ts';
import { deriveStatus, emptyFacts, observeLine, type Derived, type ExitFacts, type StreamFacts } from './substrate/status.ts';

export interface RunnerContext {
  sql: Sql;
  log: Logger;
  runnerId: string;
  host: string;
  dataDir: string;
  stallMs: number;
  resultGraceMs: number;
  killGraceMs: number;
  /** Live sessions of this runner by task id (and session id), so a cancel can reach them. */
  live: Map<string, LiveSession>;
}

export interface LiveSession {
  sessionId: string;
  taskId: string | null;
  terminate(reason: string): void;
}

export interface SessionSpec {
  sessionId: string;
  projectId: string;
  taskId: string | null;
  role: string;
  /** The event that caused this session; its session.spawned nests under it. */
  causeEventId?: string | null;
}

export interface Outcome extends Derived {
  facts: StreamFacts;
  exit: ExitFacts;
  /** The runner is shutting down: the process was left running for the next runner to adopt. */
  detached: boolean;
  durationMs: number;
}

/** Unwritten lines at which the spool tail pauses, and at which it reads again. */
const MAX_BACKLOG = 20_000;
const RESUME_BACKLOG = 5_000;

interface Watch {
  /** Resolves with how the process ended (exitKnown false for an adopted one). */
  ended: Promise<ExitFacts>;
  pid: number;
  kill(signal: NodeJS.Signals): void;
}

export class DetachedError extends Error {
  override name = 'DetachedError';
}

export interface Command {
  bin: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface OpenSessionRow {
  pid: number | null;
  host: string | null;
  spool_path: string | null;
  started_at: Date | null;
}

/**
 * Runs the session: re-adopts its process when one was started already (its runner died or
 * stopped), else starts it with the command (built only then). Throws DetachedError when this
 * runner is stopping, so the job is retried and the next runner adopts the process.
 */
export async function superviseSession(
  ctx: RunnerContext,
  spec: SessionSpec,
  open: OpenSessionRow | undefined,
  command: () => Promise<Command> | Command,
  abort: AbortSignal,
): Promise<Outcome> {
  const outcome = open?.started_at
    ? await adoptSession(ctx, spec, open, abort)
    : await runSession(ctx, spec, await command(), abort);
  if (outcome.detached) throw new DetachedError(`runner stopping: session ${spec.sessionId} left for re-adoption`);
  return outcome;
}

/** Spawns a new process for a session row that exists with status queued. */
export async function runSession(
  ctx: RunnerContext,
  spec: SessionSpec,
  cmd: Command,
  abort: AbortSignal,
): Promise<Outcome> {
  const spoolDir = path.join(ctx.dataDir, 'spool');
  fs.mkdirSync(spoolDir, { recursive: true });
  fs.mkdirSync(cmd.cwd, { recursive: true });
  const spool = path.join(spoolDir, `${spec.sessionId}.stdout`);
  const errSpool = path.join(spoolDir, `${spec.sessionId}.stderr`);
  const out = fs.openSync(spool, 'a');
  const err = fs.openSync(errSpool, 'a');
  const started = Date.now();

  let spawnError: Error | null = null;
  // The session id in the child's environment lets a later runner recognise the process (and never
  // mistake a recycled pid for it).
  const env = { ...cmd.env, [SESSION_ENV]: spec.sessionId };
  const child = spawn(cmd.bin, cmd.args, { cwd: cmd.cwd, env, detached: true, stdio: ['ignore', out, err] });
  fs.closeSync(out);
  fs.closeSync(err);
  const ended = new Promise<ExitFacts>((resolve) => {
    child.once('error', (e) => {
      spawnError = e;
      resolve({ code: null, signal: null, exitKnown: true, endedAfterResult: false });
    });
    child.once('exit', (code, signal) => resolve({ code, signal, exitKnown: true, endedAfterResult: false }));
  });

  if (child.pid === undefined) {
    const exit = await ended;
    const reason = `could not start ${cmd.bin}: ${(spawnError as Error | null)?.message ?? 'unknown error'}`;
    await journalExit(ctx, spec, { status: 'failed', reason }, exit, emptyFacts(), Date.now() - started, tail(errSpool));
    return { status: 'failed', reason, facts: emptyFacts(), exit, detached: false, durationMs: Date.now() - started };
  }
  const pid = child.pid;

  await ctx.sql.begin(async (tx) => {
    await tx`update dispatch.sessions
                set status = 'running', pid = ${pid}, host = ${ctx.host}, runner_id = ${ctx.runnerId},
                    spool_path = ${spool}, started_at = now(), heartbeat_at = now()
              where id = ${spec.sessionId}`;
    // parent_id: what caused this session (the task's submission, retry decision or worker exit).
    await tx`insert into dispatch.events (project_id, session_id, task_id, parent_id, event_type, payload)
             values (${spec.projectId}, ${spec.sessionId}, ${spec.taskId}, ${spec.causeEventId ?? null}, 'session.spawned',
                     ${tx.json({ pid, host: ctx.host, role: spec.role, runner_id: ctx.runnerId, cwd: cmd.cwd, argv: [path.basename(cmd.bin), ...redactArgs(cmd.args)] })})`;
  });
  ctx.log.info(`session ${spec.sessionId} (${spec.role}) started: pid ${pid}`);

  const watch: Watch = { ended, pid, kill: (s) => killGroup(pid, s) };
  return follow(ctx, spec, watch, spool, errSpool, 0, abort, started);
}

/** Takes over a session whose runner went away: follows its spool and waits for its pid. */
export async function adoptSession(
  ctx: RunnerContext,
  spec: SessionSpec,
  row: OpenSessionRow,
  abort: AbortSignal,
): Promise<Outcome> {
  const started = row.started_at?.getTime() ?? Date.now();
  const spool = row.spool_path ?? path.join(ctx.dataDir, 'spool', `${spec.sessionId}.stdout`);
  const errSpool = spool.replace(/\.stdout$/, '.stderr');
  const pid = row.pid;
  const alive = pid !== null && row.host === ctx.host && isAlive(pid) && runsSession(pid, spec.sessionId);
  const [done] = await ctx.sql<{ n: number }[]>`
    select coalesce(max(line_no) + 1, 0)::int as n from dispatch.events where session_id = ${spec.sessionId} and line_no is not null`;

  await ctx.sql.begin(async (tx) => {
    await tx`update dispatch.sessions set runner_id = ${ctx.runnerId}, adopted_by = ${ctx.runnerId}, heartbeat_at = now()
              where id = ${spec.sessionId}`;
    await tx`insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
             values (${spec.projectId}, ${spec.sessionId}, ${spec.taskId}, 'session.adopted',
                     ${tx.json({ runner_id: ctx.runnerId, pid, process_alive: alive, lines_already_journalled: done!.n })})`;
  });
  ctx.log.info(`session ${spec.sessionId} adopted (pid ${pid}, ${alive ? 'alive' : 'gone'})`);

  const unknown: ExitFacts = { code: null, signal: null, exitKnown: false, endedAfterResult: false };
  const ended = alive
    ? new Promise<ExitFacts>((resolve) => {
        const t = setInterval(() => {
          if (!isAlive(pid!)) {
            clearInterval(t);
            resolve(unknown);
          }
        }, 100);
      })
    : Promise.resolve(unknown);
  if (!fs.existsSync(spool)) fs.writeFileSync(spool, '');
  const watch: Watch = { ended, pid: pid ?? -1, kill: (s) => (alive ? killGroup(pid!, s) : undefined) };
  return follow(ctx, spec, watch, spool, errSpool, done!.n, abort, started);
}

async function follow(
  ctx: RunnerContext,
  spec: SessionSpec,
  watch: Watch,
  spool: string,
  errSpool: string,
  skipLines: number,
  abort: AbortSignal,
  started: number,
): Promise<Outcome> {
  const facts = emptyFacts();
  // Backpressure: past MAX_BACKLOG unwritten lines (Postgres slow or restarting) the tail stops
  // reading; the bytes wait in the spool file, so memory stays bounded and nothing is lost.
  let spoolTail: SpoolTail | null = null;
  const writer = new JournalWriter(ctx.sql, spec, {
    firstLineNo: skipLines,
    onRetry: (e, n) => ctx.log.warn(`journal write for ${spec.sessionId} failed (attempt ${n}), retrying: ${(e as Error).message}`),
    onProgress: () => {
      if (writer.backlog < RESUME_BACKLOG) spoolTail?.kick();
    },
  });
  let seen = 0;
  let lastOutput = Date.now();
  let stalled = false;
  let endedAfterResult = false;
  let resultTimer: NodeJS.Timeout | null = null;
  let killTimer: NodeJS.Timeout | null = null;
  let statusWrites = Promise.resolve();
  const queueStatus = (fn: () => Promise<unknown>) => {
    statusWrites = statusWrites.then(fn).then(
      () => {},
      (e) => ctx.log.warn(`status write for ${spec.sessionId} failed: ${(e as Error).message}`),
    );
  };

  const terminate = (reason: string) => {
    ctx.log.info(`session ${spec.sessionId}: terminating (${reason})`);
    watch.kill('SIGTERM');
    killTimer ??= setTimeout(() => watch.kill('SIGKILL'), ctx.killGraceMs);
  };

  const splitter = new LineSplitter((line) => {
    observeLine(facts, line);
    if (seen++ < skipLines) return; // journalled before this runner took over
    writer.push(line);
    if (facts.resultSeen && !resultTimer && !endedAfterResult) {
      resultTimer = setTimeout(() => {
        endedAfterResult = true;
        terminate(`result arrived but the process did not exit within ${ctx.resultGraceMs} ms`);
      }, ctx.resultGraceMs);
    }
  });
  spoolTail = new SpoolTail(
    spool,
    (chunk) => {
      lastOutput = Date.now();
      if (stalled) {
        stalled = false;
        queueStatus(() => markStall(ctx, spec, false, 0));
      }
      splitter.push(chunk);
    },
    200,
    () => writer.backlog < MAX_BACKLOG,
  );
  spoolTail.start();

  const stallCheck = setInterval(() => {
    const silent = Date.now() - lastOutput;
    if (!stalled && silent >= ctx.stallMs) {
      stalled = true;
      queueStatus(() => markStall(ctx, spec, true, silent));
    }
  }, Math.max(50, Math.min(1000, ctx.stallMs / 4)));

  const live: LiveSession = { sessionId: spec.sessionId, taskId: spec.taskId, terminate };
  ctx.live.set(spec.sessionId, live);
  if (spec.taskId) ctx.live.set(spec.taskId, live);

  let onAbort = () => {};
  const detachedSignal = new Promise<'detach'>((resolve) => {
    onAbort = () => resolve('detach');
    if (abort.aborted) resolve('detach');
    abort.addEventListener('abort', onAbort, { once: true });
  });

  try {
    const first = await Promise.race([watch.ended, detachedSignal]);
    if (first === 'detach') {
      // No drain: the process may still be writing. The next runner reads on from the last
      // journalled line.
      await writer.flush();
      await statusWrites;
      ctx.log.info(`session ${spec.sessionId}: runner stopping, process ${watch.pid} left for the next runner`);
      return {
        status: 'crashed',
        reason: 'detached',
        facts,
        exit: { code: null, signal: null, exitKnown: false, endedAfterResult: false },
        detached: true,
        durationMs: Date.now() - started,
      };
    }
    const exit: ExitFacts = { ...first, endedAfterResult };
    await spoolTail.drain(() => writer.room(RESUME_BACKLOG));
    splitter.end();
    await writer.flush();
    await statusWrites;
    if (watch.pid > 0) killGroup(watch.pid, 'SIGKILL'); // whatever the process left behind (tool subprocesses)
    const derived = deriveStatus(facts, exit);
    const durationMs = Date.now() - started;
    await journalExit(ctx, spec, derived, exit, facts, durationMs, tail(errSpool));
    ctx.log.info(`session ${spec.sessionId} (${spec.role}) ended ${derived.status}: ${derived.reason}`);
    return { ...derived, facts, exit, detached: false, durationMs };
  } finally {
    abort.removeEventListener('abort', onAbort);
    await spoolTail.stop();
    clearInterval(stallCheck);
    if (resultTimer) clearTimeout(resultTimer);
    if (killTimer) clearTimeout(killTimer);
    ctx.live.delete(spec.sessionId);
    if (spec.taskId && ctx.live.get(spec.taskId) === live) ctx.live.delete(spec.taskId);
  }
}

async function markStall(ctx: RunnerContext, spec: SessionSpec, stalled: boolean, silentMs: number): Promise<void> {
  await ctx.sql.begin(async (tx) => {
    await tx`update dispatch.sessions set stalled = ${stalled}, status = ${stalled ? 'stalled' : 'running'}
              where id = ${spec.sessionId} and ended_at is null`;
    await tx`insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
             values (${spec.projectId}, ${spec.sessionId}, ${spec.taskId}, ${stalled ? 'session.stalled' : 'session.resumed'},
                     ${tx.json(stalled ? { silent_for_ms: silentMs, threshold_ms: ctx.stallMs } : {})})`;
    if (spec.taskId && spec.role === 'worker') {
      await tx`select dispatch.set_task_status(${spec.taskId}, ${stalled ? 'stalled' : 'running'},
                 ${stalled ? `no output for ${Math.round(silentMs / 1000)} s` : 'output resumed'})`;
    }
  });
}

async function journalExit(
  ctx: RunnerContext,
  spec: SessionSpec,
  derived: Derived,
  exit: ExitFacts,
  facts: StreamFacts,
  durationMs: number,
  stderrTail: string,
): Promise<void> {
  await ctx.sql.begin(async (tx) => {
    await tx`update dispatch.sessions
                set status = ${derived.status}, status_reason = ${derived.reason}, exit_code = ${exit.code},
                    signal = ${exit.signal}, ended_at = now(), stalled = false,
                    claude_session_id = coalesce(claude_session_id, ${facts.claudeSessionId})
              where id = ${spec.sessionId}`;
    if (stderrTail) {
      await tx`insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
               values (${spec.projectId}, ${spec.sessionId}, ${spec.taskId}, 'stderr.tail', ${tx.json({ text: stderrTail })})`;
    }
    await tx`insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
             values (${spec.projectId}, ${spec.sessionId}, ${spec.taskId}, 'session.exited',
                     ${tx.json({
                       role: spec.role,
                       status: derived.status,
                       reason: derived.reason,
                       exit_code: exit.code,
                       signal: exit.signal,
                       exit_known: exit.exitKnown,
                       ended_after_result: exit.endedAfterResult,
                       duration_ms: durationMs,
                       lines: facts.lines,
                       claude_session_id: facts.claudeSessionId,
                     })})`;
  });
}

function tail(file: string, max = 4000): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.length > max ? text.slice(-max) : text;
  } catch {
    return '';
  }
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

export const SESSION_ENV = 'PETAL_DISPATCH_SESSION';

/** Whether the process is the one started for this session (its environment names the session). */
export function runsSession(pid: number, sessionId: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${SESSION_ENV}=${sessionId}`);
  } catch {
    return process.platform !== 'linux' && isAlive(pid); // no /proc: trust the pid
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
