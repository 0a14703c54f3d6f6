// The operator CLI's schedule commands (`npm run dispatch -- schedule …`), over the same query
// functions as /api/schedules. A bad cron expression is refused naming its field and position.
import type { Sql } from '../../core/db/client.ts';
import { deleteSchedule, createSchedule, listSchedules, pauseSchedule, resumeSchedule } from '../../functions/queries/schedules.ts';
import type { Schedule } from '../../core/contracts/schedule.ts';
import type { Command } from './command.ts';
import { option } from './format.ts';

type ProjectOf = (sql: Sql, name: string | undefined) => Promise<string>;

function line(s: Schedule): string {
  const when = s.paused ? `paused${s.pause_reason ? ` (${s.pause_reason})` : ''}` : `next ${s.next_run_at ?? '(at the next tick)'}`;
  return `${s.id}  ${s.cron.padEnd(14)} ${(s.time_zone ?? 'server time').padEnd(16)} ${when}  ${s.brief.split('\n')[0]!.slice(0, 60)}`;
}

export function scheduleCommands(projectId: ProjectOf): Command[] {
  return [
    {
      words: ['schedule', 'add'],
      args: '[--project NAME] --cron "M H DOM MON DOW" [--tz ZONE] [--approach TEXT] [--after TASK_ID[,…]] BRIEF',
      summary: 'submit BRIEF as a task at every firing of the cron expression (server time unless --tz)',
      run: async (c, args) => {
        const cron = option(args, '--cron');
        const tz = option(args, '--tz');
        const approach = option(args, '--approach');
        const after = option(args, '--after')?.split(',').map((x) => x.trim()).filter(Boolean);
        const project = option(args, '--project');
        if (!cron) throw new Error('schedule add needs --cron "minute hour day-of-month month day-of-week"');
        if (!args.length) throw new Error('schedule add needs a brief');
        const sql = c.sql();
        const s = await createSchedule(sql, { project_id: await projectId(sql, project), cron, brief: args.join(' '), approach, depends_on: after, time_zone: tz });
        c.print(line(s));
      },
    },
    {
      words: ['schedule', 'list'], args: '[--project NAME]', summary: 'schedules with their next run (paused ones last)',
      run: async (c, args) => {
        const project = option(args, '--project');
        const sql = c.sql();
        for (const s of await listSchedules(sql, project ? await projectId(sql, project) : undefined)) c.print(line(s));
      },
    },
    {
      words: ['schedule', 'pause'], args: 'SCHEDULE_ID', summary: 'stop a schedule firing until resumed', minArgs: 1,
      run: async (c, [id]) => c.print(line(await pauseSchedule(c.sql(), id!))),
    },
    {
      words: ['schedule', 'resume'], args: 'SCHEDULE_ID', summary: 'fire again from now on (missed runs do not fire)', minArgs: 1,
      run: async (c, [id]) => c.print(line(await resumeSchedule(c.sql(), id!))),
    },
    {
      words: ['schedule', 'delete'], args: 'SCHEDULE_ID', summary: 'delete a schedule (the tasks it submitted stay)', minArgs: 1,
      run: async (c, [id]) => {
        await deleteSchedule(c.sql(), id!);
        c.print(`deleted ${id}`);
      },
    },
  ];
}
