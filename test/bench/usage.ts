// dispatch.usage over a million finished sessions: the reports the glance header and the 14-day
// chart ask for, each timed many times (p50 / p99), after loading the sessions (with their hourly
// rollup, kept by the trigger) in batches.
import type { Sql } from '../../core/db/client.ts';
import { loadSessions } from '../helpers/usage-data.ts';
import { pct, r2, type Print } from './stats.ts';



export async function benchUsage(sql: Sql, print: Print, sessions = Number(process.env.BENCH_USAGE_SESSIONS ?? 1_000_000)): Promise<void> {
  const projects: string[] = [];
  for (let i = 0; i < 4; i++) projects.push((await sql<{ id: string }[]>`select dispatch.create_project(${`usage bench ${i}`}) as id`)[0]!.id);
  const days = 30;
  const t0 = performance.now();
  // Most sessions in the first project (the one asked about), the rest spread over the others.
  await loadSessions(sql, projects[0]!, Math.round(sessions * 0.7), days);
  for (const p of projects.slice(1)) await loadSessions(sql, p, Math.round((sessions * 0.3) / 3), days);
  const loadS = (performance.now() - t0) / 1000;
  // What autovacuum does on its own after a bulk load: statistics and the visibility map.
  await sql`vacuum analyze dispatch.session_usage`;
  await sql`vacuum analyze dispatch.usage_hourly`;
  const [n] = await sql<{ s: number; h: number }[]>`
    select (select count(*)::int from dispatch.sessions) as s, (select count(*)::int from dispatch.usage_hourly) as h`;

  const now = () => new Date();
  const iso = (d: Date) => d.toISOString();
  const dayStart = () => new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z');
  const queries: [string, () => Promise<unknown>][] = [
    ['today, one project', () => sql`select dispatch.usage(${projects[0]!}, ${iso(dayStart())}, null, 'day')`],
    ['today, all projects', () => sql`select dispatch.usage(null, ${iso(dayStart())}, null, 'project')`],
    ['14 days by day, one project', () => sql`select dispatch.usage(${projects[0]!}, ${iso(new Date(dayStart().getTime() - 13 * 86_400_000))}, null, 'day')`],
    ['30 days by model, all', () => sql`select dispatch.usage(null, null, null, 'model')`],
    ['last 24 h (edges mid-hour), one project', () => sql`select dispatch.usage(${projects[0]!}, ${iso(new Date(now().getTime() - 86_400_000))}, ${iso(now())}, 'role')`],
    ['budget_state', () => sql`select dispatch.budget_state(${projects[0]!})`],
  ];
  const figures: Record<string, unknown> = { sessions: n!.s, rollup_rows: n!.h, load_s: r2(loadS) };
  for (const [name, q] of queries) {
    for (let i = 0; i < 20; i++) await q(); // warm
    const ms: number[] = [];
    for (let i = 0; i < 300; i++) {
      const a = performance.now();
      await q();
      ms.push(performance.now() - a);
    }
    figures[name] = { p50_ms: r2(pct(ms, 50)), p99_ms: r2(pct(ms, 99)) };
  }
  print('usage', figures);
}
