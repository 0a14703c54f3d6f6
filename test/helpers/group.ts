// Commands run the way a terminal runs a job: in a process group of their own, so a test can signal
// the whole group (Ctrl-C is SIGINT to the foreground group; `kill -9 -PGID`), and find what of it
// survived by a marker in the environment that every descendant inherits — the embedded Postgres too.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../core/db/embedded.ts';
import { createSql } from '../../core/db/client.ts';
import { processesWith } from './marked-processes.ts';
import { repoRoot } from './process.ts';
import { defer } from './teardown.ts';

export interface GroupRun {
  /** The group's leader; the group id is the same number. */
  pid: number;
  /** The marker every process of the run carries (see processesWith). */
  marker: string;
  output(): string;
  /** How the leader ended, once its output is read to the end. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Signals every process of the group. */
  signal(sig: NodeJS.Signals): void;
  /** Resolves once the output matches (rejects when the leader ends first or after timeout ms). */
  waitForOutput(re: RegExp, timeout?: number): Promise<RegExpExecArray>;
  /** Live processes started by this run, in or out of the group (the embedded Postgres has its own). */
  survivors(): number[];
}

/** Runs argv as the leader of a new process group in the repository, stdin closed. */
export function startGroup(argv: string[], env: NodeJS.ProcessEnv): GroupRun {
  const marker = randomUUID();
  const child = spawn(argv[0]!, argv.slice(1), { cwd: repoRoot, env: { ...env, PD_TEST_MARKER: marker }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  const pid = child.pid!;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* the group is gone */
    }
  };
  // Whatever the test did, nothing of it outlives the file: SIGKILL to every process it started.
  defer(() => {
    for (const p of processesWith(marker)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }, `kill what ${argv.join(' ')} left`);
  return {
    pid,
    marker,
    output: () => out,
    exited,
    signal,
    async waitForOutput(re, timeout = 120_000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const m = re.exec(out);
        if (m) return m;
        if (ended) throw new Error(`${argv.join(' ')} ended before printing ${re}:\n${out}`);
        if (Date.now() > deadline) throw new Error(`${argv.join(' ')} did not print ${re} within ${timeout} ms:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    survivors: () => processesWith(marker),
  };
}

/** `node --import tsx bin/main.ts` (what `npm start` runs) as a group of its own. */
export function startMainGroup(env: NodeJS.ProcessEnv, args: string[] = []): GroupRun {
  return startGroup([process.execPath, '--import', 'tsx', path.join(repoRoot, 'bin/main.ts'), ...args], env);
}

export interface JournalledStartStop {
  event_type: 'server.started' | 'server.stopped';
  payload: { pid?: number; reason?: string; previous?: { stop: string } | null };
}

/**
 * server.started and server.stopped as the data folder's embedded Postgres holds them, read with
 * that Postgres started by the test for the moment (null: no cluster, or no journal in it yet).
 */
export async function journalledStartsAndStops(dataDir: string): Promise<JournalledStartStop[] | null> {
  if (!fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))) return null; // never a new cluster for a read
  const pg = await startEmbeddedPostgres({ dataDir, fast: true });
  try {
    const sql = createSql(pg.url.replace(/\/postgres$/, '/dispatch'), { max: 1 });
    try {
      const [journal] = await sql`select to_regclass('dispatch.events') as t`;
      if (!journal?.t) return null;
      return await sql<JournalledStartStop[]>`
        select event_type, payload from dispatch.events where event_type in ('server.started', 'server.stopped') order by seq`;
    } catch (err) {
      if ((err as { code?: string }).code === '3D000') return null; // no dispatch database yet
      throw err;
    } finally {
      await sql.end({ timeout: 1 });
    }
  } finally {
    await pg.stop();
  }
}
