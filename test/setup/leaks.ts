// Vitest global setup that makes leaks fail the run. It names the run (PD_TEST_RUN, set by
// test/setup/file.ts in each worker so every process a test starts inherits it) and gives it its own
// temp folder (TMPDIR in the workers). Its teardown runs after every other one (it is listed first)
// and fails the run when any process the suite started — claude, the runner, a scripted model, a
// browser, an embedded Postgres, a `dispatch` command — is still alive, or anything is left in the
// run's temp folder; test/setup/postgres.ts does the same for the run's databases. Leftovers are then
// killed and removed, so a failed run still leaves the machine clean.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's id: in PD_TEST_RUN of every process the suite starts, and in its database names. */
    pdRun: string;
    /** This run's temp folder (TMPDIR of the test workers). */
    pdRunTmp: string;
  }
}

export const RUN_VAR = 'PD_TEST_RUN';

export function setup(project: TestProject) {
  const run = randomBytes(4).toString('hex');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `pd-run-${run}-`));
  fs.chmodSync(tmp, 0o1777); // like /tmp: the embedded Postgres runs as another user and writes here
  project.provide('pdRun', run);
  project.provide('pdRunTmp', tmp);

  return async () => {
    const problems: string[] = [];
    // Give processes that are on their way out (a SIGTERM in flight) a moment.
    let alive = processesOf(run);
    for (const until = Date.now() + 10_000; alive.length && Date.now() < until; alive = processesOf(run)) {
      await new Promise((r) => setTimeout(r, 100));
    }
    if (alive.length) {
      problems.push(`${alive.length} process(es) the suite started are still alive:\n${alive.map((p) => `    ${p.pid} ${p.cmd}`).join('\n')}`);
      for (const p of alive) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          /* gone meanwhile */
        }
      }
    }
    // claude-<uid> and tsx-<uid> are the tools' own per-user folders (kept across runs by design);
    // .org.chromium.Chromium.* is Chromium's own scratch file, which a closed browser sometimes leaves
    // (no browser process is left: that is checked above).
    const left = (fs.existsSync(tmp) ? fs.readdirSync(tmp) : []).filter((n) => !/^(claude|tsx)-\d+$|^\.org\.chromium\.Chromium\./.test(n));
    if (left.length) problems.push(`left in the run's temp folder ${tmp}: ${left.join(', ')}`);
    fs.rmSync(tmp, { recursive: true, force: true });
    if (problems.length) failRun(problems);
  };
}

/**
 * Prints the problems and makes the run fail. It does not throw: vitest stops at the first global
 * teardown that throws (and only logs it), and the teardowns after this one must still clean up.
 */
export function failRun(problems: string[]): void {
  process.stderr.write(`\ntest suite left things behind (the run fails):\n  ${problems.join('\n  ')}\n`);
  process.exitCode = 1;
}

/** Live (not zombie) processes whose environment carries PD_TEST_RUN=<run>. */
export function processesOf(run: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  const needle = `\0${RUN_VAR}=${run}\0`;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const env = `\0${fs.readFileSync(`/proc/${entry}/environ`, 'latin1')}`;
      if (!env.includes(needle)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (/\) Z /.test(stat)) continue;
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').replace(/\0/g, ' ').trim().slice(0, 200);
      found.push({ pid: Number(entry), cmd });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}
