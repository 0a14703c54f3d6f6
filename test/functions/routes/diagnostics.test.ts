// Crash and restart counts (SC-2): a client's crash report is validated, rate-limited and journalled
// as client.error; dispatch.health_daily and GET /api/health/daily count crashes (client crashes +
// unclean stops) and restarts per UTC day, exactly.
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const report = { kind: 'error', message: 'boom', stack: 'Error: boom\n    at x (app.js:1:2)', app_version: '0.1.0', view: '#tasks' };

describe('POST /api/diagnostics/client-errors', () => {
  it('journals one client.error with the app version and the view', async () => {
    const res = await t.call('POST', '/api/diagnostics/client-errors', report);
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const [row] = await t.db.sql<{ event_type: string; payload: unknown }[]>`select event_type, payload from dispatch.events where event_id = ${id}`;
    expect(row).toEqual({ event_type: 'client.error', payload: report });
  });

  it('refuses a report that is not one', async () => {
    for (const bad of [{ ...report, kind: 'oops' }, { ...report, app_version: undefined }, { ...report, extra: 1 }, { ...report, message: 'x'.repeat(2001) }]) {
      const res = await t.call('POST', '/api/diagnostics/client-errors', bad);
      expect(res.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
    }
  });

  it('takes at most 10 a minute from one address, then answers 429 rate_limited', async () => {
    const fresh = await startTestApp({}, t.db);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await fresh.call('POST', '/api/diagnostics/client-errors', { ...report, message: `crash ${i}` })).status);
    expect(statuses).toEqual([...Array(10).fill(201), 429, 429]);
    const body = (await (await fresh.call('POST', '/api/diagnostics/client-errors', report)).json()) as { error: { code: string } };
    expect(body.error.code).toBe('rate_limited');
  });
});

describe('crashes and restarts per day', () => {
  it('counts client crashes, unclean stops, starts and restarts per UTC day, exactly', async () => {
    const db = (await startTestApp()).db;
    const at = (ts: string, type: string, payload: object) =>
      db.sql`insert into dispatch.events (event_type, payload, created_at) values (${type}, ${db.sql.json(payload as never)}, ${ts})`;
    const first = { instance: 'h:all:7777:/d', previous: null };
    const clean = { instance: 'h:all:7777:/d', previous: { stop: 'clean' } };
    const unclean = { instance: 'h:all:7777:/d', previous: { stop: 'unclean' } };
    await at('2026-01-07T23:59:59.999Z', 'client.error', { kind: 'error' }); // the day before the window
    await at('2026-01-08T23:59:59.999Z', 'client.error', { kind: 'error' }); // the window's first day, at its last instant
    await at('2026-01-09T00:00:00.000Z', 'client.error', { kind: 'error' });
    await at('2026-01-09T08:00:00Z', 'server.started', first);
    await at('2026-01-09T09:00:00Z', 'server.stopped', {});
    await at('2026-01-09T09:00:01Z', 'server.started', clean);
    await at('2026-01-10T12:00:00Z', 'client.error', { kind: 'unhandled_rejection' });
    await at('2026-01-10T12:00:01Z', 'client.error', { kind: 'stream' });
    await at('2026-01-10T13:00:00Z', 'server.started', unclean);
    await at('2026-01-10T14:00:00Z', 'server.started', unclean);
    await at('2026-01-10T23:59:59.999Z', 'server.started', clean);
    await at('2026-01-11T00:00:00Z', 'client.error', { kind: 'error' }); // the day after the window
    const [r] = await db.sql<{ d: unknown }[]>`select dispatch.health_daily(3, '2026-01-10') as d`;
    expect(r!.d).toEqual([
      { day: '2026-01-10', crashes: 4, client_crashes: 2, unclean_stops: 2, restarts: 3, starts: 3 },
      { day: '2026-01-09', crashes: 1, client_crashes: 1, unclean_stops: 0, restarts: 1, starts: 2 },
      { day: '2026-01-08', crashes: 1, client_crashes: 1, unclean_stops: 0, restarts: 0, starts: 0 },
    ]);
  });

  it('GET /api/health/daily answers today first, with the crash just reported', async () => {
    const fresh = await startTestApp();
    await fresh.call('POST', '/api/diagnostics/client-errors', report);
    const body = (await (await fresh.call('GET', '/api/health/daily?days=2')).json()) as { days: { day: string; crashes: number }[] };
    expect(body.days.map((d) => d.day)).toEqual([new Date().toISOString().slice(0, 10), new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)]);
    expect(body.days[0]).toEqual({ day: new Date().toISOString().slice(0, 10), crashes: 1, client_crashes: 1, unclean_stops: 0, restarts: 0, starts: 0 });
    expect((await fresh.call('GET', '/api/health/daily?days=0')).status).toBe(400);
  });
});
