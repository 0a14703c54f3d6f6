// The job runner: graphile-worker inside this process, registered in dispatch.runners with a
// heartbeat, reachable for cancels through LISTEN dispatch_cancel (plus a poll as a safety net).
// Any number of runners may share one database; Postgres is the only coordinator.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import { Logger as GraphileLogger, run, type Runner, type WorkerEvents } from 'graphile-worker';
import type { Config } from '../core/config.ts';
import type { Sql } from '../core/db/client.ts';
import type { Logger } from '../core/log.ts';
import type { JobContext } from './context.ts';
import { isAlive, killGroup, runsSession } from '../core/process.ts';
import { cancelsRequested } from './session/cancels.ts';
import { claudeCode } from './substrate/index.ts';
import type { LiveSession } from './supervisor.ts';
import { taskList, type JobName } from './tasks/index.ts';
import { sweepRunners } from './tasks/sweep_sessions.ts';

export interface RunnerOptions {
  url: string;
  sql: Sql;
  config: Config;
  log: Logger;
  /** Environment passed through to the substrate's processes; defaults to this process's. */
  childEnv?: NodeJS.ProcessEnv;
  /** The clock schedules fire by; default: the real one. */
  now?: () => Date;
}

/** PUBLIC_URL/mcp, else this machine's serve address (a wildcard bind is reached on loopback). */
export function mcpUrl(config: Config): string {
  if (config.PUBLIC_URL) return new URL('/mcp', config.PUBLIC_URL).toString();
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}/mcp`;
}

export interface StartedRunner {
  id: string;
  context: JobContext;
  stop(): Promise<void>;
}

const HEARTBEAT_MS = 5000;
/** Run every minute, one at a time across all runners. */
const CRON_JOBS: readonly JobName[] = ['sweep_sessions', 'release_held', 'expire_gates', 'fire_schedules'];
const CANCEL_POLL_MS = 2000;

export async function startRunner(opts: RunnerOptions): Promise<StartedRunner> {
  const { sql, config, log } = opts;
  // The host this runner's processes live on: a pid and a spool mean something only there.
  const host = config.RUNNER_HOST_ID ?? os.hostname();
  const id = `${host}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const live = new Map<string, LiveSession>();
  const ctx: JobContext = {
    sql,
    log,
    runnerId: id,
    host,
    dataDir: config.dataDir,
    stallMs: config.STALL_SECONDS * 1000,
    resultGraceMs: config.RESULT_GRACE_SECONDS * 1000,
    killGraceMs: config.KILL_GRACE_SECONDS * 1000,
    live,
    substrate: claudeCode(opts.childEnv ?? process.env),
    config,
    mcpUrl: mcpUrl(config),
    childEnv: opts.childEnv ?? process.env,
    ...(opts.now ? { now: opts.now } : {}),
  };

  await sql`insert into dispatch.runners (id, host, pid) values (${id}, ${host}, ${process.pid})`;
  const lost = await sweepRunners(sql, host, id, config.RUNNER_STALE_SECONDS);
  if (lost.length) log.warn(`recovered jobs of runners that died: ${lost.join(', ')}`);
  await stopLostProcesses(sql, host, log);

  // Jobs are locked by the pool (batched fetches) or by a worker: record both kinds of id.
  const lockIds: string[] = [];
  const remember = (lockId: string) => {
    lockIds.push(lockId);
    void sql`update dispatch.runners set worker_ids = ${lockIds} where id = ${id}`.catch(() => {});
  };
  const events = new EventEmitter() as WorkerEvents;
  events.on('pool:create', ({ workerPool }) => remember(workerPool.id));
  events.on('worker:create', ({ worker }) => remember(worker.workerId));
  events.on('job:error', ({ job, error }) => {
    const msg = (error as Error)?.message ?? String(error);
    if ((error as Error)?.name === 'DetachedError') log.info(`${job.task_identifier}: ${msg}`);
    else log.warn(`job ${job.task_identifier} failed (attempt ${job.attempts}): ${msg}`);
  });

  const quiet = new GraphileLogger(() => (level: string, message: string) => {
    if (level === 'error') log.error(`graphile-worker: ${message}`);
  });
  const runner: Runner = await run({
    connectionString: opts.url,
    concurrency: config.WORKER_CONCURRENCY,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: taskList(ctx),
    crontab: CRON_JOBS.map((name) => `* * * * * ${name} ?max=1`).join('\n'),
    logger: quiet,
    events,
  });

  // Housekeeping once per start: git worktree prune, worktrees of decided changes removed.
  await sql`select graphile_worker.add_job('prune_workspaces', '{}'::json, job_key := 'prune_workspaces', max_attempts := 3)`;
  // Schedules due while nothing ran fire now, once each (not once per missed minute).
  await sql`select dispatch.run_due_schedules()`;

  // A NOTIFY names a task (cancel_task) or a session (cancel_turn); live holds sessions by both.
  const cancel = (id: string) => live.get(id)?.terminate('cancel requested');
  // What a lost NOTIFY would have said, asked of the store: a task's cancel or a turn's.
  const pollCancels = () => {
    const held = [...new Set(live.values())];
    if (!held.length) return;
    cancelsRequested(sql, held).then(
      (ids) => ids.forEach(cancel),
      () => {},
    );
  };
  // Asked again each time the listener is (re)connected: what was sent while it was away is not.
  const listener = await sql.listen('dispatch_cancel', cancel, pollCancels);
  const cancelPoll = setInterval(pollCancels, CANCEL_POLL_MS);
  // A beat well inside the stale threshold; each beat also sweeps, so a lost runner's jobs are
  // unlocked within RUNNER_STALE_SECONDS rather than at the next minute's cron.
  const heartbeat = setInterval(() => {
    sql`update dispatch.runners set heartbeat_at = now() where id = ${id}`.catch(() => {});
    sql`update dispatch.sessions set heartbeat_at = now() where runner_id = ${id} and ended_at is null`.catch(() => {});
    sweepRunners(sql, host, id, config.RUNNER_STALE_SECONDS).then(
      (gone) => gone.length && log.warn(`runners lost: ${gone.join(', ')}; their jobs were unlocked`),
      () => {},
    );
  }, Math.min(HEARTBEAT_MS, (config.RUNNER_STALE_SECONDS * 1000) / 3));
  log.info(`runner ${id} started (concurrency ${config.WORKER_CONCURRENCY})`);

  let stopping: Promise<void> | undefined;
  return {
    id,
    context: ctx,
    stop() {
      stopping ??= (async () => {
        clearInterval(cancelPoll);
        clearInterval(heartbeat);
        await listener.unlisten().catch(() => {});
        await runner.stop();
        // A job whose session was left running for the next runner (DetachedError) can stay locked
        // by this runner's pool: graphile-worker records the failure without waiting for it while
        // the pool closes. Unlocked here, the next runner adopts the session at once instead of
        // after graphile-worker's four-hour lock timeout (a stalled session would stay unwatched).
        if (lockIds.length) await sql`select graphile_worker.force_unlock_workers(${lockIds}::text[])`.catch((e: Error) => log.warn(`unlocking this runner's jobs: ${e.message}`));
        await sql`update dispatch.runners set stopped_at = now() where id = ${id}`.catch(() => {});
        log.info(`runner ${id} stopped`);
      })();
      return stopping;
    },
  };
}

/**
 * A session this host's runners were silent on too long was declared lost and its task retried
 * elsewhere; if its process still runs here (the host is back), it is a duplicate: stop it.
 */
async function stopLostProcesses(sql: Sql, host: string, log: Logger): Promise<void> {
  const rows = await sql<{ id: string; pid: number }[]>`
    select s.id, s.pid from dispatch.sessions s
     where s.host = ${host} and s.pid is not null and s.ended_at > now() - interval '7 days'
       and exists (select 1 from dispatch.events e where e.session_id = s.id and e.event_type = 'session.lost')`;
  for (const r of rows) {
    if (!isAlive(r.pid) || !runsSession(r.pid, r.id)) continue;
    log.warn(`session ${r.id} was declared lost while this host was away; its process ${r.pid} still ran: stopped`);
    killGroup(r.pid, 'SIGKILL');
  }
}
