// `npm start` on a machine without Postgres: it starts an embedded one in the data folder, serves
// /healthz, survives a kill -9 of the previous run, and stops Postgres cleanly on SIGTERM.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// isAlive counts a zombie as dead: a stopped postmaster may wait for its killed parent's reaper.
import { isAlive } from '../../core/process.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { cleanEnv, startEntry, startServer, type Started } from '../helpers/process.ts';
import { connectSse } from '../helpers/sse.ts';
import { tempDir } from '../helpers/teardown.ts';

const running: Started[] = [];
afterAll(async () => {
  for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
});

async function health(base: string): Promise<{ ok: boolean } | null> {
  try {
    const res = await fetch(`${base}/healthz`);
    return (await res.json()) as { ok: boolean };
  } catch {
    return null;
  }
}

function start(env: NodeJS.ProcessEnv): Started {
  const s = startEntry('bin/main.ts', env);
  running.push(s);
  return s;
}

function postmasterPid(dataDir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}


describe('npm start with the embedded Postgres', () => {
  it('serves /healthz, restarts after kill -9 with its data, and on SIGTERM stops in order: streams and server, runner, journal, Postgres last', async () => {
    const dataDir = tempDir('pd-start-');
    fs.chmodSync(dataDir, 0o755);
    const env = cleanEnv({ DISPATCH_DATA_DIR: dataDir, LOG_LEVEL: 'info' });

    // `npm start` (serve + work) on a port the system picks, read back from its log.
    const first = await startServer(env, []);
    running.push(first);
    await waitFor(() => health(first.url), (h) => h?.ok === true, { timeout: 60_000, what: `healthz (${first.output()})` });
    expect(first.output()).toContain('initialising Postgres cluster'); // the first start made the cluster (so its absence below means something)
    expect(first.output()).not.toContain('pg_ctl'); // initdb's own advice to start Postgres by hand is not passed on
    const created = await fetch(`${first.url}/api/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'survives a kill -9' }),
    });
    expect(created.status).toBe(201);
    const { id: projectId } = (await created.json()) as { id: string };
    const orphan = postmasterPid(dataDir)!;
    expect(isAlive(orphan)).toBe(true);

    first.child.kill('SIGKILL');
    await first.exited;
    expect(isAlive(orphan)).toBe(true); // the killed run left its Postgres behind

    const second = await startServer(env, []);
    running.push(second);
    await waitFor(() => health(second.url), (h) => h?.ok === true, { timeout: 60_000, what: `healthz after kill -9 (${second.output()})` });
    expect(second.output()).not.toContain('initialising Postgres cluster'); // the cluster was reused…
    const projects = (await (await fetch(`${second.url}/api/projects`)).json()) as { projects: { id: string; name: string }[] };
    expect(projects.projects).toContainEqual(expect.objectContaining({ id: projectId, name: 'survives a kill -9' })); // …with its data
    expect(isAlive(orphan)).toBe(false);
    const pgPid = postmasterPid(dataDir)!;

    // The data folder is locked: a second process on it refuses to start, naming the owner.
    const third = start(cleanEnv({ DISPATCH_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' }));
    const refused = await third.exited;
    expect(refused.code).not.toBe(0);
    expect(third.output()).toContain(`is in use by process ${second.child.pid}`);
    expect(await health(second.url)).toEqual(expect.objectContaining({ ok: true })); // and the owner is untouched

    // SIGTERM stops it in order: streams end and the server closes, the runner stops, the journal gets
    // its last word (server.stopped), and the database goes last.
    const sse = await connectSse(`${second.url}/api/stream`, () => {});
    let streamEndedWhileRunning: boolean | undefined;
    void sse.done.then(() => (streamEndedWhileRunning = second.child.exitCode === null && second.child.signalCode === null));
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    await sse.done;
    expect(streamEndedWhileRunning).toBe(true);
    const log = second.output();
    const steps = ['shutting down (SIGTERM)', 'stopped serving: streams ended, server closed', / runner \S+ stopped/, 'journalled server.stopped (SIGTERM)', 'embedded Postgres stopped'];
    const at = steps.map((step) => (typeof step === 'string' ? log.indexOf(step) : log.search(step)));
    expect(at.every((i) => i >= 0), `every stop step logged:\n${log}`).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(isAlive(pgPid)).toBe(false);
    expect(postmasterPid(dataDir)).toBeNull();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('uses DATABASE_URL when it is set and creates no data folder', async () => {
    const { url } = await createTestDb();
    const dataDir = path.join(tempDir('pd-url-'), 'unused');
    const s = await startServer(cleanEnv({ DATABASE_URL: url, DISPATCH_DATA_DIR: dataDir }), []);
    running.push(s);
    await waitFor(() => health(s.url), (h) => h?.ok === true, { timeout: 30_000, what: `healthz (${s.output()})` });
    expect(fs.existsSync(dataDir)).toBe(false);
    s.child.kill('SIGTERM');
    expect((await s.exited).code).toBe(0);
  });

  it('refuses a bad configuration with a message naming the variable', async () => {
    const s = start(cleanEnv({ PORT: 'seventy', STALL_SECONDS: '-1' }));
    expect((await s.exited).code).toBe(2);
    expect(s.output()).toMatch(/invalid configuration/);
    expect(s.output()).toMatch(/PORT/);
    expect(s.output()).toMatch(/STALL_SECONDS/);
  });
});
