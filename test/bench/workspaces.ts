// Workspaces: `git worktree add` for a task attempt on a repository of 10 000 files (the whole
// prepareWorkspace path: repository check, lock, worktree, journal row), p50/p99; and journalling a
// 5 MiB change (commit of the leftovers, files and bounded patch, the workspace.changed row).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../core/config.ts';
import type { Sql } from '../../core/db/client.ts';
import type { Logger } from '../../core/log.ts';
import type { JobContext } from '../../jobs/context.ts';
import { loadTask, projectConfig } from '../../jobs/tasks/shared.ts';
import { PATCH_LIMIT } from '../../jobs/workspace/change.ts';
import { finishWorkspace, prepareWorkspace } from '../../jobs/workspace/worktree.ts';
import { pct, r1, type Print } from './stats.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const FILES = 10_000;
const RUNS = 40;


export async function workspacesBench(sql: Sql, dataDir: string, print: Print): Promise<void> {
  const repo = path.join(dataDir, 'bench-repo');
  fs.mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'bench');
  git('config', 'user.email', 'bench@example.invalid');
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(repo, `src/m${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.ts`), `export const v${i} = ${i};\n// ${'x'.repeat(200)}\n`);
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'ten thousand files');

  const config = loadConfig({ DISPATCH_DATA_DIR: dataDir });
  const ctx = { sql, log: quiet, config, dataDir: config.dataDir } as unknown as JobContext;
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project('bench-workspaces', ${JSON.stringify({ repo })}::text::jsonb) as id`;

  const times: number[] = [];
  let last = '';
  for (let i = 0; i < RUNS; i++) {
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, ${`bench task ${i}`}) as id`;
    const task = (await loadTask(ctx, t!.id))!;
    const start = performance.now();
    await prepareWorkspace(ctx, task, projectConfig(task));
    times.push(performance.now() - start);
    last = t!.id;
  }
  print('workspaces.worktree_create', { files: FILES, runs: RUNS, first_ms: r1(times[0]!), ms: { min: r1(Math.min(...times)), p50: r1(pct(times, 50)), p99: r1(pct(times, 99)), max: r1(Math.max(...times)) }, load_avg_1m: r1(os.loadavg()[0]!) });
  if (process.env.BENCH_VERBOSE) process.stdout.write(`  worktree times (ms): ${times.map(r1).join(' ')}\n`);

  // A 5 MiB change left uncommitted in the last worktree.
  const task = (await loadTask(ctx, last))!;
  const [w] = await sql<{ path: string }[]>`select path from dispatch.workspaces where task_id = ${last}`;
  const line = (i: number) => `row ${String(i).padStart(7, '0')} ${'y'.repeat(60)}\n`;
  let text = '';
  for (let i = 0; text.length < 5 * 1024 * 1024; i++) text += line(i);
  fs.writeFileSync(path.join(w!.path, 'big.txt'), text);
  const start = performance.now();
  await finishWorkspace(ctx, task);
  const ms = performance.now() - start;
  const [row] = await sql<{ patch_bytes: number; stored: number; truncated: boolean; row_bytes: number }[]>`
    select (payload ->> 'patch_bytes')::bigint as patch_bytes, length(payload ->> 'patch') as stored,
           (payload ->> 'truncated')::boolean as truncated, pg_column_size(payload) as row_bytes
      from dispatch.events where task_id = ${last} and event_type = 'workspace.changed'`;
  print('workspaces.journal_5mib_change', {
    change_bytes: text.length,
    patch_bytes: Number(row!.patch_bytes),
    patch_kept_bytes: row!.stored,
    limit_bytes: PATCH_LIMIT,
    truncated: row!.truncated,
    journal_row_bytes: row!.row_bytes,
    commit_diff_journal_ms: r1(ms),
  });
}
