// Schedules with the real CLI and the scripted model, made over HTTP: the runners' clock is moved on
// instead of waiting for minutes to pass. A schedule fires at its next minute and its task runs; runs
// missed while nothing ran fire once at the next start; a firing while the previous task still runs
// is skipped, saying so; a paused or deleted schedule fires no more; every refusal is a 400.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const scenarios: Scenario[] = [
  {
    name: 'schedules',
    description: '',
    conversations: [
      { match: 'SCHEDULED-DONE', steps: [{ text: JSON.stringify({ goal: 'scheduled', current_state: 'done', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
      { match: 'Scheduled audit', steps: [{ text: 'SCHEDULED-DONE: audited.', chunks: 1, delay_ms: 0 }] },
      { match: 'Think forever', steps: [{ hang: true, partial_text: 'Thinking' }] },
    ],
  },
];

/** How far the runners' clock is ahead of the real one. */
let shift = 0;
let loop: Loop;
let project: string;
beforeAll(async () => {
  loop = await startLoop({ scenarios, now: () => new Date(Date.now() + shift) });
  project = await loop.project('schedules');
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${loop.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
async function schedule(body: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await api('POST', '/api/schedules', { project_id: project, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}
const journal = (scheduleId: string, type: string) =>
  loop.db.sql<{ seq: number; task_id: string | null; payload: Record<string, any> }[]>`
    select seq, task_id, payload from dispatch.events where event_type = ${type} and payload ->> 'schedule_id' = ${scheduleId} order by seq`;
/** The tick the runners' cron makes every minute, now. */
const tick = () => loop.db.sql`select dispatch.run_due_schedules()`;
const jobsIdle = () =>
  waitFor(() => loop.db.sql`select 1 from graphile_worker.jobs where task_identifier = 'fire_schedules'`, (r) => r.length === 0, { what: 'the tick to run' });

describe('a schedule missed while nothing ran', () => {
  it('fires once at the next start, not once per missed run, and its next run is after that start', async () => {
    const s = await schedule({ cron: '0 3 * * *', brief: 'Scheduled audit of the missed kind.', time_zone: 'UTC' });
    expect(new Date(s.next_run_at).getUTCHours()).toBe(3);
    shift = 3 * 24 * 3600_000; // three firings missed while the runner is stopped
    await loop.restart();
    const fired = await waitFor(() => journal(s.id, 'schedule.fired'), (r) => r.length > 0, { what: 'the missed schedule to fire' });
    await jobsIdle();
    await tick();
    await jobsIdle();
    expect(await journal(s.id, 'schedule.fired')).toHaveLength(1);
    expect(fired[0]!.payload).toMatchObject({ scheduled_for: s.next_run_at, late: true, task_id: fired[0]!.task_id });
    const now = await api('GET', `/api/schedules?project_id=${project}`);
    const listed = now.body.schedules.find((x: { id: string }) => x.id === s.id);
    expect(new Date(listed.next_run_at).getTime()).toBeGreaterThan(Date.now() + shift - 60_000);
    expect(listed.last_task_id).toBe(fired[0]!.task_id);
    await loop.waitTask(fired[0]!.task_id!, 'success');
    expect((await api('DELETE', `/api/schedules/${s.id}`)).status).toBe(200);
  });
});

describe('a schedule every minute', () => {
  it('fires at its next minute, its task runs, and once paused it fires no more; deleted, it is gone', async () => {
    shift = 0;
    const s = await schedule({ cron: '* * * * *', brief: 'Scheduled audit every minute.' });
    expect(new Date(s.next_run_at).getTime() - Date.now()).toBeLessThanOrEqual(60_000);
    shift = 61_000; // the minute has come
    await tick();
    const [first] = await waitFor(() => journal(s.id, 'schedule.fired'), (r) => r.length > 0, { what: 'the schedule to fire' });
    expect((await api('POST', `/api/schedules/${s.id}/pause`)).body).toMatchObject({ paused: true });
    await loop.waitTask(first!.task_id!, 'success');
    const n = (await journal(s.id, 'schedule.fired')).length;
    shift = 5 * 60_000;
    await tick();
    await jobsIdle();
    expect(await journal(s.id, 'schedule.fired')).toHaveLength(n);
    expect(await journal(s.id, 'schedule.paused')).toHaveLength(1);

    expect((await api('DELETE', `/api/schedules/${s.id}`)).body).toEqual({ id: s.id, deleted: true });
    expect((await api('GET', '/api/schedules')).body.schedules.map((x: { id: string }) => x.id)).not.toContain(s.id);
    expect(await journal(s.id, 'schedule.deleted')).toHaveLength(1);
    expect((await api('DELETE', `/api/schedules/${s.id}`)).status).toBe(404);
  });
});

describe('a schedule whose previous task still runs', () => {
  it('skips the firing and says why, naming the running task', async () => {
    shift = 0;
    const s = await schedule({ cron: '* * * * *', brief: 'Think forever about the schedule.' });
    shift = 61_000;
    await tick();
    const [fired] = await waitFor(() => journal(s.id, 'schedule.fired'), (r) => r.length > 0, { what: 'the schedule to fire' });
    await loop.waitTask(fired!.task_id!, 'running');
    shift = 3 * 60_000;
    await tick();
    const [skipped] = await waitFor(() => journal(s.id, 'schedule.skipped'), (r) => r.length > 0, { what: 'the firing to be skipped' });
    expect(skipped!.payload).toMatchObject({ running_task_id: fired!.task_id, reason: 'its previous task is still running' });
    expect(await journal(s.id, 'schedule.fired')).toHaveLength(1);
    await api('DELETE', `/api/schedules/${s.id}`);
    await api('POST', `/api/tasks/${fired!.task_id}/cancel`);
    await loop.waitTask(fired!.task_id!, 'cancelled');
  });
});

describe('a schedule in a named zone', () => {
  it("runs next at its hour on that zone's wall clock, and says which zone", async () => {
    shift = 0;
    const s = await schedule({ cron: '0 2 * * *', brief: 'Scheduled audit at two in Paris.', time_zone: 'Europe/Paris' });
    const wall = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    expect(wall.format(new Date(s.next_run_at))).toBe('02:00');
    expect(new Date(s.next_run_at).getTime() - Date.now()).toBeLessThanOrEqual(25 * 3600_000);
    const listed = (await api('GET', `/api/schedules?project_id=${project}`)).body.schedules.find((x: { id: string }) => x.id === s.id);
    expect(listed).toMatchObject({ time_zone: 'Europe/Paris', cron: '0 2 * * *', paused: false });
    expect((await api('DELETE', `/api/schedules/${s.id}`)).status).toBe(200);
  });
});

describe('a schedule that cannot be', () => {
  it.each([
    ['61 * * * *', 'minute', 1, 1],
    ['0 25 * * *', 'hour', 2, 3],
    ['0 3 * * mon', 'day-of-week', 5, 9],
    ['0 3 */0 * *', 'day-of-month', 3, 5],
  ])('%s is refused with 400 invalid_cron naming the %s field at position %i', async (cron, field, position, column) => {
    const r = await api('POST', '/api/schedules', { project_id: project, cron, brief: 'never' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_cron', details: { field: 'cron', cron_field: field, position, column } });
    expect(r.body.error.message).toContain(`field ${position} (${field})`);
  });

  it('needs five fields', async () => {
    const r = await api('POST', '/api/schedules', { project_id: project, cron: '0 3 * *', brief: 'never' });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/five fields .* got 4/);
  });

  it('never matching is refused, and so are an unknown zone, a bad dependency, an empty brief and an unknown project', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ cron: '0 0 30 2 *', brief: 'b' }, 400, 'invalid_cron'],
      [{ cron: '* * * * *', brief: 'b', time_zone: 'Mars/Olympus' }, 400, 'invalid_input'],
      [{ cron: '* * * * *', brief: 'b', depends_on: ['00000000-0000-4000-8000-0000000000ff'] }, 400, 'invalid_dependency'],
      [{ cron: '* * * * *', brief: '  ' }, 400, 'invalid_input'],
      [{ cron: '* * * * *', brief: 'x'.repeat(100_001) }, 400, 'invalid_input'],
      [{ cron: '* * * * *', brief: 'b', project_id: '00000000-0000-4000-8000-0000000000fe' }, 404, 'not_found'],
    ];
    for (const [body, status, code] of cases) {
      const r = await api('POST', '/api/schedules', { project_id: project, ...body });
      expect([r.status, r.body.error?.code], JSON.stringify(body)).toEqual([status, code]);
    }
    expect((await api('GET', `/api/schedules?project_id=${project}`)).body.schedules).toEqual([]);
  });
});
