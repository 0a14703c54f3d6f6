// Queries and steps the task jobs share: loading a task, running or re-adopting one session.
import { projectConfigOrDefault, type ProjectConfig } from '../../core/contracts/project-config.ts';
import type { Status } from '../../core/contracts/status.ts';
import type { JobContext, SessionRow, TaskRow } from '../context.ts';
import { projectCwd } from '../intents.ts';
import type { DeferredCall, GateIntent, Intent } from '../substrate/port.ts';
import { superviseSession, type Outcome } from '../supervisor.ts';

export async function loadTask(ctx: JobContext, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await ctx.sql<TaskRow[]>`
    select t.id, t.project_id, t.parent_id, t.brief, t.approach, t.attempt, t.status, t.status_reason, t.ended_at,
           t.cancel_requested_at, p.config as project_config
      from dispatch.tasks t join dispatch.projects p on p.id = t.project_id
     where t.id = ${taskId}`;
  return row;
}

/** The task's project config; one that does not fit counts as empty. */
export function projectConfig(task: TaskRow): ProjectConfig {
  return projectConfigOrDefault(task.project_config);
}

export function workDir(ctx: JobContext, task: TaskRow): string {
  return projectCwd(ctx.dataDir, task.project_id, projectConfig(task));
}

/** A session's final result line: its event id, its result text ('' when there is none), the call it deferred. */
export async function lastResult(ctx: JobContext, sessionId: string): Promise<{ eventId: string | null; text: string; deferred: DeferredCall | null }> {
  const [row] = await ctx.sql<{ event_id: string; payload: unknown }[]>`
    select event_id, payload from dispatch.events
     where session_id = ${sessionId} and event_type = ${ctx.substrate.resultEventType} order by seq desc limit 1`;
  const reading = row ? ctx.substrate.readResult(row.payload) : null;
  return { eventId: row?.event_id ?? null, text: reading?.text ?? '', deferred: reading?.deferred ?? null };
}

/** Where a worker's gate hook asks (beside /mcp on the same server). */
export function gateUrl(ctx: JobContext): string {
  return new URL('/hooks/gate', ctx.mcpUrl).toString();
}

/** The gate for a session's tool calls: the hook's address and a credential scoped to the session. */
export async function gateFor(ctx: JobContext, sessionId: string, cwd: string): Promise<GateIntent> {
  const [row] = await ctx.sql<{ t: string }[]>`select dispatch.issue_gate_token(${sessionId}, ${cwd}) as t`;
  return { url: gateUrl(ctx), token: row!.t };
}

/** The newest session of a role for the task's current attempt. */
export async function latestSession(ctx: JobContext, task: TaskRow, role: string): Promise<SessionRow | undefined> {
  const [row] = await ctx.sql<SessionRow[]>`
    select id, project_id, task_id, role, status, pid, host, spool_path, started_at, ended_at, attempt, stalled
      from dispatch.sessions
     where task_id = ${task.id} and role = ${role} and attempt = ${task.attempt}
     order by created_at desc limit 1`;
  return row;
}

/**
 * Runs a new session for the intent, for the task's current attempt, or re-adopts the open one of
 * its role (its runner died or stopped); see superviseSession.
 */
export async function runOrAdopt(
  ctx: JobContext,
  task: TaskRow,
  intent: Intent | ((sessionId: string) => Promise<Intent>),
  abort: AbortSignal,
  parentSessionId: string | null = null,
  role: string = typeof intent === 'function' ? 'worker' : intent.role,
): Promise<{ outcome: Outcome; sessionId: string }> {
  let open = await latestSession(ctx, task, role);
  if (open?.ended_at) open = undefined;
  let sessionId = open?.id;
  if (!sessionId) {
    const [s] = await ctx.sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, task_id, role, attempt, parent_session_id)
      values (${task.project_id}, ${task.id}, ${role}, ${task.attempt}, ${parentSessionId}) returning id`;
    sessionId = s!.id;
  }
  const [cause] = await ctx.sql<{ event_id: string }[]>`
    select event_id from dispatch.events
     where task_id = ${task.id} and event_type in ('task.submitted', 'policy.decision', 'session.exited', 'worker.resume_requested')
     order by seq desc limit 1`;
  const spec = { sessionId, projectId: task.project_id, taskId: task.id, role, causeEventId: cause?.event_id ?? null };
  const id = sessionId;
  const outcome = await superviseSession(ctx, spec, open, () => (typeof intent === 'function' ? intent(id) : intent), abort);
  return { outcome, sessionId };
}

/** Ends the task with a not-clean status and lets the return policy decide what follows. */
export async function endNotClean(ctx: JobContext, taskId: string, status: Status, reason: string, details: object = {}): Promise<void> {
  await ctx.sql.begin(async (tx) => {
    await tx`select dispatch.set_task_status(${taskId}, ${status}, ${reason}, ${tx.json(details as Record<string, never>)})`;
    await tx`select dispatch.apply_return_policy(${taskId})`;
  });
}
