// Builds a large journal quickly for the reads-at-scale figures: realistic rows (the Phase 0 line
// shapes, classified by the substrate as the writer would store them) spread over many finished
// tasks and sessions, the way months of use would leave it. Millions of rows go in by
// INSERT … SELECT from generate_series with the row triggers off (session_replication_role =
// replica), seq drawn from the journal's own sequence in generate_series order, so the journal's
// order and indexes are those of rows written one batch after another; nothing else writes
// meanwhile. About a minute per million rows on 2 cores.
import type { Sql } from '../../core/db/client.ts';
import { defaultSubstrate } from '../../jobs/substrate/index.ts';
// @ts-expect-error plain JS module shared with the firehose fake CLI
import { realisticLine } from './realistic-lines.mjs';

const line = realisticLine as (i: number, extra?: Record<string, unknown>) => string;
/** Distinct line shapes cycled through (each with its own text and uuid). */
const SHAPES = 2000;
/**
 * Journal rows per session (one task each): a long worker run, whose last row is the
 * orchestrator's working set after the turn that followed it.
 */
export const LINES_PER_SESSION = 5000;
const CHUNK = 250_000;

export interface FillTarget {
  projectId: string;
}

/**
 * Adds `rows` realistic journal rows to the project, in sessions of LINES_PER_SESSION lines, each
 * session the only one of a finished task. Returns the seconds it took.
 */
export async function fillJournal(sql: Sql, target: FillTarget, rows: number, onProgress?: (done: number) => void): Promise<number> {
  const t0 = performance.now();
  const lines = Array.from({ length: SHAPES }, (_, i) => defaultSubstrate.classify(Buffer.from(line(i))));
  const nSessions = Math.ceil(rows / LINES_PER_SESSION);
  // Scratch tables (plain ones: the pool's queries may each take another connection).
  await sql`drop table if exists bench_fill_lines, bench_fill_sessions`;
  await sql`create unlogged table bench_fill_lines (i int primary key, event_type text, payload text, summary text)`;
  await sql`create unlogged table bench_fill_sessions (n int primary key, session_id uuid, task_id uuid)`;
  await sql`insert into bench_fill_lines ${sql(lines.map((c, i) => ({ i, event_type: c.eventType, payload: c.payloadJson, summary: c.summaryJson ?? null })))}`;
  const missing = await sql<{ t: string }[]>`select distinct f.event_type as t from bench_fill_lines f where not exists (select 1 from dispatch.event_types e where e.name = f.event_type)`;
  if (missing.length) throw new Error(`fill: unknown event types ${missing.map((m) => m.t).join(', ')}`);
  // Finished tasks, each with its one worker session, spaced over the past like the journal rows.
  const sessions = await sql<{ n: number; session_id: string; task_id: string }[]>`
    with t as (
      insert into dispatch.tasks (project_id, brief, status, created_at, started_at, ended_at)
      select ${target.projectId}, 'filled task ' || g, 'success',
             now() - (${nSessions}::int - g + 1) * interval '1 minute', now() - (${nSessions}::int - g + 1) * interval '1 minute',
             now() - (${nSessions}::int - g) * interval '1 minute'
        from generate_series(1, ${nSessions}::int) g
      returning id, created_at
    ), n as (select id, row_number() over (order by created_at) as n from t)
    insert into dispatch.sessions (project_id, task_id, role, status, created_at, started_at, ended_at, lines_written)
    select ${target.projectId}, n.id, 'worker', 'success', now() - (${nSessions}::int - n.n + 1) * interval '1 minute',
           now() - (${nSessions}::int - n.n + 1) * interval '1 minute', now() - (${nSessions}::int - n.n) * interval '1 minute', ${LINES_PER_SESSION}::int
      from n
    returning (select n.n from n where n.id = task_id)::int as n, id as session_id, task_id`;
  for (let i = 0; i < sessions.length; i += 5000) await sql`insert into bench_fill_sessions ${sql(sessions.slice(i, i + 5000).map((s) => ({ ...s, n: s.n - 1 })))}`;
  for (let done = 0; done < rows; done += CHUNK) {
    const k = Math.min(CHUNK, rows - done);
    await sql.begin(async (tx) => {
      // Row triggers off for this transaction only (seq is drawn here, in order; the references
      // are the tasks and sessions just made, checked below).
      await tx`set local session_replication_role = replica`;
      await tx`set local synchronous_commit = off`;
      await tx`
        insert into dispatch.events (seq, project_id, session_id, task_id, event_type, payload, summary, line_no, created_at)
        select nextval('dispatch.events_seq'), ${target.projectId},
               case when w then null else s.session_id end, s.task_id,
               case when w then 'orchestrator.working_set' else l.event_type end,
               case when w then jsonb_build_object('session_id', s.session_id, 'turn_status', 'success', 'mode', 'autonomous',
                                                   'in_flight', '[]'::jsonb, 'spawned', jsonb_build_array(s.task_id),
                                                   'handoffs_given', '[]'::jsonb, 'messages_delivered', '[]'::jsonb,
                                                   'last_message', 'Spawned a worker for the next step of the plan; waiting for its handoff.',
                                                   'needs_user', '[]'::jsonb, 'stop', null)
                    else l.payload::jsonb end,
               case when w then null else l.summary::jsonb end,
               case when w then null else (g % ${LINES_PER_SESSION}::int)::int end,
               now() - (${rows}::bigint - g) * interval '12 ms'
          from generate_series(${done}::bigint, ${done + k - 1}::bigint) g
          join bench_fill_sessions s on s.n = g / ${LINES_PER_SESSION}::int
          join bench_fill_lines l on l.i = g % ${SHAPES}::int
          cross join lateral (select g % ${LINES_PER_SESSION}::int = ${LINES_PER_SESSION - 1}::int as w) x
         order by g`;
    });
    onProgress?.(done + k);
  }
  await sql`drop table bench_fill_lines, bench_fill_sessions`;
  await sql`analyze dispatch.events`;
  await sql`analyze dispatch.tasks`;
  await sql`analyze dispatch.sessions`;
  return (performance.now() - t0) / 1000;
}
