// What a person decides about a change, carried out in the project's repository: merge the branch
// into base (fast-forward when base has not moved, else a merge commit; a conflict is refused naming
// the files), discard it (worktree and branch go; the patch stays in the journal), and remove the
// worktrees of decided changes. Each outcome is journalled through the workspace_* SQL functions.
import fs from 'node:fs';
import { DISPATCH_IDENTITY, git, GitError } from '../../core/git/git.ts';
import { isDirty, worktreeOf } from '../../core/git/repo.ts';
import type { JobContext } from '../context.ts';
import { checkMerge } from './change.ts';
import { withRepoLock } from './lock.ts';
import type { WorkspaceRow } from './worktree.ts';

type Ctx = Pick<JobContext, 'sql' | 'log' | 'config'>;

async function isAncestor(repo: string, a: string, b: string, bin?: string): Promise<boolean> {
  return (await git(['merge-base', '--is-ancestor', a, b], { cwd: repo, bin, ok: [1] })).code === 0;
}

async function refCommit(repo: string, ref: string, bin?: string): Promise<string | null> {
  const r = await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repo, bin, ok: [1] });
  return r.code === 0 ? r.stdout.trim() : null;
}

/** Merges the workspace's branch into base; journals workspace.merged or workspace.merge_refused. */
export async function mergeWorkspace(ctx: Ctx, w: WorkspaceRow, title: string): Promise<'merged' | 'refused'> {
  const bin = ctx.config.GIT_BIN;
  const refuse = async (reason: string, files: string[] = [], detail: string | null = null) => {
    await ctx.sql`select dispatch.workspace_merge_refused(${w.id}, ${reason}, ${JSON.stringify(files)}::text::jsonb, ${detail})`;
    return 'refused' as const;
  };
  const outcome = await withRepoLock(ctx.sql, w.repo, async () => {
    const head = w.head_commit ?? (await refCommit(w.repo, `refs/heads/${w.branch}`, bin));
    const before = await refCommit(w.repo, `refs/heads/${w.base}`, bin);
    if (!head) return refuse(`the branch ${w.branch} is gone`);
    if (!before) return refuse(`the base branch ${w.base} is gone`);

    let target = head;
    let fastForward = true;
    if (await isAncestor(w.repo, head, before, bin)) {
      target = before; // already in base
      fastForward = false;
    } else if (!(await isAncestor(w.repo, before, head, bin))) {
      const check = await checkMerge(w.repo, before, head, bin);
      if (!check.clean) {
        return refuse(`${w.branch} conflicts with ${w.base} in ${check.files.join(', ')}`, check.files, check.detail);
      }
      fastForward = false;
      const message = `Merge ${w.branch} into ${w.base}\n\n${title}\n\nTask: ${w.task_id}\nMerged by petal-dispatch.`;
      target = (await git(['commit-tree', check.tree, '-p', before, '-p', head, '-m', message], { cwd: w.repo, bin, env: DISPATCH_IDENTITY })).stdout.trim();
    }

    if (target !== before) {
      // Where base is checked out, move it with git's own safety (local changes it would overwrite
      // refuse it); elsewhere move the ref, only if nobody moved it meanwhile.
      const checkedOut = await worktreeOf(w.repo, w.base, bin);
      try {
        if (checkedOut) await git(['merge', '--ff-only', '--quiet', target], { cwd: checkedOut, bin, env: DISPATCH_IDENTITY });
        else await git(['update-ref', '-m', `petal-dispatch: merge ${w.branch}`, `refs/heads/${w.base}`, target, before], { cwd: w.repo, bin });
      } catch (err) {
        if (!(err instanceof GitError)) throw err;
        return refuse(`${w.base} could not move${checkedOut ? ` in ${checkedOut}` : ''}: ${err.stderr.trim().split('\n').slice(-2).join(' ') || err.message}`);
      }
    }
    await ctx.sql`select dispatch.workspace_merged(${w.id}, ${JSON.stringify({
      fast_forward: fastForward,
      merge_commit: fastForward || target === before ? null : target,
      base_before: before,
      base_after: target,
      already_in_base: target === before,
    })}::text::jsonb)`;
    const removed = await removeWorktree(ctx, w, { force: false });
    if (removed.worktree_removed) await git(['branch', '-D', w.branch], { cwd: w.repo, bin, ok: [1] });
    await ctx.sql`select dispatch.workspace_removed(${w.id}, ${JSON.stringify({ ...removed, branch_deleted: removed.worktree_removed })}::text::jsonb)`;
    return 'merged' as const;
  });
  if (outcome === 'merged') await recheckWaiting(ctx, w.repo, w.base);
  return outcome;
}

