// npm run soak — a bounded soak (not part of npm test): 2 serve + 2 work processes on one Postgres,
// 8 paced workers (~200 lines/s each), SSE clients that drop and resume, and every 60 s one process
// killed with SIGKILL (and restarted) or Postgres restarted. It ends by checking every worker's lines
// against its spool (lost / duplicated / reordered), every client against the journal, that no
// process is left over, and prints the RSS of each long-lived process at start and end.
//
//   SOAK_MINUTES (default 10)  how long the chaos runs; the drain and the checks come after it
//   SOAK_WORKERS (default 8)   paced workers kept in flight
//   SOAK_RATE    (default 200) lines per second of each worker
//   SOAK_CLIENTS (default 4)   SSE clients
//   SOAK_CHAOS_SECONDS (default 60) time between two faults
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSql, type Sql } from '../../core/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/db/embedded.ts';
import { migrateAll } from '../../core/db/migrate.ts';
import { connectSse } from '../helpers/sse.ts';
import { processesWith } from '../helpers/marked-processes.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 8);
const RATE = Number(process.env.SOAK_RATE ?? 200);
const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 4);
const CHAOS_EVERY_MS = Number(process.env.SOAK_CHAOS_SECONDS ?? 60) * 1000;
const WORKER_SECONDS = 45;

const t0 = Date.now();
const log = (m: string) => process.stdout.write(`[soak ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    try {
      last = await fn();
      if (ok(last)) return last;
    } catch {
      /* Postgres restarting, a server down: try again */
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)?.slice(0, 300)}`);
    await sleep(250);
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

interface Slot {
  name: string;
  mode: 'serve' | 'work';
  env: NodeJS.ProcessEnv;
  child?: ChildProcess;
  restarts: number;
  rssStartKb?: number;
  output: string;
}

