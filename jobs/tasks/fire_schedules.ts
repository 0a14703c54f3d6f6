// fire_schedules {}: fires every schedule that is due (each firing submits its task and journals
// schedule.fired, or schedule.skipped while the previous task still runs), and computes the next
// run of those not computed yet. Runs every minute and once at each start, so runs missed while
// nothing ran fire once. A schedule whose expression no longer parses is paused, saying why.
import type { Task } from 'graphile-worker';
import { CronError, nextRun } from '../../core/cron.ts';
import type { JobContext } from '../context.ts';

export function fireSchedules(ctx: JobContext): Task {
  return async () => {
    const at = (ctx.now ?? (() => new Date()))();
    const due = await ctx.sql<{ id: string; cron: string; time_zone: string | null }[]>`
      select id, cron, time_zone from dispatch.due_schedules(${at})`;
    for (const s of due) {
      let next: Date;
      try {
        next = nextRun(s.cron, s.time_zone, at);
      } catch (err) {
        if (!(err instanceof CronError)) throw err;
        await ctx.sql`select dispatch.pause_schedule(${s.id}, ${`cannot run: ${err.message}`})`;
        continue;
      }
      const [r] = await ctx.sql<{ r: { outcome: string } }[]>`select dispatch.fire_schedule(${s.id}, ${at}, ${next}) as r`;
      if (r!.r.outcome === 'fired' || r!.r.outcome === 'skipped') ctx.log.info(`schedule ${s.id}: ${r!.r.outcome}`);
    }
  };
}
