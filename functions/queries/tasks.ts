// Task reads (the task as the API shows it, with its live duration and stall flag), submit and cancel.
import type { Task } from '../../core/contracts/task.ts';
import type { Sql } from '../../core/db/client.ts';
import { iso, selectList } from './columns.ts';

/** Select list over `dispatch.tasks t`; running tasks report their elapsed time so far. */
export const TASK_COLUMNS = selectList<Task>({
  id: 't.id',
  project_id: 't.project_id',
  parent_id: 't.parent_id',
  status: 't.status',
  status_reason: 't.status_reason',
  brief: 't.brief',
  approach: 't.approach',
  plan_ref: 't.plan_ref',
  attempt: 't.attempt',
  created_at: iso('t.created_at'),
  started_at: iso('t.started_at'),
  ended_at: iso('t.ended_at'),
  last_activity_at: iso('t.last_activity_at'),
  duration_ms: `case when t.started_at is null then null
       else (extract(epoch from coalesce(t.ended_at, now()) - t.started_at) * 1000)::bigint end`,
  stalled: `t.status = 'stalled'`,
  depends_on: `array(select td.depends_on from dispatch.task_dependencies td where td.task_id = t.id order by td.created_at, td.depends_on)`,
  dependents: `array(select td.task_id from dispatch.task_dependencies td where td.depends_on = t.id order by td.created_at, td.task_id)`,
});

export async function getTask(sql: Sql, id: string): Promise<Task | undefined> {
  const [row] = await sql<Task[]>`select ${sql.unsafe(TASK_COLUMNS)} from dispatch.tasks t where t.id = ${id}`;
  return row;
}

export async function listTasks(sql: Sql, q: { project?: string; limit: number }): Promise<Task[]> {
  return sql<Task[]>`
    select ${sql.unsafe(TASK_COLUMNS)} from dispatch.tasks t
     ${q.project ? sql`where t.project_id = ${q.project}` : sql``}
     order by t.created_at desc limit ${q.limit}`;
}

export async function exists(sql: Sql, table: 'projects' | 'tasks' | 'sessions', id: string): Promise<boolean> {
  const [row] = await sql`select 1 as one from ${sql('dispatch')}.${sql(table)} where id = ${id}`;
  return !!row;
}

/** Submits a task (dispatch.submit_task: journals it and enqueues its worker in one transaction); its id. */
export async function submitTask(
  sql: Sql,
  t: { project_id: string; brief: string; approach?: string | null; parent_id?: string | null; plan_ref?: string | null; depends_on?: string[] | null },
): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    select dispatch.submit_task(${t.project_id}, ${t.brief}, ${t.approach ?? null}, ${t.parent_id ?? null}, ${t.plan_ref ?? null},
                                null, ${t.depends_on?.length ? t.depends_on : null}::uuid[]) as id`;
  return row!.id;
}

/** Asks a task to stop (dispatch.cancel_task); the status it has now. */
export async function cancelTask(sql: Sql, id: string): Promise<string> {
  const [row] = await sql<{ s: string }[]>`select dispatch.cancel_task(${id}) as s`;
  return row!.s;
}
