// A project's repository as dispatch needs it: a git working tree with a base branch that exists and,
// where it is checked out, carries no uncommitted changes. Checked at project creation (4xx) and
// again before each worktree is made (the task fails with the reason) — never a crash.
import fs from 'node:fs';
import path from 'node:path';
import { git, GitError } from './git.ts';

export type RepoProblem = 'git_missing' | 'not_a_repository' | 'unknown_base' | 'dirty_base';

export class RepoError extends Error {
  override name = 'RepoError';
  constructor(
    readonly code: RepoProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface RepoInfo {
  /** The repository's top-level folder, absolute. */
  repo: string;
  /** The base branch (short name). */
  base: string;
  /** The commit base points at. */
  baseCommit: string;
}

/**
 * Inspects `repoPath` for use as a project's repository: resolves it to its top level, resolves
 * `base` (default: the branch checked out there) and refuses a dirty base (unless `allowDirty`: a
 * worktree is made from base's commit, so only a merge minds).
 */
export async function inspectRepo(repoPath: string, base: string | undefined, bin?: string, o: { allowDirty?: boolean } = {}): Promise<RepoInfo> {
  const abs = path.resolve(repoPath);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) {
    throw new RepoError('not_a_repository', `${abs} is not a folder`);
  }
  let top: string;
  try {
    top = (await git(['rev-parse', '--show-toplevel'], { cwd: abs, bin })).stdout.trim();
  } catch (e) {
    if (e instanceof GitError && e.code === 'git_missing') throw new RepoError('git_missing', e.message);
    throw new RepoError('not_a_repository', `${abs} is not a git repository with a working tree`);
  }
  const name = base ?? (await currentBranch(top, bin));
  if (!name) throw new RepoError('unknown_base', `${top} has no branch checked out (detached HEAD): name a base branch`);
  const valid = await git(['check-ref-format', '--branch', name], { cwd: top, bin, ok: [1, 128] });
  if (valid.code !== 0) throw new RepoError('unknown_base', `${name} is not a valid branch name`);
  const commit = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${name}^{commit}`], { cwd: top, bin, ok: [1] });
  if (commit.code !== 0) throw new RepoError('unknown_base', `${top} has no branch ${name}${base ? '' : ' with a commit'}`);
  const checkedOut = await worktreeOf(top, name, bin);
  if (!o.allowDirty && checkedOut && (await isDirty(checkedOut, bin))) {
    throw new RepoError('dirty_base', `${name} is checked out at ${checkedOut} with uncommitted changes: commit or stash them first`);
  }
  return { repo: top, base: name, baseCommit: commit.stdout.trim() };
}

async function currentBranch(top: string, bin?: string): Promise<string | null> {
  const r = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: top, bin, ok: [1, 128] });
  return r.code === 0 ? r.stdout.trim() : null;
}

/** The worktree folder where `branch` is checked out, if any. */
export async function worktreeOf(repo: string, branch: string, bin?: string): Promise<string | null> {
  const list = (await git(['worktree', 'list', '--porcelain'], { cwd: repo, bin })).stdout;
  let current: string | null = null;
  for (const line of list.split('\n')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}` && current) return current;
  }
  return null;
}

/** Uncommitted changes to tracked files (untracked ones do not make a base dirty). */
export async function isDirty(worktree: string, bin?: string): Promise<boolean> {
  const r = await git(['status', '--porcelain', '--untracked-files=no'], { cwd: worktree, bin });
  return r.stdout.trim().length > 0;
}