/** Discards the workspace: removes its worktree and branch; journals workspace.discarded. */
export async function discardWorkspace(ctx: Ctx, w: WorkspaceRow): Promise<void> {
  const bin = ctx.config.GIT_BIN;
  await withRepoLock(ctx.sql, w.repo, async () => {
    const removed = await removeWorktree(ctx, w, { force: true });
    const branch = await git(['branch', '-D', w.branch], { cwd: w.repo, bin, ok: [1] });
    await ctx.sql`select dispatch.workspace_discarded(${w.id}, ${JSON.stringify({ ...removed, branch_deleted: branch.code === 0 })}::text::jsonb)`;
  });
}

/**
 * Removes the worktree folder and git's record of it. Without `force` a worktree holding changes
 * nobody committed is kept (nothing uncommitted is ever deleted except by an explicit discard).
 */
export async function removeWorktree(ctx: Ctx, w: WorkspaceRow, o: { force: boolean }): Promise<{ worktree_removed: boolean; kept_reason?: string }> {
  const bin = ctx.config.GIT_BIN;
  if (fs.existsSync(w.path)) {
    if (!o.force && (await isDirty(w.path, bin).catch(() => false))) {
      ctx.log.warn(`worktree ${w.path} holds uncommitted changes: kept`);
      return { worktree_removed: false, kept_reason: 'uncommitted changes' };
    }
    await git(['worktree', 'remove', '--force', w.path], { cwd: w.repo, bin, ok: [128] });
    if (fs.existsSync(w.path)) fs.rmSync(w.path, { recursive: true, force: true });
  }
  await git(['worktree', 'prune'], { cwd: w.repo, bin });
  return { worktree_removed: true };
}

/** After base moved: re-checks the waiting changes against it (the cached conflicts merge_task reads). */
export async function recheckWaiting(ctx: Ctx, repo: string, base: string): Promise<void> {
  const bin = ctx.config.GIT_BIN;
  const baseHead = await refCommit(repo, `refs/heads/${base}`, bin);
  if (!baseHead) return;
  const waiting = await ctx.sql<{ id: string; head_commit: string }[]>`
    select id, head_commit from dispatch.workspaces where repo = ${repo} and base = ${base} and state = 'ready' and head_commit is not null`;
  for (const r of waiting) {
    const check = await checkMerge(repo, baseHead, r.head_commit, bin);
    await ctx.sql`select dispatch.workspace_checked(${r.id}, ${JSON.stringify(check.files)}::text::jsonb, ${check.detail})`;
  }
}

/** Housekeeping: `git worktree prune` in every repository, and removal of decided changes' worktrees. */
export async function pruneWorkspaces(ctx: Ctx): Promise<number> {
  const bin = ctx.config.GIT_BIN;
  const repos = await ctx.sql<{ repo: string }[]>`
    select distinct repo from (select repo from dispatch.workspaces
                               union select config ->> 'repo' from dispatch.projects where config ? 'repo') r
     where repo is not null`;
  for (const { repo } of repos) {
    if (!fs.existsSync(repo)) continue;
    await git(['worktree', 'prune'], { cwd: repo, bin }).catch((e: Error) => ctx.log.warn(`git worktree prune in ${repo}: ${e.message}`));
  }
  const decided = await ctx.sql<WorkspaceRow[]>`
    select id, project_id, task_id, attempt, repo, base, branch, path, from_ref, base_commit, head_commit, state, conflicts, removed_at
      from dispatch.workspaces where state in ('merged', 'discarded') and removed_at is null`;
  let n = 0;
  for (const w of decided) {
    if (!fs.existsSync(w.repo)) continue;
    const removed = await withRepoLock(ctx.sql, w.repo, () => removeWorktree(ctx, w, { force: w.state === 'discarded' }));
    if (removed.worktree_removed) {
      await ctx.sql`select dispatch.workspace_removed(${w.id}, ${JSON.stringify({ ...removed, by: 'housekeeping' })}::text::jsonb)`;
      n++;
    }
  }
  return n;
}
