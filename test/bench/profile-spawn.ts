// Profiling aid for the spawn path (not part of npm run bench): one realistic firehose worker
// through the real runner, in this process, so `node --cpu-prof` shows where the time goes.
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx test/bench/profile-spawn.ts <database url>
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config.ts';
import { createSql } from '../../core/db/client.ts';
import { migrateAll } from '../../core/db/migrate.ts';
import type { Logger } from '../../core/log.ts';
import { startRunner } from '../../jobs/runner.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const admin = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `pd_profile_${process.pid}`;
const a = createSql(admin, { max: 1 });
await a.unsafe(`create database ${name}`);
const u = new URL(admin);
u.pathname = `/${name}`;
const sql = createSql(u.toString(), { max: 12 });
await migrateAll(sql, u.toString());
const n = Number(process.env.BENCH_INGEST_LINES ?? 200_000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-profile-'));
const runner = await startRunner({
  url: u.toString(), sql, config: loadConfig({ DISPATCH_DATA_DIR: dataDir }), log: quiet,
  childEnv: { ...process.env, CLAUDE_BIN: path.join(root, 'test/fakes/firehose.mjs'), FIREHOSE_LINES: String(n), FIREHOSE_RATE: '0', FIREHOSE_SHAPE: 'realistic' },
});
const [p] = await sql<{ id: string }[]>`select dispatch.create_project('profile') as id`;
const [task] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'pour') as id`;
const t = performance.now();
for (;;) {
  const r = await sql`select 1 from dispatch.sessions where task_id = ${task!.id} and role = 'worker' and ended_at is not null`;
  if (r.length) break;
  await new Promise((res) => setTimeout(res, 100));
}
process.stdout.write(`spawn path: ${n} lines in ${Math.round(performance.now() - t)} ms\n`);
await runner.stop();
await sql.end();
await a.unsafe(`drop database ${name} with (force)`);
await a.end();
fs.rmSync(dataDir, { recursive: true, force: true });
