// sweep_sessions (cron, and at every runner start): find runners that stopped heart-beating, unlock
// their graphile-worker jobs at once (instead of after four hours) so the jobs re-run and re-adopt
// or close the sessions those runners left open, and journal the loss.
import type { Task } from 'graphile-worker';
import type { Sql } from '../../core/db/client.ts';
import type { JobContext } from '../context.ts';
import { isAlive } from '../../core/process.ts';

/** Runners silent this long are lost (RUNNER_STALE_SECONDS); a runner on the same host is checked by pid at once. */
export async function sweepRunners(sql: Sql, host: string, self: string, staleSeconds: number): Promise<string[]> {
  const runners = await sql<{ id: string; host: string; pid: number; worker_ids: string[]; stale: boolean }[]>`
    select id, host, pid, worker_ids, heartbeat_at < now() - make_interval(secs => ${staleSeconds}) as stale
      from dispatch.runners where stopped_at is null and id <> ${self}`;
  const dead = runners.filter((r) => r.stale || (r.host === host && !isAlive(r.pid)));
  for (const r of dead) await sql`select dispatch.runner_lost(${r.id})`;
  return dead.map((r) => r.id);
}

export function sweepSessions(ctx: JobContext): Task {
  return async () => {
    const lost = await sweepRunners(ctx.sql, ctx.host, ctx.runnerId, ctx.config.RUNNER_STALE_SECONDS);
    if (lost.length) ctx.log.warn(`runners lost: ${lost.join(', ')}; their jobs were unlocked`);
  };
}
