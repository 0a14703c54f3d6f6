// Schedule writes and reads over the SQL functions of sql/functions/22_schedules.sql; the next run
// is computed here (core/cron.ts), where the expression is parsed.
import { nextRun } from '../../core/cron.ts';
import type { Schedule } from '../../core/contracts/schedule.ts';
import type { Sql } from '../../core/db/client.ts';

export interface NewSchedule {
  project_id: string;
  cron: string;
  brief: string;
  approach?: string | null;
  depends_on?: string[] | null;
  time_zone?: string | null;
}

/** Makes a schedule; throws CronError for an expression or zone that cannot be used. */
export async function createSchedule(sql: Sql, s: NewSchedule, now = new Date()): Promise<Schedule> {
  const next = nextRun(s.cron, s.time_zone ?? null, now);
  const [row] = await sql<{ id: string }[]>`
    select dispatch.create_schedule(${s.project_id}, ${s.cron.trim().split(/\s+/).join(' ')}, ${s.brief}, ${s.approach ?? null},
                                    ${s.depends_on?.length ? s.depends_on : null}::uuid[], ${s.time_zone ?? null}, ${next}) as id`;
  return (await getSchedule(sql, row!.id))!;
}

export async function getSchedule(sql: Sql, id: string): Promise<Schedule | undefined> {
  const [row] = await sql<{ s: Schedule }[]>`select dispatch.schedule_json(s) as s from dispatch.schedules s where s.id = ${id}`;
  return row?.s;
}

export async function listSchedules(sql: Sql, projectId?: string): Promise<Schedule[]> {
  const rows = await sql<{ s: Schedule }[]>`
    select dispatch.schedule_json(s) as s from dispatch.schedules s
     ${projectId ? sql`where s.project_id = ${projectId}` : sql``}
     order by s.paused_at is not null, s.next_run_at nulls last, s.created_at`;
  return rows.map((r) => r.s);
}

export async function pauseSchedule(sql: Sql, id: string): Promise<Schedule> {
  const [row] = await sql<{ s: Schedule }[]>`select dispatch.pause_schedule(${id}) as s`;
  return row!.s;
}

/** Resumes from now: the next run after this moment, not the ones missed while paused. */
export async function resumeSchedule(sql: Sql, id: string, now = new Date()): Promise<Schedule> {
  const [cur] = await sql<{ cron: string; time_zone: string | null }[]>`select cron, time_zone from dispatch.schedules where id = ${id}`;
  const next = cur ? nextRun(cur.cron, cur.time_zone, now) : null;
  const [row] = await sql<{ s: Schedule }[]>`select dispatch.resume_schedule(${id}, ${next}) as s`;
  return row!.s;
}

export async function deleteSchedule(sql: Sql, id: string): Promise<void> {
  await sql`select dispatch.delete_schedule(${id})`;
}
