// Ingest with lines shaped like a real session's, measured against the machine's own limit in the
// same run: COPY of the very same rows into a scratch table with the journal's columns, defaults
// and indexes. The ratios (product ÷ COPY) are the figures to compare across machines.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config.ts';
import type { Sql } from '../../core/db/client.ts';
import type { Logger } from '../../core/log.ts';
import { JournalWriter } from '../../jobs/journal-writer.ts';
import { startRunner } from '../../jobs/runner.ts';
import { defaultSubstrate } from '../../jobs/substrate/index.ts';
// @ts-expect-error plain JS module shared with the firehose fake CLI
import { realisticLine } from './realistic-lines.mjs';
import type { Print } from './stats.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIREHOSE = path.join(root, 'test/fakes/firehose.mjs');
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const line = realisticLine as (i: number, extra?: Record<string, unknown>) => string;

const r2 = (x: number) => Math.round(x * 100) / 100;

async function newSession(sql: Sql, name: string) {
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project(${name}) as id`;
  const [s] = await sql<{ id: string }[]>`insert into dispatch.sessions (project_id, role, status) values (${p!.id}, 'worker', 'running') returning id`;
  return { projectId: p!.id, sessionId: s!.id };
}

/**
 * CPU time (ms) of every Postgres backend on this database, read from /proc when Postgres runs on
 * this machine: a figure the other load of the machine hardly moves, unlike lines per second.
 */
async function dbCpuMs(sql: Sql): Promise<number> {
  const pids = await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`;
  let ticks = 0;
  for (const { pid } of pids) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      return NaN; // Postgres elsewhere, or a backend gone
    }
  }
  return ticks * 10;
}

/** COPY text format: tabs, newlines and backslashes escaped. */
function copyField(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/** COPY of `lines` (already read by the substrate, as the writer would send them) into a scratch journal. */
async function copyRate(sql: Sql, lines: Buffer[]): Promise<{ rowsPerS: number; mbPerS: number; cpuUsPerRow: number }> {
  await sql`drop table if exists bench_copy`;
  await sql`drop sequence if exists bench_copy_seq`;
  await sql`create sequence bench_copy_seq`;
  // The journal's columns, defaults and every index (uuid key, seq, (session_id, line_no), …).
  await sql`create table bench_copy (like dispatch.events including defaults including indexes including constraints)`;
  await sql`alter table bench_copy alter column seq set default nextval('bench_copy_seq')`;
  const ref = await newSession(sql, `copy ${Math.random().toString(36).slice(2)}`);
  const text = lines.map((l, i) => {
    const c = defaultSubstrate.classify(l);
    return [ref.projectId, ref.sessionId, c.eventType, copyField(c.payloadJson), copyField(c.summaryJson ?? '\\N'), String(i)].join('\t');
  });
  const bytes = lines.reduce((n, l) => n + l.length, 0);
  const cpu0 = await dbCpuMs(sql);
  const t = performance.now();
  const stream = await sql`copy bench_copy (project_id, session_id, event_type, payload, summary, line_no) from stdin`.writable();
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', () => resolve());
    let i = 0;
    const pump = () => {
      while (i < text.length) {
        const chunk = text.slice(i, i + 2000).join('\n') + '\n';
        i += 2000;
        if (!stream.write(chunk)) return void stream.once('drain', pump);
      }
      stream.end();
    };
    pump();
  });
  const s = (performance.now() - t) / 1000;
  const cpuUsPerRow = ((await dbCpuMs(sql)) - cpu0) * 1000 / lines.length;
  const [{ n } = { n: 0 }] = await sql<{ n: number }[]>`select count(*)::int as n from bench_copy`;
  if (n !== lines.length) throw new Error(`COPY stored ${n} of ${lines.length} rows`);
  await sql`drop table bench_copy`;
  await sql`drop sequence bench_copy_seq`;
  return { rowsPerS: lines.length / s, mbPerS: bytes / s / 2 ** 20, cpuUsPerRow };
}

