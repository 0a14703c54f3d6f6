// release_held (cron, every minute): work held by a spent daily budget starts again once the budget
// allows it — at the first minute of a new UTC day. (Raising the budget releases at once, by a
// trigger on the project's config.)
import type { Task } from 'graphile-worker';
import type { JobContext } from '../context.ts';

export function releaseHeld(ctx: JobContext): Task {
  return async () => {
    const [r] = await ctx.sql<{ n: number }[]>`select dispatch.release_held_tasks(null, 'a new day began') as n`;
    if (r!.n) ctx.log.info(`released ${r!.n} held task(s)`);
  };
}
