// Running git: an argument array (never a shell), no stdin, stdout collected (or bounded), a non-zero
// exit becomes a GitError carrying the exit code and the tail of stderr. A missing git binary is a
// GitError with code 'git_missing', so callers can say so instead of crashing.
import { spawn } from 'node:child_process';

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    /** 'git_missing' when the binary could not be started, else 'git_failed'. */
    readonly code: 'git_missing' | 'git_failed',
    readonly exitCode: number | null = null,
    readonly stderr = '',
  ) {
    super(message);
  }
}

export interface GitOptions {
  cwd: string;
  /** The git executable (GIT_BIN); default `git` on the PATH. */
  bin?: string;
  /** Extra environment (identity for commits dispatch makes). */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 for `merge-base --is-ancestor`). */
  ok?: number[];
  /** Keep at most this many bytes of stdout; the total is still counted. */
  limit?: number;
}

export interface GitResult {
  stdout: string;
  code: number;
  /** Bytes git wrote to stdout (more than `stdout` holds when `limit` cut it). */
  bytes: number;
  truncated: boolean;
}

/** Runs `git args…` in `cwd`. Never through a shell; no pager, no prompts, no locale surprises. */
export function git(args: string[], o: GitOptions): Promise<GitResult> {
  const bin = o.bin ?? 'git';
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: o.cwd,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C', ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      bytes += c.length;
      if (o.limit === undefined) return void out.push(c);
      if (kept >= o.limit) return;
      const take = c.subarray(0, o.limit - kept);
      out.push(take);
      kept += take.length;
    });
    child.stderr.on('data', (c: Buffer) => {
      err = (err + c.toString('utf8')).slice(-4000);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' && e.path === bin) reject(new GitError(`git is not installed or not on the PATH (${bin})`, 'git_missing'));
      else if (e.code === 'ENOENT') reject(new GitError(`no such directory: ${o.cwd}`, 'git_failed'));
      else reject(new GitError(`could not run ${bin}: ${e.message}`, 'git_failed'));
    });
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const c = code ?? -1;
      if (c === 0 || o.ok?.includes(c)) return resolve({ stdout, code: c, bytes, truncated: o.limit !== undefined && bytes > kept });
      reject(new GitError(`git ${args[0]} failed (exit ${c}): ${err.trim().split('\n').slice(-3).join(' ') || 'no message'}`, 'git_failed', c, err));
    });
  });
}

/** The identity of commits dispatch itself makes (the worker's own commits keep theirs). */
export const DISPATCH_IDENTITY: Record<string, string> = {
  GIT_AUTHOR_NAME: 'petal-dispatch',
  GIT_AUTHOR_EMAIL: 'dispatch@petal-dispatch.invalid',
  GIT_COMMITTER_NAME: 'petal-dispatch',
  GIT_COMMITTER_EMAIL: 'dispatch@petal-dispatch.invalid',
};
