// check_host {session_id, host, identifier, payload, queue}: a job handed to another host (see
// jobs/host-bound.ts) is looked at again once that host could have been silent for HOST_LOST_SECONDS.
// Session over (its host's runner adopted and finished it): nothing to do. Host heard from since:
// look again later. Every runner of that host silent that long: the session is declared lost and the
// job runs its follow-up here (for a worker, the return policy's one retry).
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { JobContext } from '../context.ts';
import { declareLost, hostSilence } from '../host-bound.ts';
import { SESSION_JOBS } from './names.ts';

const payload = z.object({
  session_id: z.string().uuid(),
  host: z.string(),
  identifier: z.enum(SESSION_JOBS),
  payload: z.unknown(),
  queue: z.string().nullable(),
});

export function checkHost(ctx: JobContext): Task {
  return async (raw, helpers) => {
    const p = payload.parse(raw);
    const [s] = await ctx.sql<{ ended_at: Date | null }[]>`select ended_at from dispatch.sessions where id = ${p.session_id}`;
    if (!s || s.ended_at) return;
    const silent = await hostSilence(ctx, p.host);
    const timeout = ctx.config.HOST_LOST_SECONDS;
    if (silent !== null && silent < timeout) {
      await helpers.addJob('check_host', p, { runAt: new Date(Date.now() + (timeout - silent + 1) * 1000), jobKey: `check_host:${p.session_id}`, maxAttempts: 25 });
      return;
    }
    await declareLost(ctx, p.session_id, p.host, silent);
    await ctx.sql`select graphile_worker.add_job(${p.identifier}, ${JSON.stringify(p.payload)}::text::json, queue_name := ${p.queue}, max_attempts := 25)`;
  };
}
