// Which sessions someone asked to stop, as the store records it: a task's cancel
// (tasks.cancel_requested_at, dispatch.cancel_task) reaches every session of the task; a turn's
// (turn.cancel_requested on the session, dispatch.cancel_turn) reaches a session that has no task.
// The NOTIFY on dispatch_cancel brings a request at once; this is how a runner finds one it did not
// hear (its listener was reconnecting, or no runner held the session when it was asked).
import type { Sql } from '../../core/db/client.ts';

export interface CancelTarget {
  sessionId: string;
  taskId: string | null;
}

/**
 * The ids — a task id or a session id, the keys a runner's live sessions go by — of the targets
 * whose stop was requested. Index probes only (tasks' primary key, events_turn_cancel_idx).
 */
export async function cancelsRequested(sql: Sql, targets: readonly CancelTarget[]): Promise<Set<string>> {
  if (!targets.length) return new Set();
  const taskIds = [...new Set(targets.flatMap((t) => (t.taskId ? [t.taskId] : [])))];
  const sessionIds = [...new Set(targets.map((t) => t.sessionId))];
  const rows = await sql<{ id: string }[]>`
    select t.id from dispatch.tasks t where t.id = any(${taskIds}::uuid[]) and t.cancel_requested_at is not null
    union
    select e.session_id from dispatch.events e
     where e.session_id = any(${sessionIds}::uuid[]) and e.event_type = 'turn.cancel_requested'`;
  return new Set(rows.map((r) => r.id));
}

/** Whether the target's stop was requested (its task's or its own). */
export async function cancelRequested(sql: Sql, target: CancelTarget): Promise<boolean> {
  const ids = await cancelsRequested(sql, [target]);
  return ids.has(target.sessionId) || (target.taskId !== null && ids.has(target.taskId));
}
