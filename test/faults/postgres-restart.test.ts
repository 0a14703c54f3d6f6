// Postgres restarted while a worker pours out lines: the writer waits (the spool file is the
// buffer, so memory stays bounded) and retries; every line lands exactly once, in order; an SSE
// client reconnects and resumes with no gap and no duplicate.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../functions/app.ts';
import { loadConfig } from '../../core/config.ts';
import { createSql } from '../../core/db/client.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/db/embedded.ts';
import { migrateAll } from '../../core/db/migrate.ts';
import { JournalHub } from '../../functions/stream/hub.ts';
import { startRunner } from '../../jobs/runner.ts';
import { quiet } from '../helpers/app.ts';
import { waitFor } from '../helpers/db.ts';
import { repoRoot } from '../helpers/process.ts';
import { connectSse } from '../helpers/sse.ts';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { tempDir } from '../helpers/teardown.ts';

const cleanup: (() => Promise<void>)[] = [];

/** A query after the restart may meet a pooled connection the restart killed: try it again. */
async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
}
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
});

describe('Postgres restarted mid-run', () => {
  it('loses no line and no stream event', async () => {
    const dir = tempDir('pd-pgrestart-');
    fs.chmodSync(dir, 0o755);
    let pg: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), fast: true });
    const port = pg.port; // the restart comes back on it, where the pool reconnects
    cleanup.push(async () => {
      await pg.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const sql = createSql(pg.url, { max: 8 });
    cleanup.push(() => sql.end({ timeout: 2 }));
    await migrateAll(sql, pg.url);

    const config = loadConfig({ DISPATCH_DATA_DIR: path.join(dir, 'data'), KILL_GRACE_SECONDS: '2' });
    const runner = await startRunner({
      url: pg.url,
      sql,
      config,
      log: quiet,
      childEnv: { ...process.env, CLAUDE_BIN: path.join(repoRoot, 'test/fakes/firehose.mjs'), FIREHOSE_LINES: '6000', FIREHOSE_RATE: '1500' },
    });
    cleanup.push(() => runner.stop());
    const hub = new JournalHub(sql, quiet, { pollMs: 500 });
    await hub.start();
    cleanup.push(() => hub.stop());
    const server = serve({ fetch: buildApp({ sql, config, log: quiet, hub }).fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    cleanup.push(async () => {
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // An SSE client that reconnects with Last-Event-ID whenever its stream drops.
    const seen: number[] = [];
    let clientDone = false;
    let connections = 0;
    const client = (async () => {
      while (!clientDone) {
        try {
          const c = await connectSse(`${url}/api/stream`, (e) => seen.push(Number(e.id)), { lastEventId: seen.at(-1) ?? 0 });
          if (c.status === 200) connections++;
          await Promise.race([c.done, waitFor(() => clientDone, Boolean, { timeout: 120_000 })]);
          c.abort();
        } catch {
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    })();

    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('firehose') as id`;
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Pour out lines.') as id`;
    await waitFor(
      async () => (await sql<{ n: number }[]>`select lines_written as n from dispatch.sessions where task_id = ${t!.id} and role = 'worker'`)[0]?.n ?? 0,
      (n) => n > 500,
      { what: 'the first lines' },
    );

    const [{ spool_path: spoolPath } = { spool_path: '' }] = await sql<{ spool_path: string }[]>`
      select spool_path from dispatch.sessions where task_id = ${t!.id} and role = 'worker'`;
    const spooledLines = () => fs.readFileSync(spoolPath, 'utf8').split('\n').length - 1;
    const connectionsBefore = connections;
    await pg.stop();
    // The worker keeps printing while Postgres is down: wait for 1 000 more lines in its spool.
    const atStop = spooledLines();
    const whileDown = await waitFor(spooledLines, (n) => n >= atStop + 1000, { what: 'lines spooled while Postgres is down' });
    // Meanwhile the API answers 503 database_unavailable (never a 500).
    const down = await fetch(`${url}/api/state`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { error: { code: string } }).error.code).toBe('database_unavailable');
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), fast: true, port });

    // The pool's old connections die with the restart: a poll that meets one just tries again.
    const [session] = await waitFor(
      () =>
        sql<{ id: string; status: string; spool_path: string }[]>`
          select id, status, spool_path from dispatch.sessions where task_id = ${t!.id} and role = 'worker' and ended_at is not null`.catch(
          () => [],
        ),
      (rows) => rows.length === 1,
      { timeout: 60_000, what: 'the worker session to end' },
    );
    expect(session!.status).toBe('success');
    const rows = await retrying(() => sql<{ line_no: number; i: number | null }[]>`
      select line_no, (payload->>'i')::int as i from dispatch.events where session_id = ${session!.id} and line_no is not null order by seq`);
    const spooled = fs.readFileSync(session!.spool_path, 'utf8').split('\n').filter(Boolean);
    expect(spooled).toHaveLength(6002);
    expect(rows.map((r) => r.line_no)).toEqual(spooled.map((_, k) => k));
    expect(rows.slice(1, -1).map((r) => r.i)).toEqual([...Array(6000).keys()]);
    // The writer retried: the lines printed while the database was down are journalled too.
    expect(rows.map((r) => r.line_no)).toEqual(expect.arrayContaining([atStop, whileDown - 1]));

    // The client caught up with exactly the journal, in order.
    const all = (await retrying(() => sql<{ seq: number }[]>`select seq from dispatch.events order by seq`)).map((r) => r.seq);
    await waitFor(() => seen.length, (n) => n >= all.length, { timeout: 30_000, what: 'the SSE client to catch up' });
    clientDone = true;
    await client;
    expect(seen.slice(0, all.length)).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    // …on the same connection: the server kept the stream open through the outage (its hub polls
    // again once Postgres is back), so the client never had to reconnect.
    expect(connections).toBe(connectionsBefore);
  }, 120_000);
});
