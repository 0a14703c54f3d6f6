// GET /api/state: one bounded snapshot a client can paint at a glance. It reads the dimension
// tables and small caches through indexes, never the journal at large, all in one snapshot whose
// `seq` says which journal position it reflects.
import type { Sql } from '../../core/db/client.ts';
import { TASK_COLUMNS, type TaskView } from './tasks.ts';

const RECENT_TASKS = 100;
const RECENT_SESSIONS = 100;

export async function stateSnapshot(sql: Sql) {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    // One snapshot, and the queries pipelined on its connection (one round trip, not seven).
    const [[head], projects, tasks, sessions, pending, [focus], workingSets] = await Promise.all([
      tx<{ seq: number }[]>`select coalesce(max(seq), 0) as seq from dispatch.events`,
      tx`select id, name, config, created_at from dispatch.projects order by created_at limit 200`,
      tx<TaskView[]>`
        select * from (
          select ${tx.unsafe(TASK_COLUMNS)} from dispatch.tasks t where t.ended_at is null
          union
          select * from (select ${tx.unsafe(TASK_COLUMNS)} from dispatch.tasks t order by t.created_at desc limit ${RECENT_TASKS}) r
        ) x order by created_at desc`,
      tx`
        select * from (
          select id, project_id, task_id, parent_session_id, role, status, status_reason, attempt, pid, host, stalled,
                 created_at, started_at, ended_at, last_output_at, lines_written, exit_code, signal,
                 case when started_at is null then null
                      else (extract(epoch from coalesce(ended_at, now()) - started_at) * 1000)::bigint end as duration_ms
            from dispatch.sessions s
           where s.ended_at is null or s.id in (select id from dispatch.sessions order by created_at desc limit ${RECENT_SESSIONS})
        ) x order by created_at desc`,
      tx`
        select message_id, project_id, event_id as id, seq, text, created_at
          from dispatch.user_messages where delivered_at is null order by seq limit 200`,
      tx`
        select event_id as id, seq, thread_id, task_id, project_id, created_at
          from dispatch.events where event_type = 'focus.changed' order by seq desc limit 1`,
      tx`
        select project_id, payload, seq from (
          select distinct on (project_id) project_id, payload, seq from dispatch.events
           where event_type = 'orchestrator.working_set' order by project_id, seq desc) w`,
    ]);
    return {
      seq: head!.seq,
      generated_at: new Date().toISOString(),
      projects,
      tasks,
      sessions,
      pending_messages: pending,
      focus: focus ?? null,
      working_sets: Object.fromEntries(workingSets.map((w) => [w.project_id as string, { ...(w.payload as object), seq: w.seq }])),
    };
  });
}
