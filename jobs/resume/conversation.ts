// Resuming a task's worker conversation with a prompt — one mechanism for every "carry on from
// where you were, with this": the fix loop (a failing check's output, jobs/tasks/verify_task.ts)
// and a person talking to a worker. A request is a new attempt of the same task: the last worker
// session's conversation (`--resume`), the same worktree (jobs/resume/workspace.ts), the prompt
// verbatim; journalled as worker.resume_requested with the worktree's head commit, and run by the
// continue_worker job. The SQL side is sql/functions/27_worker_resume.sql.
import type { Sql } from '../../core/db/client.ts';

export interface ResumeRequest {
  /** What the resumed worker is told, verbatim. */
  prompt: string;
  /** Why it resumes, as data a reader may branch on: `check_failed`, `message`, … */
  reason: string;
  /** Added to the worker.resume_requested payload. */
  details?: Record<string, unknown>;
}

/** The journalled request (worker.resume_requested payload) an attempt runs from. */
export interface ResumeRecord {
  prompt: string;
  reason: string;
  from_session: string;
  from_attempt: number;
  attempt: number;
  head_commit: string | null;
}

/**
 * Asks for the task's worker conversation to resume with `prompt`, as its next attempt. Throws
 * (SQLSTATE 55000) while its worker runs, or when it never had a conversation; returns the event id.
 */
export async function resumeWorkerConversation(sql: Sql, taskId: string, r: ResumeRequest): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    select dispatch.resume_worker_conversation(${taskId}, ${r.prompt}, ${r.reason}, ${JSON.stringify(r.details ?? {})}::text::jsonb) as id`;
  return row!.id;
}

/** The request the attempt runs from; undefined when the attempt is not a resumed one. */
export async function resumeRecord(sql: Sql, taskId: string, attempt: number): Promise<ResumeRecord | undefined> {
  const [row] = await sql<{ r: ResumeRecord | null }[]>`select dispatch.resume_request(${taskId}, ${attempt}) as r`;
  return row?.r ?? undefined;
}

/** The substrate session id of a journalled worker session (what `--resume` takes). */
export async function conversationOf(sql: Sql, sessionId: string): Promise<string | null> {
  const [row] = await sql<{ c: string | null }[]>`select claude_session_id as c from dispatch.sessions where id = ${sessionId}`;
  return row?.c ?? null;
}
