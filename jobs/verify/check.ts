// Runs a project's check (config.verify) once: its argument array, never through a shell; in its
// own process group with stdin closed; stdout and stderr into one spool file (nothing is held in
// memory, and a runner that dies leaves the file); killed — the whole group — at the timeout or
// when the runner stops. Only the output's tail is kept (OUTPUT_TAIL bytes), for the journal.
import fs from 'node:fs';
import path from 'node:path';
import { killGroup, spawnGroup } from '../../core/process.ts';

/** The most output a verdict carries (its end, where test runners put their summary). */
export const OUTPUT_TAIL = 8 * 1024;
/** After SIGTERM at the timeout, this long before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** The environment variable that names the check a process was started for (`<task>:<attempt>`). */
export const CHECK_ENV = 'PETAL_DISPATCH_CHECK';

export interface CheckSpec {
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** `<task id>:<attempt>`, set in the check's environment to recognise it later. */
  identity: string;
  spool: string;
  /** The runner is stopping: the check is killed and reported as interrupted (not a verdict). */
  abort: AbortSignal;
  /** Called once the process runs, with its pid (to journal verify.started). */
  onStart(pid: number | null): Promise<void>;
}

export interface CheckVerdict {
  passed: boolean;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  output_tail: string;
  command: string[];
  timed_out: boolean;
  /** Why it failed when there is no exit code to say it (not found, timed out). */
  reason: string | null;
}

export class CheckInterrupted extends Error {
  override name = 'CheckInterrupted';
}

/** Runs the check to its end and returns its verdict; throws CheckInterrupted when aborted. */
export async function runCheck(spec: CheckSpec): Promise<CheckVerdict> {
  fs.mkdirSync(path.dirname(spec.spool), { recursive: true });
  const fd = fs.openSync(spec.spool, 'w');
  const started = Date.now();
  const [bin, ...args] = spec.command;
  const child = spawnGroup(bin!, args, { cwd: spec.cwd, env: { ...spec.env, [CHECK_ENV]: spec.identity }, stdout: fd, stderr: fd });
  fs.closeSync(fd);
  const verdict = (over: Partial<CheckVerdict>): CheckVerdict => ({
    passed: false, exit_code: null, signal: null, duration_ms: Date.now() - started, output_tail: readTail(spec.spool),
    command: spec.command, timed_out: false, reason: null, ...over,
  });

  if (child.pid === undefined) {
    await child.ended;
    await spec.onStart(null);
    const e = child.error() as NodeJS.ErrnoException | null;
    const reason = e?.code === 'ENOENT' ? `command not found: ${bin}` : `could not start ${bin}: ${e?.message ?? 'unknown error'}`;
    return verdict({ reason, output_tail: reason });
  }
  const pid = child.pid;
  await spec.onStart(pid);

  let timedOut = false;
  let hardKill: NodeJS.Timeout | undefined;
  const stop = (signal: NodeJS.Signals) => {
    killGroup(pid, signal);
    hardKill ??= setTimeout(() => killGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop('SIGTERM');
  }, spec.timeoutMs);
  const onAbort = () => stop('SIGTERM');
  spec.abort.addEventListener('abort', onAbort, { once: true });
  const exit = await child.ended;
  clearTimeout(timer);
  spec.abort.removeEventListener('abort', onAbort);
  // The leader is gone; anything it left in its group goes with it.
  killGroup(pid, 'SIGKILL');
  if (hardKill) clearTimeout(hardKill);
  if (spec.abort.aborted && !timedOut) throw new CheckInterrupted('the runner stopped during the check');

  const seconds = Math.round(spec.timeoutMs / 1000);
  return verdict({
    passed: !timedOut && exit.code === 0,
    exit_code: exit.code,
    signal: exit.signal,
    timed_out: timedOut,
    reason: timedOut ? `timed out after ${seconds} s` : exit.code === null ? `killed by ${exit.signal}` : null,
  });
}

/** The last OUTPUT_TAIL bytes of the file, cut at a line start when it was longer. */
export function readTail(file: string): string {
  try {
    const size = fs.statSync(file).size;
    const from = Math.max(0, size - OUTPUT_TAIL);
    const fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(size - from);
    fs.readSync(fd, buf, 0, buf.length, from);
    fs.closeSync(fd);
    let text = buf.toString('utf8');
    if (from > 0) {
      const nl = text.indexOf('\n');
      text = `[… ${from} earlier bytes not kept]\n${nl >= 0 ? text.slice(nl + 1) : text}`;
    }
    return text.replaceAll('\0', '\uFFFD');
  } catch {
    return '';
  }
}
