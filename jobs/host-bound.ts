// Sessions belong to their host. A job that finds its session's process on another host (its runner
// died; a runner here picked the job up) never adopts it: it hands the job to that host — the same
// job under the identifier `<task>@<host>`, which only runners of that host register — and asks
// check_host to look again once HOST_LOST_SECONDS of that host's silence would have passed. Only
// then, with every runner of that host silent that long, is the session declared lost (crashed) and
// the job's own follow-up (the return policy's retry) runs.
import type { Task, TaskList } from 'graphile-worker';
import type { JobContext } from './context.ts';
import { ForeignHostError } from './supervisor.ts';
import { SESSION_JOBS, type SessionJobName } from './tasks/names.ts';

export const onHost = (identifier: SessionJobName, host: string) => `${identifier}@${host}`;

/** Seconds since any runner of the host last beat (null: no runner of it ever registered). */
export async function hostSilence(ctx: JobContext, host: string): Promise<number | null> {
  const [r] = await ctx.sql<{ s: number | null }[]>`select dispatch.host_silence(${host}) as s`;
  return r?.s ?? null;
}

/** Wraps a session task: a ForeignHostError hands the job over (or, past the timeout, declares the session lost). */
export function hostBound(ctx: JobContext, identifier: SessionJobName, task: Task): Task {
  const run: Task = async (payload, helpers) => {
    try {
      return await task(payload, helpers);
    } catch (err) {
      if (!(err instanceof ForeignHostError)) throw err;
      const silent = await hostSilence(ctx, err.host);
      const timeout = ctx.config.HOST_LOST_SECONDS;
      if (silent === null || silent >= timeout) {
        await declareLost(ctx, err.sessionId, err.host, silent);
        return task(payload, helpers); // the session is over now: the job's own follow-up runs
      }
      await handOver(ctx, identifier, payload, err, timeout - silent);
    }
  };
  return run;
}

async function handOver(ctx: JobContext, identifier: SessionJobName, payload: unknown, err: ForeignHostError, checkInSeconds: number) {
  // Turns of one project stay one at a time on their named queue (dispatch.request_turn's).
  const projectId = (payload as { project_id?: string } | null)?.project_id;
  const queue = identifier === 'orchestrator_turn' && projectId ? `orchestrator:${projectId}` : null;
  const key = `host:${err.host}:${err.sessionId}`;
  await ctx.sql.begin(async (tx) => {
    await tx`select graphile_worker.add_job(${onHost(identifier, err.host)}, ${JSON.stringify(payload)}::text::json,
               queue_name := ${queue}, job_key := ${key}, max_attempts := 25)`;
    await tx`select graphile_worker.add_job('check_host',
               ${JSON.stringify({ session_id: err.sessionId, host: err.host, identifier, payload, queue })}::text::json,
               run_at := now() + make_interval(secs => ${Math.ceil(checkInSeconds) + 1}),
               job_key := ${`check_host:${err.sessionId}`}, max_attempts := 25)`;
    await tx`select dispatch.session_handed_over(${err.sessionId}, ${err.host}, ${ctx.host}, ${ctx.runnerId})`;
  });
  ctx.log.info(`session ${err.sessionId} runs on host ${err.host}: ${identifier} handed to that host's runners`);
}

/** Every runner of the host silent past HOST_LOST_SECONDS: the session is lost (crashed), its host-bound job removed. */
export async function declareLost(ctx: JobContext, sessionId: string, host: string, silent: number | null): Promise<void> {
  await ctx.sql.begin(async (tx) => {
    await tx`select dispatch.session_lost(${sessionId}, ${host}, ${silent}, ${ctx.config.HOST_LOST_SECONDS})`;
    await tx`select graphile_worker.remove_job(${`host:${host}:${sessionId}`})`;
  });
  ctx.log.warn(`session ${sessionId}: host ${host} silent ${silent === null ? 'forever' : `${Math.round(silent)} s`}; declared lost`);
}

/** The session tasks again under this host's own identifiers, so jobs handed to this host run here. */
export function hostTasks(ctx: JobContext, list: TaskList): TaskList {
  return Object.fromEntries(SESSION_JOBS.filter((t) => list[t]).map((t) => [onHost(t, ctx.host), list[t]!]));
}