export async function ingestRealistic(sql: Sql, url: string, dataDir: string, print: Print): Promise<void> {
  const n = Number(process.env.BENCH_INGEST_LINES ?? 100_000);
  const lines = Array.from({ length: n }, (_, i) => Buffer.from(line(i)));
  const bytes = lines.reduce((k, l) => k + l.length, 0);
  const avg = Math.round(bytes / n);

  // The machine's limit, first and last, so a drift in the machine's load shows.
  const copyBefore = await copyRate(sql, lines);

  const ref = await newSession(sql, 'writer realistic');
  const writer = new JournalWriter(sql, ref);
  const cpu0 = await dbCpuMs(sql);
  const t = performance.now();
  for (const l of lines) writer.push(l);
  await writer.flush();
  const ws = (performance.now() - t) / 1000;
  const writerCpu = ((await dbCpuMs(sql)) - cpu0) * 1000 / n;
  const writerRate = n / ws;

  const runner = await startRunner({
    url, sql, config: loadConfig({ DISPATCH_DATA_DIR: dataDir }), log: quiet,
    childEnv: { ...process.env, CLAUDE_BIN: FIREHOSE, FIREHOSE_LINES: String(n), FIREHOSE_RATE: '0', FIREHOSE_SHAPE: 'realistic' },
  });
  let spawnRate = NaN;
  let journalled = 0;
  try {
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('firehose realistic') as id`;
    const [task] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'pour') as id`;
    for (;;) {
      const r = await sql<{ id: string }[]>`select id from dispatch.sessions where task_id = ${task!.id} and role = 'worker' and ended_at is not null`;
      if (r.length) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const [span] = await sql<{ first: number; last: number; n: number }[]>`
      select min((e.payload->>'t')::float8) as first, max(extract(epoch from e.created_at) * 1000) as last, count(*)::int as n
        from dispatch.events e join dispatch.sessions s on s.id = e.session_id
       where s.task_id = ${task!.id} and s.role = 'worker' and e.payload ? 't'`;
    journalled = span!.n;
    spawnRate = journalled / ((span!.last - span!.first) / 1000);
  } finally {
    await runner.stop();
  }

  const copyAfter = await copyRate(sql, lines);
  const copy = (copyBefore.rowsPerS + copyAfter.rowsPerS) / 2;
  print('ingest.realistic', {
    lines: n, avg_line_bytes: avg, mix: 'stream_event 67%, assistant text 11%, tool_use 11%, tool_result 11%, retry 0.1% (Phase 0 shapes)',
    copy_rows_per_s: { before: Math.round(copyBefore.rowsPerS), after: Math.round(copyAfter.rowsPerS) },
    copy_mb_per_s: r2((copyBefore.mbPerS + copyAfter.mbPerS) / 2),
    writer_lines_per_s: Math.round(writerRate), writer_mb_per_s: r2(bytes / ws / 2 ** 20),
    writer_ratio_vs_copy: r2(writerRate / copy),
    db_cpu_us_per_line: { copy: r2((copyBefore.cpuUsPerRow + copyAfter.cpuUsPerRow) / 2), writer: r2(writerCpu) },
    spawn_path_lines_per_s: Math.round(spawnRate), spawn_path_mb_per_s: r2((spawnRate * avg) / 2 ** 20),
    spawn_path_journalled: journalled, spawn_path_lost: n - journalled,
    spawn_path_ratio_vs_copy: r2(spawnRate / copy), target_ratio: '≥ 0.30 (stretch ≥ 0.50)',
  });
}

// Profiling aid: `tsx test/bench/ingest-realistic.ts <database url>` runs the writer alone (no COPY,
// no runner) so `node --cpu-prof` shows the writer's own path.
if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  const { createSql } = await import('../../core/db/client.ts');
  const sql = createSql(process.argv[2]!, { max: 4 });
  const n = Number(process.env.BENCH_INGEST_LINES ?? 100_000);
  const lines = Array.from({ length: n }, (_, i) => Buffer.from(line(i)));
  const ref = await newSession(sql, 'profile');
  const writer = new JournalWriter(sql, ref);
  const t = performance.now();
  for (const l of lines) writer.push(l);
  await writer.flush();
  process.stdout.write(`writer: ${Math.round(n / ((performance.now() - t) / 1000))} lines/s\n`);
  await sql.end();
}
