// Stopped however and whenever (issue 37 item 8): Ctrl-C to `npm start 2>&1 | tee log` (the reader of
// our output dies with us: EPIPE), and SIGTERM or SIGHUP to the process group at several points of a
// first start. Each time what had started stops, no Postgres of the data folder survives, the exit
// code is 0, and server.stopped is journalled when the start had reached the journal.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/db.ts';
import { journalledStartsAndStops, startGroup, startMainGroup, type GroupRun } from '../helpers/group.ts';
import { cleanEnv } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';

function dataFolder(prefix: string): string {
  const dir = tempDir(prefix);
  fs.chmodSync(dir, 0o755); // the postgres user runs the server when we are root
  return path.join(dir, 'data');
}

/** Waits until nothing the run started is alive (the Postgres it started has a group of its own). */
async function allGone(run: GroupRun): Promise<void> {
  await waitFor(() => run.survivors(), (p) => p.length === 0, { timeout: 60_000, what: () => `every process of the run gone:\n${run.output()}` });
}

describe('a stop asked for at any moment', () => {
  it('Ctrl-C to `npm start 2>&1 | tee log` stops the embedded Postgres and journals server.stopped, although tee is gone', async () => {
    const dataDir = dataFolder('pd-stop-pipe-');
    const log = path.join(path.dirname(dataDir), 'log');
    const code = path.join(path.dirname(dataDir), 'code');
    // The pipeline as a terminal runs it: one process group (npm, node, tee), which Ctrl-C reaches
    // whole. The bash around it outlives the SIGINT (a trap, which its children do not inherit) to
    // record npm start's exit code once the pipeline is over.
    const script = `trap : INT; npm start 2>&1 | tee ${log} > /dev/null; echo "\${PIPESTATUS[0]}" > ${code}`;
    const run = startGroup(['bash', '-c', script], cleanEnv({ DISPATCH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' }));
    const logged = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '');
    await waitFor(logged, (l) => /listening on http/.test(l), { timeout: 120_000, what: () => `listening (${logged()}${run.output()})` });
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(run.survivors()).toContain(postmaster);

    run.signal('SIGINT');
    await allGone(run);
    expect(fs.readFileSync(code, 'utf8').trim()).toBe('0'); // npm start's, once the stop is over
    expect(logged()).not.toMatch(/EPIPE|Error/);
    const journal = await journalledStartsAndStops(dataDir);
    expect(journal?.map((e) => [e.event_type, e.payload.reason ?? null])).toEqual([
      ['server.started', null],
      ['server.stopped', 'SIGINT'],
    ]);
  }, 240_000);

  it('SIGTERM while the embedded Postgres is made: exit 0, no Postgres left, and the next start makes a whole cluster; SIGHUP then stops it', async () => {
    const dataDir = dataFolder('pd-stop-initdb-');
    const env = cleanEnv({ DISPATCH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
    const first = startMainGroup(env);
    await first.waitForOutput(/initialising Postgres cluster/);
    first.signal('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    await allGone(first);
    expect(first.output()).toContain('stopped during start-up (SIGTERM)');
    expect(first.output()).not.toContain('listening on');
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    expect(await journalledStartsAndStops(dataDir)).toBeNull(); // it never reached the journal

    const second = startMainGroup(env);
    await second.waitForOutput(/listening on http/);
    expect(second.output()).not.toMatch(/initdb failed|embedded Postgres exited/);
    second.signal('SIGHUP');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    await allGone(second);
    expect((await journalledStartsAndStops(dataDir))?.map((e) => [e.event_type, e.payload.reason ?? null])).toEqual([
      ['server.started', null],
      ['server.stopped', 'SIGHUP'],
    ]);
  }, 300_000);

  it('SIGTERM while the migrations run: the Postgres that had started stops, exit 0, nothing journalled', async () => {
    const dataDir = dataFolder('pd-stop-migrations-');
    const run = startMainGroup(cleanEnv({ DISPATCH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' }));
    await run.waitForOutput(/applied migration 0001_/);
    run.signal('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await allGone(run);
    const out = run.output();
    expect(out).not.toContain('listening on');
    const steps = ['shutting down (SIGTERM)', 'embedded Postgres stopped', 'stopped during start-up (SIGTERM)'];
    const at = steps.map((s) => out.indexOf(s));
    expect(at.every((i) => i >= 0), `every step logged:\n${out}`).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(await journalledStartsAndStops(dataDir)).toEqual([]); // the migrations were done; the start was not journalled
  }, 240_000);

  it('SIGTERM once serving (a first start): exit 0, no Postgres left, server.stopped journalled', async () => {
    const dataDir = dataFolder('pd-stop-serving-');
    const run = startMainGroup(cleanEnv({ DISPATCH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' }));
    await run.waitForOutput(/listening on http/);
    run.signal('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await allGone(run);
    expect(run.output()).toContain('embedded Postgres stopped');
    expect((await journalledStartsAndStops(dataDir))?.map((e) => [e.event_type, e.payload.reason ?? null])).toEqual([
      ['server.started', null],
      ['server.stopped', 'SIGTERM'],
    ]);
  }, 240_000);
});
