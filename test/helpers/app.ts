// The real app over a fresh test database, for app.request() tests and real-socket tests.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../functions/app.ts';
import { loadConfig, type Config } from '../../core/config.ts';
import { createSql } from '../../core/db/client.ts';
import type { Logger } from '../../core/log.ts';
import { JournalHub } from '../../functions/stream/hub.ts';
import { createTestDb, type TestDb } from './db.ts';
import { defer } from './teardown.ts';

export const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export interface TestApp {
  db: TestDb;
  app: ReturnType<typeof buildApp>;
  hub: JournalHub;
  config: Config;
  /** JSON request helper: sets Content-Type for bodies. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

export async function startTestApp(env: Record<string, string> = {}, db?: TestDb, clientDir?: string): Promise<TestApp> {
  const theDb = db ?? (await createTestDb());
  const config = loadConfig({ DATABASE_URL: theDb.url, ...env });
  const hub = new JournalHub(theDb.sql, quiet, { pollMs: 1000 });
  await hub.start();
  const app = buildApp({ sql: theDb.sql, config, log: quiet, hub, clientDir, freshSql: () => createSql(theDb.url, { max: 1, idleTimeout: 2 }) });
  defer(() => hub.stop(), 'stop the journal hub');
  return {
    db: theDb,
    app,
    hub,
    config,
    call: async (method, path, body, headers = {}) =>
      app.request(path, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

/** Serves the app on a real loopback socket (for SSE and auth by address). */
/**
 * Serves the app on 127.0.0.1. With a fixed `port` (a server that must come back where a browser
 * was connected), a bind that finds the port still taken is tried again for up to 30 s.
 */
export async function listen(t: TestApp, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const deadline = Date.now() + 30_000;
  let server: ReturnType<typeof serve>;
  for (;;) {
    server = serve({ fetch: t.app.fetch, port, hostname: '127.0.0.1' });
    const s = server;
    const err = await new Promise<NodeJS.ErrnoException | null>((r) => {
      s.once('listening', () => r(null));
      s.once('error', (e: NodeJS.ErrnoException) => r(e));
    });
    if (!err) break;
    if (err.code !== 'EADDRINUSE' || !port || Date.now() > deadline) throw err;
    await new Promise((r) => setTimeout(r, 250));
  }
  const bound = (server.address() as AddressInfo).port;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    (server as unknown as { closeAllConnections(): void }).closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  defer(close, 'close the test server');
  return { url: `http://127.0.0.1:${bound}`, close };
}
