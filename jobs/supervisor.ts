// Runs (or re-adopts) one process as a journalled session, top to bottom: start it (or find the one
// a previous runner started), follow its stdout into the journal (session/line-pipeline.ts), keep
// its clocks (session/watchdog.ts), and when it ends derive its status from what it said and how it
// ended (the substrate) and report it (session/lifecycle.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from '../core/db/client.ts';
import type { Logger } from '../core/log.ts';
import { isAlive, killGroup, runsSession, SESSION_ENV, spawnGroup, whenGone } from '../core/process.ts';
import { rateLimited, sessionAdopted, sessionExited, sessionResumed, sessionStalled, sessionStarted, StatusWrites } from './session/lifecycle.ts';
import { cancelRequested } from './session/cancels.ts';
import { LinePipeline } from './session/line-pipeline.ts';
import { Watchdog } from './session/watchdog.ts';
import { workdirFault } from '../core/workdir.ts';
import { emptyFacts, type Derived, type ExitFacts, type Intent, type StreamFacts, type Substrate } from './substrate/port.ts';

export interface RunnerContext {
  sql: Sql;
  log: Logger;
  runnerId: string;
  host: string;
  dataDir: string;
  stallMs: number;
  resultGraceMs: number;
  killGraceMs: number;
  /** The agent runtime that runs the sessions. */
  substrate: Substrate;
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

export class DetachedError extends Error {
  override name = 'DetachedError';
}

/** The session's process was started on another host: only a runner there may adopt, signal or close it. */
export class ForeignHostError extends Error {
  override name = 'ForeignHostError';
  constructor(
    readonly sessionId: string,
    readonly host: string,
  ) {
    super(`session ${sessionId} runs on host ${host}`);
  }
}

export interface OpenSessionRow {
  pid: number | null;
  host: string | null;
  spool_path: string | null;
  started_at: Date | null;
  /** Journalled as stalled (by the runner that went away): not reported again, its resume is. */
  stalled?: boolean;
}

/** The process a session follows: how it ends and how to signal it. */
interface Proc {
  /** Resolves with how the process ended (exitKnown false for an adopted one). */
  ended: Promise<ExitFacts>;
  pid: number;
  kill(signal: NodeJS.Signals): void;
  /** Stops watching the process (it may live on, for the next runner). */
  release(): void;
}

/**
 * Runs the session: re-adopts its process when one was started already (its runner died or
 * stopped), else starts one for the intent (built only then). Throws DetachedError when this
 * runner is stopping, so the job is retried and the next runner adopts the process.
 */
export async function superviseSession(
  ctx: RunnerContext,
  spec: SessionSpec,
  open: OpenSessionRow | undefined,
  intent: () => Promise<Intent> | Intent,
  abort: AbortSignal,
): Promise<Outcome> {
  // A pid and a spool mean something only on the host that started them: elsewhere a live process
  // would look gone, be closed crashed and retried while it still runs.
  if (open?.started_at && open.host && open.host !== ctx.host) throw new ForeignHostError(spec.sessionId, open.host);
  // Asked to stop before its process started (while no runner held it, so no NOTIFY reached one):
  // it ends cancelled without one.
  if (!open?.started_at && (await cancelRequested(ctx.sql, spec))) return cancelledBeforeStart(ctx, spec);
  const outcome = open?.started_at
    ? await adoptSession(ctx, spec, open, abort)
    : await runSession(ctx, spec, await intent(), abort);
  if (outcome.detached) throw new DetachedError(`runner stopping: session ${spec.sessionId} left for re-adoption`);
  return outcome;
}

/** Ends a session whose stop was requested before its process started: cancelled, no process. */
async function cancelledBeforeStart(ctx: RunnerContext, spec: SessionSpec): Promise<Outcome> {
  const derived: Derived = { status: 'cancelled', reason: 'cancelled before it started' };
  const exit: ExitFacts = { code: null, signal: null, exitKnown: false, endedAfterResult: false };
  await sessionExited(ctx.sql, spec.sessionId, { derived, exit, facts: emptyFacts(), durationMs: 0, stderrTail: '' });
  ctx.log.info(`session ${spec.sessionId} (${spec.role}) cancelled before it started`);
  return { ...derived, facts: emptyFacts(), exit, detached: false, durationMs: 0 };
}

/** Starts a process for a session row that exists with status queued. */
export async function runSession(ctx: RunnerContext, spec: SessionSpec, intent: Intent, abort: AbortSignal): Promise<Outcome> {
  const cmd = ctx.substrate.command(intent);
  const spoolDir = path.join(ctx.dataDir, 'spool');
  fs.mkdirSync(spoolDir, { recursive: true });
  // A project's own folder is never made here (a typo would become an empty folder to work in); a
  // config from psql is first checked now. Only the default DISPATCH_DATA_DIR/work/<id> is created.
  const badCwd = workdirFault(cmd.cwd, ctx.dataDir, spec.projectId);
  if (badCwd) return notStarted(ctx, spec, badCwd);
  const spool = path.join(spoolDir, `${spec.sessionId}.stdout`);
  const errSpool = path.join(spoolDir, `${spec.sessionId}.stderr`);
  const out = fs.openSync(spool, 'a');
  const err = fs.openSync(errSpool, 'a');
  const started = Date.now();

  // The process writes straight into the spool file, so nothing it prints is lost if this runner
  // dies; the session id in its environment lets a later runner recognise it.
  const child = spawnGroup(cmd.bin, cmd.args, { cwd: cmd.cwd, env: { ...cmd.env, [SESSION_ENV]: spec.sessionId }, stdout: out, stderr: err });
  fs.closeSync(out);
  fs.closeSync(err);
  const ended = child.ended.then((e): ExitFacts => ({ ...e, exitKnown: true, endedAfterResult: false }));

  if (child.pid === undefined) {
    const exit = await ended;
    const reason = `could not start ${cmd.bin}: ${child.error()?.message ?? 'unknown error'}`;
    const derived: Derived = { status: 'failed', reason };
    const durationMs = Date.now() - started;
    await sessionExited(ctx.sql, spec.sessionId, { derived, exit, facts: emptyFacts(), durationMs, stderrTail: tail(errSpool) });
    return { ...derived, facts: emptyFacts(), exit, detached: false, durationMs };
  }
  const pid = child.pid;
  await sessionStarted(ctx.sql, spec.sessionId, {
    pid, host: ctx.host, runnerId: ctx.runnerId, spool, cwd: cmd.cwd, argv: cmd.display, cause: spec.causeEventId ?? null,
  });
  ctx.log.info(`session ${spec.sessionId} (${spec.role}) started: pid ${pid}`);
  const proc: Proc = { ended, pid, kill: (s) => killGroup(pid, s), release: () => {} };
  return follow({ ctx, spec, proc, spool, errSpool, skipLines: 0, abort, started, stalled: false });
}

/** Ends a session whose process could not be started at all: failed, with the reason. */
async function notStarted(ctx: RunnerContext, spec: SessionSpec, reason: string): Promise<Outcome> {
  const derived: Derived = { status: 'failed', reason };
  const exit: ExitFacts = { code: null, signal: null, exitKnown: false, endedAfterResult: false };
  await sessionExited(ctx.sql, spec.sessionId, { derived, exit, facts: emptyFacts(), durationMs: 0, stderrTail: '' });
  ctx.log.warn(`session ${spec.sessionId} (${spec.role}) not started: ${reason}`);
  return { ...derived, facts: emptyFacts(), exit, detached: false, durationMs: 0 };
}

/** Takes over a session whose runner went away: follows its spool and waits for its process. */
export async function adoptSession(ctx: RunnerContext, spec: SessionSpec, row: OpenSessionRow, abort: AbortSignal): Promise<Outcome> {
  const started = row.started_at?.getTime() ?? Date.now();
  const spool = row.spool_path ?? path.join(ctx.dataDir, 'spool', `${spec.sessionId}.stdout`);
  const errSpool = spool.replace(/\.stdout$/, '.stderr');
  const pid = row.pid;
  const alive = pid !== null && row.host === ctx.host && isAlive(pid) && runsSession(pid, spec.sessionId);
  const done = await sessionAdopted(ctx.sql, spec.sessionId, ctx.runnerId, pid, alive);
  ctx.log.info(`session ${spec.sessionId} adopted (pid ${pid}, ${alive ? 'alive' : 'gone'})`);

  const unknown: ExitFacts = { code: null, signal: null, exitKnown: false, endedAfterResult: false };
  const watch = alive ? whenGone(pid) : null;
  if (!fs.existsSync(spool)) fs.writeFileSync(spool, '');
  const proc: Proc = {
    ended: watch ? watch.gone.then(() => unknown) : Promise.resolve(unknown),
    pid: pid ?? -1,
    kill: (s) => (alive ? killGroup(pid, s) : undefined),
    release: () => watch?.stop(),
  };
  return follow({ ctx, spec, proc, spool, errSpool, skipLines: done, abort, started, stalled: row.stalled ?? false });
}

/** A session's process as follow() watches it, started here or adopted. */
interface Followed {
  ctx: RunnerContext;
  spec: SessionSpec;
  proc: Proc;
  /** Where the process's stdout and stderr go. */
  spool: string;
  errSpool: string;
  /** Spool lines already journalled (by the runner before this one). */
  skipLines: number;
  /** This runner stopping: the session is left for re-adoption. */
  abort: AbortSignal;
  /** When the process started (ms since the epoch). */
  started: number;
  /** Whether the session was already journalled stalled. */
  stalled: boolean;
}

async function follow({ ctx, spec, proc, spool, errSpool, skipLines, abort, started, stalled }: Followed): Promise<Outcome> {
  const status = new StatusWrites(ctx.log, spec.sessionId);
  const watchdog = new Watchdog({
    stallMs: ctx.stallMs,
    resultGraceMs: ctx.resultGraceMs,
    killGraceMs: ctx.killGraceMs,
    stalled,
    kill: proc.kill,
    onStall: (silentMs) => status.queue(() => sessionStalled(ctx.sql, spec.sessionId, silentMs, ctx.stallMs)),
    onResume: () => status.queue(() => sessionResumed(ctx.sql, spec.sessionId)),
    onTerminate: (reason) => ctx.log.info(`session ${spec.sessionId}: terminating (${reason})`),
  });
  const lines = new LinePipeline({
    sql: ctx.sql,
    substrate: ctx.substrate,
    ref: spec,
    spool,
    skipLines,
    onOutput: () => watchdog.output(),
    onResultSeen: () => watchdog.resultArrived(),
    onRetry: (e, n) => ctx.log.warn(`journal write for ${spec.sessionId} failed (attempt ${n}), retrying: ${(e as Error).message}`),
    onRateLimit: (f) => status.queue(() => rateLimited(ctx.sql, spec.sessionId, f)),
  });
  const live: LiveSession = { sessionId: spec.sessionId, taskId: spec.taskId, terminate: (reason) => watchdog.terminate(reason) };
  ctx.live.set(spec.sessionId, live);
  if (spec.taskId) ctx.live.set(spec.taskId, live);
  lines.start();
  watchdog.start();
  // A stop asked for before the session was reachable here (while no runner held it, or before it
  // was registered above) had its NOTIFY go nowhere: look once now rather than at the next poll.
  cancelRequested(ctx.sql, spec).then(
    (asked) => asked && ctx.live.get(spec.sessionId) === live && live.terminate('cancel requested'),
    (e: Error) => ctx.log.warn(`session ${spec.sessionId}: checking for a cancel request failed: ${e.message}`),
  );
  const detach = detachSignal(abort);

  try {
    const first = await Promise.race([proc.ended, detach.signalled]);
    if (first === 'detach') {
      // No drain: the process may still be writing. The next runner reads on from the last
      // journalled line.
      await lines.detach();
      await status.idle();
      ctx.log.info(`session ${spec.sessionId}: runner stopping, process ${proc.pid} left for the next runner`);
      return {
        status: 'crashed',
        reason: 'detached',
        facts: lines.facts,
        exit: { code: null, signal: null, exitKnown: false, endedAfterResult: false },
        detached: true,
        durationMs: Date.now() - started,
      };
    }
    // An adopted process's exit status cannot be read; one that ended after this runner signalled
    // it ended by that signal as far as anyone can tell (a cancelled turn ends cancelled, not crashed).
    const signal = first.exitKnown ? first.signal : (first.signal ?? watchdog.lastSignal);
    const exit: ExitFacts = { ...first, signal, endedAfterResult: watchdog.endedAfterResult };
    await lines.finish();
    await status.idle();
    if (proc.pid > 0) killGroup(proc.pid, 'SIGKILL'); // whatever the process left behind (tool subprocesses)
    const derived = ctx.substrate.deriveStatus(lines.facts, exit);
    const durationMs = Date.now() - started;
    await sessionExited(ctx.sql, spec.sessionId, { derived, exit, facts: lines.facts, durationMs, stderrTail: tail(errSpool) });
    ctx.log.info(`session ${spec.sessionId} (${spec.role}) ended ${derived.status}: ${derived.reason}`);
    return { ...derived, facts: lines.facts, exit, detached: false, durationMs };
  } finally {
    detach.dispose();
    proc.release();
    await lines.stop();
    watchdog.stop();
    ctx.live.delete(spec.sessionId);
    if (spec.taskId && ctx.live.get(spec.taskId) === live) ctx.live.delete(spec.taskId);
  }
}

/** Resolves with 'detach' once the job's abort signal fires (the runner is stopping). */
function detachSignal(abort: AbortSignal): { signalled: Promise<'detach'>; dispose(): void } {
  let onAbort = () => {};
  const signalled = new Promise<'detach'>((resolve) => {
    onAbort = () => resolve('detach');
    if (abort.aborted) resolve('detach');
    abort.addEventListener('abort', onAbort, { once: true });
  });
  return { signalled, dispose: () => abort.removeEventListener('abort', onAbort) };
}

/** The last `max` characters a process wrote to its stderr spool ('' when none). */
function tail(file: string, max = 4000): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.length > max ? text.slice(-max) : text;
  } catch {
    return '';
  }
}
