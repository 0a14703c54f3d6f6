// continue_worker {task_id}: runs the task's current attempt as a resumed worker conversation
// (jobs/resume/conversation.ts): `--resume` of the session the request names, with its prompt, in
// the same worktree; then what follows any worker (the check, the handoff, the return policy).
import type { Task } from 'graphile-worker';
import { taskPayload, type JobContext } from '../context.ts';
import { workerIntent } from '../intents.ts';
import { conversationOf, resumeRecord } from '../resume/conversation.ts';
import { continueWorkspace } from '../resume/workspace.ts';
import { endNotClean, gateFor, latestSession, loadTask, projectConfig, runOrAdopt, workDir } from './shared.ts';
import { afterWorker } from './spawn_worker.ts';

export function continueWorker(ctx: JobContext): Task {
  return async (raw, helpers) => {
    const { task_id } = taskPayload.parse(raw);
    const task = await loadTask(ctx, task_id);
    if (!task || task.ended_at) return;
    const request = await resumeRecord(ctx.sql, task_id, task.attempt);
    if (!request) return; // the attempt is not a resumed one (a retry took over)

    const previous = await latestSession(ctx, task, 'worker');
    if (previous?.ended_at) return afterWorker(ctx, task_id, previous.status as never, '', previous.id); // follow-up lost
    if (task.cancel_requested_at && !previous) return endNotClean(ctx, task_id, 'cancelled', 'cancelled before it resumed');
    const resume = await conversationOf(ctx.sql, request.from_session);
    if (!resume) throw new Error(`session ${request.from_session} has no conversation to resume`);

    const workspace = await continueWorkspace(ctx, task);
    if (!previous) await ctx.sql`select dispatch.set_task_status(${task_id}, 'running', ${`attempt ${task.attempt} resumed (${request.reason})`})`;
    const cwd = workspace?.path ?? workDir(ctx, task);
    const base = { ...workerIntent(task, projectConfig(task), cwd, ctx.config), prompt: request.prompt, resume };
    const { outcome, sessionId } = await runOrAdopt(ctx, task, async (sid) => ({ ...base, gate: await gateFor(ctx, sid, cwd) }), helpers.abortSignal);
    await afterWorker(ctx, task_id, outcome.status, outcome.reason, sessionId);
  };
}
