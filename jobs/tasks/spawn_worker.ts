// spawn_worker {task_id}: run one one-shot worker for the task's current attempt, journal it, derive
// its status, then hand over to the project's check (verify_task, success with config.verify) or
// extract_handoff (success), park the task at its gate (gated), or the return policy (anything else).
import type { Task } from 'graphile-worker';
import type { Status } from '../../core/contracts/status.ts';
import { taskPayload, type JobContext } from '../context.ts';
import { workerIntent } from '../intents.ts';
import { RepoError } from '../../core/git/repo.ts';
import { GitError } from '../../core/git/git.ts';
import { finishWorkspace, prepareWorkspace, type WorkspaceRow } from '../workspace/worktree.ts';
import { endNotClean, gateFor, lastResult, latestSession, loadTask, projectConfig, runOrAdopt, workDir } from './shared.ts';

export function spawnWorker(ctx: JobContext): Task {
  return async (raw, helpers) => {
    const { task_id } = taskPayload.parse(raw);
    const task = await loadTask(ctx, task_id);
    if (!task || task.ended_at) return; // gone, or already over (cancelled while queued)

    const previous = await latestSession(ctx, task, 'worker');
    if (previous?.ended_at) return afterWorker(ctx, task_id, previous.status as Status, '', previous.id); // exit journalled, follow-up lost
    if (task.cancel_requested_at && !previous) {
      await endNotClean(ctx, task_id, 'cancelled', 'cancelled before it started');
      return;
    }
    if (!previous) {
      // It waits for other tasks: the ending of the last of them queues this job again (or skips it).
      const [deps] = await ctx.sql<{ ok: boolean }[]>`select dispatch.may_start(${task_id}) as ok`;
      if (!deps!.ok) return;
      // The account is rate limited: the task waits queued and its worker starts at the reset time.
      const [wait] = await ctx.sql<{ until: Date | null }[]>`select dispatch.wait_for_quota(${task_id}) as until`;
      if (wait!.until) return;
      // The project's daily budget is spent: the task waits as held until it is raised or the day ends.
      const [hold] = await ctx.sql<{ held: boolean }[]>`select dispatch.hold_for_budget(${task_id}) as held`;
      if (hold!.held) return;
    }

    // The attempt's own worktree when the project has a repo (made before the worker starts).
    let workspace: WorkspaceRow | undefined;
    try {
      workspace = await prepareWorkspace(ctx, task, projectConfig(task));
    } catch (err) {
      if (!(err instanceof RepoError) && !(err instanceof GitError && err.code === 'git_missing')) throw err;
      await ctx.sql`select dispatch.workspace_failed(${task_id}, ${err.code}, ${err.message})`;
      await endNotClean(ctx, task_id, 'failed', `no workspace: ${err.message}`);
      return;
    }
    if (!previous) await ctx.sql`select dispatch.set_task_status(${task_id}, 'running', ${`attempt ${task.attempt} started`})`;

    const cwd = workspace?.path ?? workDir(ctx, task);
    const intent = workerIntent(task, projectConfig(task), cwd, ctx.config);
    const { outcome, sessionId } = await runOrAdopt(ctx, task, async (sid) => ({ ...intent, gate: await gateFor(ctx, sid, cwd) }), helpers.abortSignal);
    await afterWorker(ctx, task_id, outcome.status, outcome.reason, sessionId);
  };
}

/** What follows a worker session's end: the handoff (success), the gate (gated), else the return policy. */
export async function afterWorker(ctx: JobContext, taskId: string, status: Status, reason: string, sessionId: string): Promise<void> {
  const task = await loadTask(ctx, taskId);
  if (!task || task.ended_at) return;
  // Whatever the worker left is committed and its change journalled, however it ended — except at a
  // gate, where the same worker carries on in the same worktree once a person decides.
  if (projectConfig(task).repo && status !== 'gated') await finishWorkspace(ctx, task);
  if (task.cancel_requested_at) {
    await endNotClean(ctx, taskId, 'cancelled', status === 'cancelled' ? reason : `cancel requested; the worker ended ${status}`);
    return;
  }
  if (status === 'success' && projectConfig(task).verify) {
    // The project's own check decides whether the work is done, before any handoff is extracted.
    await ctx.sql.begin(async (tx) => {
      await tx`select dispatch.set_task_status(${taskId}, 'running', 'worker finished; running the check')`;
      await tx`select graphile_worker.add_job('verify_task', ${tx.json({ task_id: taskId })}::json,
                 job_key := ${`verify_task:${taskId}:${task.attempt}`}, max_attempts := 25)`;
    });
    return;
  }
  if (status === 'success') {
    await ctx.sql.begin(async (tx) => {
      await tx`select dispatch.set_task_status(${taskId}, 'running', 'worker finished; extracting its handoff')`;
      await tx`select graphile_worker.add_job('extract_handoff', ${tx.json({ task_id: taskId })}::json,
                 job_key := ${`extract_handoff:${taskId}:${task.attempt}`}, max_attempts := 25)`;
    });
    return;
  }
  if (status === 'gated') {
    // The process is gone; the task waits at its gate holding nothing (the call is in the journal).
    const { deferred } = await lastResult(ctx, sessionId);
    if (deferred) {
      await ctx.sql`select dispatch.park_task(${taskId}, ${sessionId}, ${deferred.tool},
                                              ${JSON.stringify(deferred.input)}::text::jsonb, ${deferred.id})`;
      return;
    }
  }
  await endNotClean(ctx, taskId, status, reason || task.status_reason || status);
}
