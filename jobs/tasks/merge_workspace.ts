// merge_workspace {task_id}: merges the task's change into its project's base branch (queued by
// dispatch.merge_task); the outcome is journalled (workspace.merged or workspace.merge_refused).
import type { Task } from 'graphile-worker';
import { taskPayload, type JobContext } from '../context.ts';
import { mergeWorkspace } from '../workspace/decide.ts';
import { workspaceOf } from '../workspace/worktree.ts';
import { loadTask } from './shared.ts';

export function mergeWorkspaceJob(ctx: JobContext): Task {
  return async (raw) => {
    const { task_id } = taskPayload.parse(raw);
    const w = await workspaceOf(ctx, task_id);
    if (!w || w.state !== 'merging') return; // decided otherwise meanwhile
    const task = await loadTask(ctx, task_id);
    await mergeWorkspace(ctx, w, task?.brief.split('\n')[0]!.slice(0, 72) ?? '');
  };
}
