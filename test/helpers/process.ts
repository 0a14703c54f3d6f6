// Starting petal-dispatch commands as real processes, and waiting on them.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { defer } from './teardown.ts';

export { freePort } from '../../core/db/embedded.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a TypeScript entry point the way the npm scripts do (node + tsx), with the given env. */
export function startEntry(entry: string, env: NodeJS.ProcessEnv, args: string[] = []): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, entry), ...args], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  // Whatever the test did, the process is gone when the file ends: SIGTERM (so it stops its own
  // children), then SIGKILL after 10 s. The global teardown reports anything that outlives it.
  defer(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }, `stop ${entry} ${args.join(' ')}`);
  return { child, output: () => out, exited };
}

/** The environment without the variables a test wants to control itself. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of ['DATABASE_URL', 'PORT', 'HOST', 'DISPATCH_DATA_DIR', 'CLAUDE_BIN', 'STALL_SECONDS', 'OPEN_MODE', 'DISPATCH_TOKEN', 'LOG_LEVEL', 'PUBLIC_URL']) delete env[k];
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/**
 * `dispatch serve` (or another mode) as its own process on a port the OS picks (PORT=0): resolves
 * with its URL read back from its "listening on" line — no port chosen beforehand, so no race.
 * Given a fixed `port` (a process that must come back where it was, e.g. after kill -9), a start
 * that finds the port taken (EADDRINUSE: the old socket not yet released, or another process that
 * grabbed it meanwhile) is tried again until the timeout; a server that started on the port is
 * never confused with one that did not.
 */
export async function startServer(
  env: NodeJS.ProcessEnv,
  mode: string[] = ['serve'],
  { timeout = 60_000, port = 0 }: { timeout?: number; /** a fixed port, when the process must come back on it */ port?: number } = {},
): Promise<Started & { url: string }> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const s = startEntry('bin/main.ts', { LOG_LEVEL: 'info', ...env, PORT: String(port) }, mode);
    for (;;) {
      const m = /listening on (http:\/\/\S+)/.exec(s.output());
      if (m) return { ...s, url: m[1]! };
      if (s.child.exitCode !== null || s.child.signalCode !== null) break;
      if (Date.now() > deadline) throw new Error(`bin/main.ts ${mode.join(' ')} did not listen within ${timeout} ms:\n${s.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!(port && /EADDRINUSE/.test(s.output()) && Date.now() < deadline)) {
      throw new Error(`bin/main.ts ${mode.join(' ')} exited before listening:\n${s.output()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
