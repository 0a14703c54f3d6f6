// expire_gates (cron, every minute): open gates whose rule set a timeout and whose time ran out are
// denied (journalled as expired, via timeout); their tasks resume and hear why.
import type { Task } from 'graphile-worker';
import type { JobContext } from '../context.ts';

export function expireGates(ctx: JobContext): Task {
  return async () => {
    const [r] = await ctx.sql<{ n: number }[]>`select dispatch.expire_gates() as n`;
    if (r!.n) ctx.log.info(`gates expired: ${r!.n}`);
  };
}
