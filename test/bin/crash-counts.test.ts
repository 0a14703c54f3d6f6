// Server starts and stops, journalled: a kill -9 followed by a start counts one unclean stop; a
// SIGTERM is a clean stop; GET /api/health/daily shows the day's starts, restarts and crashes.
import { describe, expect, it } from 'vitest';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { cleanEnv, startServer, type Started } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';

interface StartRow {
  payload: { pid: number; mode: string; version: string; previous: { stop: string; pid: number } | null };
}

describe('server.started / server.stopped', () => {
  it('kill -9 then start counts one unclean stop, SIGTERM then start a clean one, and the day adds up', async () => {
    const db = await createTestDb();
    const env = cleanEnv({ DATABASE_URL: db.url, DISPATCH_DATA_DIR: tempDir('pd-crash-') });
    // `npm start` on a port the system picks; every start is the same instance (same data folder, mode and PORT setting).
    const up = async (): Promise<Started & { url: string }> => {
      const s = await startServer(env, []);
      await waitFor(() => fetch(`${s.url}/healthz`).then((r) => r.ok, () => false), Boolean, { timeout: 60_000, what: () => `healthz (${s.output()})` });
      return s;
    };
    const starts = () => db.sql<StartRow[]>`select payload from dispatch.events where event_type = 'server.started' order by seq`;

    const first = await up();
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await up();
    expect(second.output()).toContain('did not stop cleanly: counted as an unclean stop');
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    const third = await up();

    const rows = (await starts()).map((r) => r.payload);
    expect(rows.map((p) => p.previous?.stop ?? null)).toEqual([null, 'unclean', 'clean']);
    expect(rows[1]!.previous!.pid).toBe(first.child.pid);
    expect(rows.map((p) => p.pid)).toEqual([first.child.pid, second.child.pid, third.child.pid]);
    expect(rows[0]).toMatchObject({ mode: 'all', version: expect.any(String) });
    const [stopped] = await db.sql<{ payload: { reason: string } }[]>`select payload from dispatch.events where event_type = 'server.stopped'`;
    expect(stopped!.payload.reason).toBe('SIGTERM');

    const daily = (await (await fetch(`${third.url}/api/health/daily?days=1`)).json()) as { days: unknown[] };
    expect(daily.days).toEqual([{ day: new Date().toISOString().slice(0, 10), crashes: 1, client_crashes: 0, unclean_stops: 1, restarts: 2, starts: 3 }]);
    third.child.kill('SIGTERM');
    await third.exited;
  });
});
