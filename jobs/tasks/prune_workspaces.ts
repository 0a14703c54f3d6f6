// prune_workspaces: housekeeping at each runner start — `git worktree prune` in every project
// repository, and the worktrees of merged or discarded changes removed (workspace.removed).
import type { Task } from 'graphile-worker';
import type { JobContext } from '../context.ts';
import { pruneWorkspaces } from '../workspace/decide.ts';

export function pruneWorkspacesJob(ctx: JobContext): Task {
  return async () => {
    const n = await pruneWorkspaces(ctx);
    if (n) ctx.log.info(`housekeeping removed ${n} worktree(s) of decided changes`);
  };
}
