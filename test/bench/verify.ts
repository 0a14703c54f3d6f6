// What the project's check adds to a task beyond the check's own run time: tasks run through the
// real runner (the firehose fake as the CLI) in a project without a check and in one whose check is
// `true`; for each, worker exit → extractor spawn; with the check, minus its journalled duration_ms.
// The difference of the two is the check's overhead: its job hop, the journal rows, the spool file.
// The two kinds of task alternate; on a shared machine the figure is as noisy as its load.
import { loadConfig } from '../../core/config.ts';
import type { Sql } from '../../core/db/client.ts';
import type { Logger } from '../../core/log.ts';
import { startRunner } from '../../jobs/runner.ts';
import { pct, r1, type Print } from './stats.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const TASKS = 20;

async function until(fn: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('bench timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Worker exit → extractor spawn of one task of a project, and its check's duration (0 without). */
async function gapOf(sql: Sql, projectId: string): Promise<{ gap: number; check: number }> {
  const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${projectId}, 'tiny') as id`;
  await until(async () => (await sql`select 1 from dispatch.tasks where id = ${t!.id} and status = 'success'`).length > 0);
  const [r] = await sql<{ gap: number; check: number | null }[]>`
    select extract(epoch from (select min(e.created_at) from dispatch.events e join dispatch.sessions s on s.id = e.session_id
                               where s.task_id = ${t!.id} and s.role = 'extractor' and e.event_type = 'session.spawned')
                   - (select e.created_at from dispatch.events e join dispatch.sessions s on s.id = e.session_id
                      where s.task_id = ${t!.id} and s.role = 'worker' and e.event_type = 'session.exited')) * 1000 as gap,
           (select (payload ->> 'duration_ms')::float8 from dispatch.events where task_id = ${t!.id} and event_type = 'verify.finished') as check`;
  return { gap: r!.gap, check: r!.check ?? 0 };
}

export async function verifyBench(sql: Sql, url: string, dataDir: string, print: Print, firehose: string): Promise<void> {
  const runner = await startRunner({
    url, sql, config: loadConfig({ DISPATCH_DATA_DIR: dataDir }), log: quiet,
    childEnv: { ...process.env, CLAUDE_BIN: firehose, FIREHOSE_LINES: '10', FIREHOSE_RATE: '0' },
  });
  try {
    const cfg = (verify?: unknown) => JSON.stringify(verify ? { verify } : {});
    const [plain] = await sql<{ id: string }[]>`select dispatch.create_project('bench-verify-plain', ${cfg()}::text::jsonb) as id`;
    const [checked] = await sql<{ id: string }[]>`select dispatch.create_project('bench-verify-true', ${cfg({ command: ['true'] })}::text::jsonb) as id`;
    // Alternated, so a machine that gets busier meanwhile weighs on both alike.
    const without = { gap: [] as number[] };
    const withCheck = { gap: [] as number[], check: [] as number[] };
    for (let i = 0; i < TASKS; i++) {
      without.gap.push((await gapOf(sql, plain!.id)).gap);
      const c = await gapOf(sql, checked!.id);
      withCheck.gap.push(c.gap);
      withCheck.check.push(c.check);
    }
    const beyond = withCheck.gap.map((g, i) => g - withCheck.check[i]!);
    const p = (xs: number[], q: number) => r1(pct(xs, q));
    print('verify.overhead', {
      tasks: TASKS,
      check: 'true',
      worker_exit_to_extractor_spawn_ms_without_check: { p50: p(without.gap, 50), p99: p(without.gap, 99) },
      worker_exit_to_extractor_spawn_ms_with_check: { p50: p(withCheck.gap, 50), p99: p(withCheck.gap, 99) },
      check_own_run_ms: { p50: p(withCheck.check, 50), p99: p(withCheck.check, 99) },
      added_beyond_check_run_ms: { p50: r1(pct(beyond, 50) - pct(without.gap, 50)), p99: r1(pct(beyond, 99) - pct(without.gap, 50)) },
      target_ms: 300,
    });
  } finally {
    await runner.stop();
  }
}
