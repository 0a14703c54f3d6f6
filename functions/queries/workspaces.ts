// Workspace reads (a task's newest workspace with its journalled change, the list of changes) and
// the decisions about a change: merge, discard, continue, resolve.
import type { Sql } from '../../core/db/client.ts';
import type { Decision, Workspace } from '../../core/contracts/workspace.ts';
import { iso, selectList } from './columns.ts';

/** Select list over `dispatch.workspaces w`; `change` is the workspace.changed payload (or null). */
const columns = (withChange: boolean) =>
  selectList<Workspace>({
    id: 'w.id',
    task_id: 'w.task_id',
    project_id: 'w.project_id',
    attempt: 'w.attempt',
    branch: 'w.branch',
    base: 'w.base',
    from_ref: 'w.from_ref',
    path: 'w.path',
    base_commit: 'w.base_commit',
    head_commit: 'w.head_commit',
    state: 'w.state',
    conflicts: 'w.conflicts',
    created_at: iso('w.created_at'),
    updated_at: iso('w.updated_at'),
    removed_at: iso('w.removed_at'),
    change: withChange
      ? `(select e.payload from dispatch.events e where e.task_id = w.task_id and e.event_type = 'workspace.changed'
            and e.payload ->> 'workspace_id' = w.id::text order by e.seq desc limit 1)`
      : 'null::jsonb',
  });

/** The task's newest attempt's workspace with its change. */
export async function taskWorkspace(sql: Sql, taskId: string): Promise<Workspace | undefined> {
  const [row] = await sql<Workspace[]>`
    select ${sql.unsafe(columns(true))} from dispatch.workspaces w where w.task_id = ${taskId} order by w.attempt desc limit 1`;
  return row;
}

/** Workspaces, newest first (without their patches, unless of one task); `waiting` counts the changes waiting for a decision. */
export async function listWorkspaces(
  sql: Sql,
  q: { project_id?: string; task_id?: string; state?: string; limit: number },
): Promise<{ workspaces: Workspace[]; waiting: number }> {
  const where = sql`where true ${q.project_id ? sql`and w.project_id = ${q.project_id}` : sql``}
                   ${q.task_id ? sql`and w.task_id = ${q.task_id}` : sql``}`;
  const states = q.state === 'waiting' ? ['ready'] : q.state && q.state !== 'all' ? [q.state] : null;
  // One task's workspaces come with their change (the client's task detail asks this way: no 404).
  const workspaces = await sql<Workspace[]>`
    select ${sql.unsafe(columns(!!q.task_id))} from dispatch.workspaces w ${where}
       ${states ? sql`and w.state = any(${states})` : sql``}
     order by w.created_at desc, w.attempt desc limit ${q.limit}`;
  const [n] = await sql<{ n: number }[]>`select count(*)::int as n from dispatch.workspaces w ${where} and w.state = 'ready'`;
  return { workspaces, waiting: n!.n };
}

/** What dispatch.merge_task / discard_task answered: queued with its job, or why not. */
export interface DecisionOutcome {
  outcome: 'queued' | 'conflict' | 'no_workspace' | 'busy' | 'decided' | 'empty' | 'not_verified' | 'stacked';
  /** The last check's verdict (not_verified; null when it never ran). */
  verify?: Record<string, unknown> | null;
  blocking_task_id?: string;
  action?: Decision['action'];
  job?: Decision['job'];
  message?: string;
  files?: string[];
  branch?: string;
  base?: string;
  state?: string;
}

/** Merges or discards the task's change: queues the job, or says why not. */
export async function decideChange(sql: Sql, action: 'merge' | 'discard', taskId: string, o: { force?: boolean } = {}): Promise<DecisionOutcome> {
  const [row] = await sql<{ r: DecisionOutcome }[]>`
    select ${action === 'merge' ? sql`dispatch.merge_task(${taskId}, ${o.force ?? false})` : sql`dispatch.discard_task(${taskId})`} as r`;
  return row!.r;
}

/** A follow-up task on a branch from the task's branch; its id. */
export async function continueTask(sql: Sql, taskId: string, brief: string, approach?: string | null): Promise<string> {
  const [row] = await sql<{ id: string }[]>`select dispatch.continue_task(${taskId}, ${brief}, ${approach ?? null}) as id`;
  return row!.id;
}

/** A task on the conflicting branch whose brief carries the conflict; its id. */
export async function resolveTask(sql: Sql, taskId: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`select dispatch.resolve_task(${taskId}) as id`;
  return row!.id;
}
