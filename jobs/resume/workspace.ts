// A resumed attempt works in the worktree its conversation knows: the previous attempt's folder, on
// a branch of its own (dispatch/<task>-<attempt>, started at the previous head so that attempt's
// branch stays as it was), with the same base commit — so the attempt's change is the task's whole
// change and two attempts' changes compare (the fix loop's "stuck").
import fs from 'node:fs';
import { git } from '../../core/git/git.ts';
import type { JobContext, TaskRow } from '../context.ts';
import { withRepoLock } from '../workspace/lock.ts';
import { branchName, prepareWorkspace, workspaceOf, type WorkspaceRow } from '../workspace/worktree.ts';
import { projectConfig } from '../tasks/shared.ts';

/** The worktree of a resumed attempt (made now, or found again); a fresh one when the old folder is gone. */
export async function continueWorkspace(ctx: JobContext, task: TaskRow): Promise<WorkspaceRow | undefined> {
  const pc = projectConfig(task);
  if (!pc.repo) return undefined;
  const existing = await workspaceOf(ctx, task.id, task.attempt);
  if (existing && fs.existsSync(existing.path)) return existing;
  const [prev] = await ctx.sql<{ attempt: number }[]>`
    select attempt from dispatch.workspaces where task_id = ${task.id} and attempt < ${task.attempt} order by attempt desc limit 1`;
  const from = prev ? await workspaceOf(ctx, task.id, prev.attempt) : undefined;
  if (!from || !fs.existsSync(from.path)) return prepareWorkspace(ctx, task, pc);

  const bin = ctx.config.GIT_BIN;
  const branch = branchName(task.id, task.attempt);
  const head = from.head_commit ?? (await git(['rev-parse', 'HEAD'], { cwd: from.path, bin })).stdout.trim();
  await withRepoLock(ctx.sql, from.repo, async () => {
    // -B: a re-run after a crash between this and the record below lands on the same branch.
    await git(['checkout', '--quiet', '-B', branch, head], { cwd: from.path, bin });
  });
  await ctx.sql`select dispatch.workspace_created(${task.id}, ${task.attempt}, ${from.repo}, ${from.base}, ${branch}, ${from.path},
                                                  ${from.branch}, ${from.base_commit})`;
  return (await workspaceOf(ctx, task.id, task.attempt))!;
}
