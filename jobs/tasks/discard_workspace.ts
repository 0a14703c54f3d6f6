// discard_workspace {task_id}: removes the task's worktree and branch (queued by
// dispatch.discard_task); workspace.discarded is journalled, the patch stays in workspace.changed.
import type { Task } from 'graphile-worker';
import { taskPayload, type JobContext } from '../context.ts';
import { discardWorkspace } from '../workspace/decide.ts';
import { workspaceOf } from '../workspace/worktree.ts';

export function discardWorkspaceJob(ctx: JobContext): Task {
  return async (raw) => {
    const { task_id } = taskPayload.parse(raw);
    const w = await workspaceOf(ctx, task_id);
    if (!w || w.state !== 'discarding') return;
    await discardWorkspace(ctx, w);
  };
}