function startSlot(s: Slot): void {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bin/main.ts'), s.mode], {
    cwd: root,
    env: s.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (c: Buffer) => (s.output = (s.output + c.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  s.child = child;
}

function rssKb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function stopSlot(s: Slot, signal: NodeJS.Signals): Promise<void> {
  const c = s.child;
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill(signal);
  const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// SSE clients: each reads the whole journal, drops its connection every 10–25 s (and whenever a
// server dies), and resumes with Last-Event-ID on the other server.

interface Client {
  seen: number[];
  reconnects: number;
  stop: boolean;
  done?: Promise<void>;
}

function runClient(urls: string[], k: number): Client {
  const c: Client = { seen: [], reconnects: 0, stop: false };
  c.done = (async () => {
    let turn = k;
    while (!c.stop) {
      const url = urls[turn++ % urls.length]!;
      try {
        const conn = await connectSse(`${url}/api/stream`, (e) => e.id !== null && c.seen.push(Number(e.id)), {
          lastEventId: c.seen.at(-1) ?? 0,
        });
        if (conn.status !== 200) {
          conn.abort();
          await sleep(500);
          continue;
        }
        const dropAfter = 10_000 + Math.random() * 15_000;
        await Promise.race([conn.done, sleep(dropAfter), (async () => { while (!c.stop) await sleep(200); })()]);
        conn.abort();
        c.reconnects++;
      } catch {
        await sleep(500); // that server is down or restarting
      }
    }
  })();
  return c;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-soak-'));
  fs.chmodSync(dir, 0o755);
  const marker = randomUUID();
  const pgPort = await freePort();
  let pg: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), port: pgPort, fast: true });
  const sql: Sql = createSql(pg.url, { max: 4, application: 'soak' });
  await migrateAll(sql, pg.url);
  log(`Postgres on ${pgPort}; ${WORKERS} workers at ${RATE} lines/s, ${CLIENTS} SSE clients, ${MINUTES} min of chaos`);

  const ports = [await freePort(), await freePort()];
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: pg.url,
    CLAUDE_BIN: path.join(root, 'test/fakes/firehose.mjs'),
    FIREHOSE_LINES: String(RATE * WORKER_SECONDS),
    FIREHOSE_RATE: String(RATE),
    PD_TEST_MARKER: marker,
    LOG_LEVEL: 'warn',
    WORKER_CONCURRENCY: String(WORKERS + 4),
    KILL_GRACE_SECONDS: '2',
    RUNNER_STALE_SECONDS: '15',
    PUBLIC_URL: `http://127.0.0.1:${ports[0]}`,
  };
  delete base.DISPATCH_TOKEN;
  delete base.OPEN_MODE;
  const slots: Slot[] = [
    ...ports.map((port, i): Slot => ({ name: `serve-${i + 1}`, mode: 'serve', env: { ...base, PORT: String(port), HOST: '127.0.0.1', DISPATCH_DATA_DIR: path.join(dir, `serve-${i + 1}`) }, restarts: 0, output: '' })),
    ...[1, 2].map((i): Slot => ({ name: `work-${i}`, mode: 'work', env: { ...base, DISPATCH_DATA_DIR: path.join(dir, `work-${i}`) }, restarts: 0, output: '' })),
  ];
  for (const s of slots) startSlot(s);
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);
  await waitFor(async () => (await Promise.all(urls.map((u) => fetch(`${u}/healthz`).then((r) => r.ok)))).every(Boolean), Boolean, 60_000, 'both servers');
  await waitFor(async () => (await sql<{ n: number }[]>`select count(*)::int as n from dispatch.runners where stopped_at is null`)[0]!.n, (n) => n >= 2, 60_000, 'both runners');

  const [proj] = await sql<{ id: string }[]>`select dispatch.create_project('soak') as id`;
  const projectId = proj!.id;
  const clients = Array.from({ length: CLIENTS }, (_, k) => runClient(urls, k));

  // Keep WORKERS tasks in flight until the chaos ends.
  let submitting = true;
  let submitted = 0;
  const feeder = (async () => {
    while (submitting) {
      try {
        const [r] = await sql<{ n: number }[]>`select count(*)::int as n from dispatch.tasks where project_id = ${projectId} and ended_at is null`;
        for (let i = r!.n; i < WORKERS && submitting; i++) {
          await sql`select dispatch.submit_task(${projectId}, ${`Pour out lines (${++submitted}).`})`;
        }
      } catch {
        /* Postgres restarting */
      }
      await sleep(1000);
    }
  })();

  await sleep(15_000);
  for (const s of slots) s.rssStartKb = rssKb(s.child?.pid);
  const pgRssStart = rssKb(pg.pid);
  const selfRssStart = rssKb(process.pid);

  // Chaos: one action per minute, round robin.
  const actions = ['work-1', 'postgres', 'serve-1', 'work-2', 'postgres', 'serve-2'];
  let kills = 0;
  let pgRestarts = 0;
  const chaosEnd = t0 + MINUTES * 60_000;
  for (let n = 0; Date.now() + CHAOS_EVERY_MS <= chaosEnd; n++) {
    await sleep(CHAOS_EVERY_MS);
    const what = actions[n % actions.length]!;
    if (what === 'postgres') {
      log('restarting Postgres');
      await pg.stop();
      await sleep(2000);
      pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), port: pgPort, fast: true });
      pgRestarts++;
    } else {
      const s = slots.find((x) => x.name === what)!;
      log(`SIGKILL ${what} (pid ${s.child?.pid})`);
      await stopSlot(s, 'SIGKILL');
      kills++;
      await sleep(2000);
      startSlot(s);
      s.restarts++;
    }
  }
  const remaining = chaosEnd - Date.now();
  if (remaining > 0) await sleep(remaining);
  submitting = false;
  await feeder;
  log(`chaos over: ${kills} processes killed, ${pgRestarts} Postgres restarts, ${submitted} tasks submitted; draining`);

  // Drain: every task over, every worker line journalled.
  await waitFor(
    async () => (await sql<{ n: number }[]>`select count(*)::int as n from dispatch.tasks where project_id = ${projectId} and ended_at is null`)[0]!.n,
    (n) => n === 0,
    10 * 60_000,
    'every task to end',
  );
  const rssEnd = slots.map((s) => rssKb(s.child?.pid));
  const pgRssEnd = rssKb(pg.pid);
  const selfRssEnd = rssKb(process.pid);

  // Workers against their spools.
  const sessions = await sql<{ id: string; status: string; spool_path: string | null; adopted: boolean }[]>`
    select s.id, s.status, s.spool_path,
           exists (select 1 from dispatch.events e where e.session_id = s.id and e.event_type = 'session.adopted') as adopted
      from dispatch.sessions s where s.project_id = ${projectId} and s.role = 'worker' order by s.created_at`;
  let lost = 0;
  let dup = 0;
  let reordered = 0;
  let lines = 0;
  for (const s of sessions) {
    const spooled = s.spool_path && fs.existsSync(s.spool_path) ? fs.readFileSync(s.spool_path, 'utf8').split('\n').filter(Boolean).length : 0;
    const rows = await sql<{ line_no: number }[]>`select line_no from dispatch.events where session_id = ${s.id} and line_no is not null order by seq`;
    const distinct = new Set(rows.map((r) => r.line_no));
    lines += rows.length;
    lost += spooled - [...distinct].filter((n) => n < spooled).length;
    dup += rows.length - distinct.size;
    for (let i = 1; i < rows.length; i++) if (rows[i]!.line_no < rows[i - 1]!.line_no) reordered++;
  }
  const statusCounts = sessions.reduce<Record<string, number>>((a, s) => ((a[s.status] = (a[s.status] ?? 0) + 1), a), {});

  // Clients against the journal.
  const [head] = await sql<{ seq: number }[]>`select coalesce(max(seq), 0)::bigint as seq from dispatch.events`;
  await waitFor(async () => clients.map((c) => c.seen.at(-1) ?? 0), (last) => last.every((s) => s >= head!.seq), 5 * 60_000, 'the SSE clients to catch up');
  for (const c of clients) c.stop = true;
  await Promise.all(clients.map((c) => c.done));
  const journal = (await sql<{ seq: number }[]>`select seq from dispatch.events where seq <= ${head!.seq} order by seq`).map((r) => r.seq);
  const clientResults = clients.map((c) => {
    const got = c.seen.filter((s) => s <= head!.seq);
    const set = new Set(got);
    let outOfOrder = 0;
    for (let i = 1; i < got.length; i++) if (got[i]! <= got[i - 1]!) outOfOrder++;
    return { events: got.length, missing: journal.filter((s) => !set.has(s)).length, duplicated: got.length - set.size, out_of_order: outOfOrder, reconnects: c.reconnects };
  });

  // Stop everything; nothing of ours may be left.
  for (const s of slots) await stopSlot(s, 'SIGTERM');
  await sleep(1000);
  const orphans = processesWith(marker);
  await sql.end({ timeout: 5 });
  await pg.stop();

  const report = {
    minutes: MINUTES,
    workers: { sessions: sessions.length, statuses: statusCounts, adopted: sessions.filter((s) => s.adopted).length, lines_journalled: lines, lost, duplicated: dup, reordered },
    chaos: { processes_killed: kills, postgres_restarts: pgRestarts, restarts_by_slot: Object.fromEntries(slots.map((s) => [s.name, s.restarts])) },
    clients: clientResults,
    journal_events: journal.length,
    orphans: orphans.length,
    rss_mb: {
      ...Object.fromEntries(slots.map((s, i) => [s.name, `${mb(s.rssStartKb)} → ${mb(rssEnd[i])}${s.restarts ? ` (restarted ${s.restarts}×: the end figure is a younger process)` : ''}`])),
      postgres: `${mb(pgRssStart)} → ${mb(pgRssEnd)}${pgRestarts ? ` (restarted ${pgRestarts}×)` : ''}`,
      soak: `${mb(selfRssStart)} → ${mb(selfRssEnd)}`,
    },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const ok = lost === 0 && dup === 0 && reordered === 0 && orphans.length === 0 && clientResults.every((c) => c.missing === 0 && c.duplicated === 0 && c.out_of_order === 0);
  log(ok ? 'PASS' : 'FAIL');
  if (orphans.length) {
    for (const pid of orphans) process.kill(pid, 'SIGKILL');
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return ok ? 0 : 1;
}

const mb = (kb: number | undefined) => (kb === undefined ? '?' : `${(kb / 1024).toFixed(0)} MB`);

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`soak: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
