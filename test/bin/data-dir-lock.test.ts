// The data folder belongs to whoever holds its OS lock (issue 39): a start right after a kill -9 is
// never refused — not while the killed process is a zombie no one reaps, as under a container's PID 1
// that does not reap — two starts at one moment leave exactly one owner, and a stale owner.pid naming
// a live process of another program stops nothing. One data folder serves every test of the file.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/db.ts';
import { startGroup, startMainGroup, type GroupRun } from '../helpers/group.ts';
import { cleanEnv } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';

let dataDir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  const dir = tempDir('pd-lock-');
  fs.chmodSync(dir, 0o755); // the postgres user runs the server when we are root
  dataDir = path.join(dir, 'data');
  env = cleanEnv({ DISPATCH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
});

async function serving(run: GroupRun): Promise<string> {
  const [, url] = await run.waitForOutput(/listening on (http:\/\/\S+)/);
  await waitFor(() => fetch(`${url}/healthz`).then((r) => r.ok, () => false), Boolean, { timeout: 30_000, what: () => `healthz (${run.output()})` });
  return url!;
}

async function stopCleanly(run: GroupRun): Promise<void> {
  run.signal('SIGTERM');
  expect(await run.exited).toEqual({ code: 0, signal: null });
  await waitFor(() => run.survivors(), (p) => p.length === 0, { timeout: 60_000, what: () => `the run gone:\n${run.output()}` });
  expect(run.output()).toContain('embedded Postgres stopped');
}

function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
  } catch {
    return null;
  }
}

describe('the data folder is owned through an OS lock', () => {
  it('a stale owner.pid naming a live process of another program (the test runner) does not stop the start', async () => {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'owner.pid'), `${process.pid}\n`);
    const run = startMainGroup(env);
    await serving(run);
    expect(run.output()).not.toContain('is in use by process');
    await stopCleanly(run);
  }, 240_000);

  it('two starts launched together on one folder: one serves, the other exits 1 at once naming it', async () => {
    const both = [startMainGroup(env), startMainGroup(env)];
    const loser = await Promise.race(both.map((r) => r.exited.then(() => r)));
    const winner = both.find((r) => r !== loser)!;
    expect(await loser.exited).toEqual({ code: 1, signal: null });
    expect(loser.output()).toContain(`the data folder ${dataDir} is in use by process ${winner.pid}.`);
    expect(loser.output()).not.toMatch(/initialising|stopping Postgres|embedded Postgres ready/); // it touched nothing
    await serving(winner);
    process.stdout.write(`two at once: pid ${winner.pid} serves, pid ${loser.pid} exited 1: ${/is in use by process \d+/.exec(loser.output())![0]}\n`);
    await stopCleanly(winner);
  }, 240_000);

  it('kill -9 of the whole group and an immediate restart, ten times in a row: each start serves, its killed predecessor still a zombie', async () => {
    // Each main process runs under a parent that never reaps it (`sleep`, exec'd by the shell that
    // started it in the background), in a process group of its own (setsid): its kill -9 leaves a
    // zombie for as long as the test runs — the container whose PID 1 does not reap.
    const startHeld = async (): Promise<{ run: GroupRun; main: number }> => {
      // `serve`: the folder is claimed and its Postgres recovered as by `npm start`, with no runner to start.
      const main = [process.execPath, '--import', 'tsx', 'bin/main.ts', 'serve'];
      const run = startGroup(['sh', '-c', 'setsid "$@" & echo "main pid $!"; exec sleep 600', 'sh', ...main], env);
      const [, pid] = await run.waitForOutput(/main pid (\d+)/);
      return { run, main: Number(pid) };
    };
    let previous = await startHeld();
    await serving(previous.run);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      process.kill(-previous.main, 'SIGKILL'); // the whole group of the main process, then at once:
      const t0 = Date.now();
      const next = await startHeld();
      await serving(next.run);
      times.push(Date.now() - t0);
      expect(next.run.output()).not.toContain('is in use by process');
      expect(next.run.output()).toContain('stopping Postgres left running by a previous run');
      expect(processState(previous.main)).toBe('Z'); // the killed owner was a zombie all along
      previous = next;
    }
    process.stdout.write(`ten kill -9 + restart, ms from start to /healthz: ${times.join(', ')}\n`);
    previous.run.signal('SIGKILL'); // the holder, not the main process: that one stops cleanly below
    process.kill(-previous.main, 'SIGTERM');
    await waitFor(() => processState(previous.main), (s) => s === null || s === 'Z', { timeout: 60_000, what: 'the last main process stopped' });
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 300_000);
});
