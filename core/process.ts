// Child processes the way this codebase runs them: an argument array (never a shell), no stdin, in a
// process group of their own (so a stop reaches the tools they started), recognised later by an
// identity in their environment rather than by a pid alone. Used by the session supervisor and by
// the embedded Postgres.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

/** How a child ended: its exit code or the signal that ended it (both null when it never started). */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

export interface GroupChild {
  /** Undefined when the process could not be started (see `error`). */
  pid: number | undefined;
  /** Resolves once, when the process ends or fails to start. */
  ended: Promise<ProcessExit>;
  /** The start failure, once `ended` has resolved for a process that never ran. */
  error(): Error | null;
}

export interface GroupSpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** File descriptors for stdout and stderr (the caller closes its copies after the call). */
  stdout: number | 'ignore';
  stderr: number | 'ignore';
  /** Run as another user (the embedded Postgres refuses root). */
  uid?: number;
  gid?: number;
}

/** Starts `bin args…` as the leader of a new process group, stdin closed. */
export function spawnGroup(bin: string, args: string[], o: GroupSpawnOptions): GroupChild {
  let failure: Error | null = null;
  const child = spawn(bin, args, {
    cwd: o.cwd,
    env: o.env,
    uid: o.uid,
    gid: o.gid,
    detached: true,
    stdio: ['ignore', o.stdout, o.stderr],
  });
  const ended = new Promise<ProcessExit>((resolve) => {
    child.once('error', (e) => {
      failure = e;
      resolve({ code: null, signal: null });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { pid: child.pid, ended, error: () => failure };
}

/** Sends a signal to the whole process group led by pid; a group already gone is not an error. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * Whether a process with this pid runs (EPERM: it exists but belongs to someone else). A zombie — dead,
 * waiting for its parent to reap it, which a container's PID 1 may never do — is not running.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procStat(pid)?.state;
  return state !== 'Z' && state !== 'X';
}

/**
 * When the process started, in clock ticks since boot (/proc/<pid>/stat field 22): with the pid it
 * names one process for good, where a pid alone may be reused. Null when unknown (gone, or no /proc).
 */
export function startTime(pid: number): string | null {
  return procStat(pid)?.start ?? null;
}

function procStat(pid: number): { state: string; start: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, start: fields[19]! };
  } catch {
    return null;
  }
}

/** The environment variable that names the session a process was started for. */
export const SESSION_ENV = 'PETAL_DISPATCH_SESSION';

/** Whether the process is the one started for this session (its environment names the session). */
export function runsSession(pid: number, sessionId: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${SESSION_ENV}=${sessionId}`);
  } catch {
    return process.platform !== 'linux' && isAlive(pid); // no /proc: trust the pid
  }
}

/** Resolves once the process is gone, checking every `everyMs`; `stop()` ends the watch early. */
export function whenGone(pid: number, everyMs = 100): { gone: Promise<void>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const gone = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      if (!isAlive(pid)) {
        clearInterval(timer);
        resolve();
      }
    }, everyMs);
  });
  return { gone, stop: () => clearInterval(timer) };
}
