// One git worktree per task attempt: made before the worker starts (from base, or from the parent
// task's or the dependency's branch it builds on), found again when a session is re-adopted, and closed when the worker ends —
// leftovers committed on its branch by dispatch, the change journalled once (workspace.changed).
import fs from 'node:fs';
import path from 'node:path';
import { DISPATCH_IDENTITY, git } from '../../core/git/git.ts';
import { inspectRepo } from '../../core/git/repo.ts';
import type { ProjectConfig } from '../../core/contracts/project-config.ts';
import type { JobContext, TaskRow } from '../context.ts';
import { checkMerge, describeChange } from './change.ts';
import { withRepoLock } from './lock.ts';

export interface WorkspaceRow {
  id: string;
  project_id: string;
  task_id: string;
  attempt: number;
  repo: string;
  base: string;
  branch: string;
  path: string;
  from_ref: string;
  base_commit: string;
  head_commit: string | null;
  state: string;
  conflicts: string[];
  removed_at: Date | null;
}

/** `dispatch/<short task id>-<attempt>`. */
export function branchName(taskId: string, attempt: number): string {
  return `dispatch/${taskId.slice(0, 8)}-${attempt}`;
}

/** DISPATCH_DATA_DIR/worktrees/<project id>/<short task id>-<attempt>. */
export function worktreePath(dataDir: string, projectId: string, taskId: string, attempt: number): string {
  return path.join(dataDir, 'worktrees', projectId, `${taskId.slice(0, 8)}-${attempt}`);
}

export async function workspaceOf(ctx: Pick<JobContext, 'sql'>, taskId: string, attempt?: number): Promise<WorkspaceRow | undefined> {
  const [row] = await ctx.sql<WorkspaceRow[]>`
    select id, project_id, task_id, attempt, repo, base, branch, path, from_ref, base_commit, head_commit, state, conflicts, removed_at
      from dispatch.workspaces
     where task_id = ${taskId} ${attempt === undefined ? ctx.sql`` : ctx.sql`and attempt = ${attempt}`}
     order by attempt desc limit 1`;
  return row;
}

/**
 * The worktree the task's current attempt works in: made now (journalled workspace.created), or the
 * one made before (a re-run after a crash). Undefined when the project has no `repo`. Throws
 * RepoError (not a repository, unknown base, no git) for the caller to fail the task with.
 */
export async function prepareWorkspace(ctx: JobContext, task: TaskRow, pc: ProjectConfig): Promise<WorkspaceRow | undefined> {
  if (!pc.repo) return undefined;
  const bin = ctx.config.GIT_BIN;
  const existing = await workspaceOf(ctx, task.id, task.attempt);
  if (existing && fs.existsSync(existing.path)) return existing;

  const info = await inspectRepo(pc.repo, pc.base, bin, { allowDirty: true });
  const branch = existing?.branch ?? branchName(task.id, task.attempt);
  const dir = existing?.path ?? worktreePath(ctx.dataDir, task.project_id, task.id, task.attempt);
  let from = info.base;
  let start = info.baseCommit;
  // A stacked task starts from the branch of the dependency it builds on, unless that change is
  // merged (base holds it then); else a follow-up starts from its parent's branch.
  const [stack] = await ctx.sql<{ id: string | null }[]>`select dispatch.builds_on(${task.id}) as id`;
  const from_task = stack!.id ?? task.parent_id;
  const parent = from_task ? await workspaceOf(ctx, from_task) : undefined;
  // A dependency's change that is merged is in base; one that is empty or being discarded has no
  // branch to build on (it may be gone by now): start from base then.
  const gone = ['merged', 'empty', 'discarding', 'discarded'];
  if (parent && parent.repo === info.repo && !(stack!.id && gone.includes(parent.state))) {
    from = parent.branch;
    start = parent.head_commit ?? (await git(['rev-parse', `refs/heads/${parent.branch}`], { cwd: info.repo, bin })).stdout.trim();
  }

  await withRepoLock(ctx.sql, info.repo, async () => {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    if (fs.existsSync(path.join(dir, '.git'))) return; // made just before a crash, before it was recorded
    const add = async () => {
      const has = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: info.repo, bin, ok: [1] });
      await git(['worktree', 'add', ...(has.code === 0 ? [dir, branch] : ['-b', branch, dir, start])], { cwd: info.repo, bin });
    };
    // A stale record of a worktree whose folder is gone blocks the branch: prune it and try again.
    await add().catch(async () => {
      await git(['worktree', 'prune'], { cwd: info.repo, bin });
      await add();
    });
  });
  const baseCommit = existing?.base_commit ?? start;
  await ctx.sql`select dispatch.workspace_created(${task.id}, ${task.attempt}, ${info.repo}, ${info.base}, ${branch}, ${dir},
                                                  ${from}, ${baseCommit})`;
  return (await workspaceOf(ctx, task.id, task.attempt))!;
}

