// `npm run dispatch -- psql`: the real psql on the database in use, the terminal handed to it.
import { spawn } from 'node:child_process';
import os from 'node:os';

export const NO_PSQL =
  'psql is not installed (or not on PATH). Install the PostgreSQL client — Debian/Ubuntu: apt install postgresql-client; ' +
  'macOS: brew install libpq — or point any Postgres client at the URL `npm run dispatch -- psql --print-url` prints.';

/**
 * The URL without its password, and the password for PGPASSWORD: the command line of a process is
 * readable by every user of the machine, its environment is not.
 */
export function splitPassword(url: string): { url: string; password: string | null } {
  try {
    const u = new URL(url);
    if (!u.password) return { url, password: null };
    const password = decodeURIComponent(u.password);
    u.password = '';
    return { url: u.toString(), password };
  } catch {
    return { url, password: null };
  }
}

/** Runs psql on the URL with the given arguments; resolves with its exit code (1 when there is no psql). */
export function openPsql(url: string, args: string[], env: NodeJS.ProcessEnv, warn: (s: string) => void): Promise<number> {
  const { url: bare, password } = splitPassword(url);
  const child = spawn('psql', [bare, ...args], { stdio: 'inherit', env: password === null ? env : { ...env, PGPASSWORD: password } });
  // Ctrl-C reaches psql from the terminal (it cancels the query); this process waits it out.
  const ignore = () => {};
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', ignore);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  return new Promise<number>((resolve) => {
    const done = (code: number) => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
      resolve(code);
    };
    child.on('error', (err: NodeJS.ErrnoException) => {
      warn(err.code === 'ENOENT' ? NO_PSQL : `could not start psql: ${err.message}`);
      done(1);
    });
    child.on('exit', (code, signal) => done(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
  });
}

