// Session reads: the session as the API shows it, with its live duration.
import type { Session } from '../../core/contracts/session.ts';
import type { Sql } from '../../core/db/client.ts';
import { iso, selectList } from './columns.ts';

/** Select list over `dispatch.sessions s`. */
export const SESSION_COLUMNS = selectList<Session>({
  id: 's.id',
  project_id: 's.project_id',
  task_id: 's.task_id',
  parent_session_id: 's.parent_session_id',
  role: 's.role',
  status: 's.status',
  status_reason: 's.status_reason',
  attempt: 's.attempt',
  pid: 's.pid',
  host: 's.host',
  stalled: 's.stalled',
  created_at: iso('s.created_at'),
  started_at: iso('s.started_at'),
  ended_at: iso('s.ended_at'),
  last_output_at: iso('s.last_output_at'),
  lines_written: 's.lines_written',
  exit_code: 's.exit_code',
  signal: 's.signal',
  duration_ms: `case when s.started_at is null then null
       else (extract(epoch from coalesce(s.ended_at, now()) - s.started_at) * 1000)::bigint end`,
});

/** A task's sessions, oldest first. */
export async function taskSessions(sql: Sql, taskId: string): Promise<Session[]> {
  return sql<Session[]>`select ${sql.unsafe(SESSION_COLUMNS)} from dispatch.sessions s where s.task_id = ${taskId} order by s.created_at`;
}