/**
 * The worker of the task's current attempt ended: commits what it left uncommitted on its branch
 * (a generated message naming the task), then journals the change once. A re-run finds it done.
 */
export async function finishWorkspace(ctx: JobContext, task: TaskRow): Promise<WorkspaceRow | undefined> {
  const w = await workspaceOf(ctx, task.id, task.attempt);
  if (!w || w.state !== 'active') return w;
  const bin = ctx.config.GIT_BIN;
  if (fs.existsSync(w.path)) await commitLeftovers(w.path, task, bin);
  const head = (await git(['rev-parse', `refs/heads/${w.branch}`], { cwd: w.repo, bin })).stdout.trim();
  const change = await describeChange(w.repo, w.base_commit, head, bin);
  let conflicts: string[] = [];
  let detail: string | null = null;
  if (change.files.length) {
    const base = (await git(['rev-parse', `refs/heads/${w.base}`], { cwd: w.repo, bin })).stdout.trim();
    const check = await checkMerge(w.repo, base, head, bin);
    conflicts = check.files;
    detail = check.detail;
  }
  await ctx.sql`select dispatch.workspace_changed(${task.id}, ${task.attempt}, ${head}, ${JSON.stringify(change)}::text::jsonb,
                                                  ${JSON.stringify(conflicts)}::text::jsonb, ${detail})`;
  return workspaceOf(ctx, task.id, task.attempt);
}

/** Commits everything uncommitted in the worktree (tracked or not, ignored files aside). */
export async function commitLeftovers(dir: string, task: Pick<TaskRow, 'id' | 'attempt' | 'brief'>, bin?: string): Promise<boolean> {
  const status = await git(['status', '--porcelain', '-z', '--untracked-files=all'], { cwd: dir, bin });
  if (!status.stdout.length) return false;
  await git(['add', '-A'], { cwd: dir, bin });
  const title = task.brief.split('\n')[0]!.slice(0, 72);
  const message = `dispatch: work left uncommitted by task ${task.id.slice(0, 8)} (attempt ${task.attempt})\n\n` +
    `${title}\n\nTask: ${task.id}\nCommitted by petal-dispatch when the worker ended.`;
  await git(['commit', '--no-verify', '--quiet', '-m', message], { cwd: dir, bin, env: DISPATCH_IDENTITY });
  return true;
}

/** Where the task's current attempt runs: its worktree when it has one. */
export async function workspaceDir(ctx: JobContext, task: TaskRow): Promise<string | undefined> {
  const w = await workspaceOf(ctx, task.id, task.attempt);
  return w && fs.existsSync(w.path) ? w.path : undefined;
}

/** The handoff's artifacts for the attempt's change: its branch and head commit. */
export async function workspaceArtifacts(ctx: Pick<JobContext, 'sql'>, task: Pick<TaskRow, 'id' | 'attempt'>): Promise<{ kind: string; ref: string }[]> {
  const w = await workspaceOf(ctx, task.id, task.attempt);
  if (!w?.head_commit) return [];
  return [{ kind: 'ref', ref: w.branch }, { kind: 'commit', ref: w.head_commit }];
}
