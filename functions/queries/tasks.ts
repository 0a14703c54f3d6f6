// Task reads: the task as the API shows it, with its live duration and stall flag.
import type { Sql } from '../../core/db/client.ts';

export interface TaskView {
  id: string;
  project_id: string;
  parent_id: string | null;
  status: string;
  status_reason: string | null;
  brief: string;
  approach: string | null;
  plan_ref: string | null;
  attempt: number;
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  last_activity_at: Date | null;
  duration_ms: number | null;
  stalled: boolean;
}

/** Select list over `dispatch.tasks t`; running tasks report their elapsed time so far. */
export const TASK_COLUMNS = `t.id, t.project_id, t.parent_id, t.status, t.status_reason, t.brief, t.approach, t.plan_ref,
  t.attempt, t.created_at, t.started_at, t.ended_at, t.last_activity_at,
  case when t.started_at is null then null
       else (extract(epoch from coalesce(t.ended_at, now()) - t.started_at) * 1000)::bigint end as duration_ms,
  t.status = 'stalled' as stalled`;

export async function getTask(sql: Sql, id: string): Promise<TaskView | undefined> {
  const [row] = await sql<TaskView[]>`select ${sql.unsafe(TASK_COLUMNS)} from dispatch.tasks t where t.id = ${id}`;
  return row;
}

export async function listTasks(sql: Sql, q: { project?: string; limit: number }): Promise<TaskView[]> {
  return sql<TaskView[]>`
    select ${sql.unsafe(TASK_COLUMNS)} from dispatch.tasks t
     ${q.project ? sql`where t.project_id = ${q.project}` : sql``}
     order by t.created_at desc limit ${q.limit}`;
}

export async function exists(sql: Sql, table: 'projects' | 'tasks' | 'sessions', id: string): Promise<boolean> {
  const [row] = await sql`select 1 as one from ${sql('dispatch')}.${sql(table)} where id = ${id}`;
  return !!row;
}
