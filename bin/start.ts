// Starts petal-dispatch in this process: Postgres (given or embedded), migrations, the job runner
// and/or the HTTP server. Used by `npm start`/`serve`/`work` and by `npm run demo`. A stop asked for
// while it starts (`signal`) waits for the step under way, then stops what has started, in reverse.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { ensureVapid } from '../core/push.ts';
import { startRunner, type StartedRunner } from '../jobs/runner.ts';
import { buildApp } from '../functions/app.ts';
import type { Config } from '../core/config.ts';
import { createSql, type Sql } from '../core/db/client.ts';
import { migrateAll } from '../core/db/migrate.ts';
import { openDatabase } from '../core/db/open.ts';
import type { Logger } from '../core/log.ts';
import { JournalHub } from '../functions/stream/hub.ts';
import { instanceName, journalStart, journalStop, type Started } from '../core/server-lifecycle.ts';
import { requestedStop } from '../core/stop-signals.ts';

export type Mode = 'all' | 'serve' | 'work';

export interface Dispatch {
  sql: Sql;
  url: string | null;
  /** Stops it; `reason` goes into the server.stopped event (e.g. SIGTERM). */
  stop(reason?: string): Promise<void>;
}

/** Throws signal.reason (a StopRequested) when `signal` is aborted, having stopped what it started. */
export async function startDispatch(config: Config, log: Logger, mode: Mode, childEnv?: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<Dispatch> {
  signal?.throwIfAborted();
  const db = await openDatabase(config, (l) => log.info(l), signal);
  const sql = createSql(db.url, { max: 10, application: `petal-dispatch ${mode}` });
  let server: ReturnType<typeof serve> | undefined;
  let runner: StartedRunner | undefined;
  let hub: JournalHub | undefined;
  let started: Started | undefined;

  let stopping: Promise<void> | undefined;
  const stop = (reason = 'stop') =>
    (stopping ??= (async () => {
      // In this order, each step logged: no new request or stream, then no new job (running workers
      // detach and are adopted by the next start), then the journal's last word, then the database.
      await hub?.stop(); // ends every SSE stream, so the server can close
      if (server) {
        await new Promise<void>((r) => {
          server!.close(() => r());
          setTimeout(() => (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(), 2000).unref();
        });
        log.info('stopped serving: streams ended, server closed');
      }
      await runner?.stop().catch((e: Error) => log.warn(`runner stop: ${e.message}`));
      // Last write: a start that finds no server.stopped for its predecessor counts an unclean stop.
      if (started) {
        await journalStop(sql, started, reason).then(
          () => log.info(`journalled server.stopped (${reason})`),
          (e: Error) => log.warn(`journal the clean stop: ${e.message}`),
        );
      }
      await sql.end({ timeout: 5 });
      await db.close();
      if (db.embedded) log.info('embedded Postgres stopped');
    })());

  const stopAsked = () => signal?.throwIfAborted();
  try {
    stopAsked();
    await migrateAll(sql, db.url, (l) => log.info(l));
    stopAsked();
    await ensureVapid(sql); // Web Push keys, made once and kept in the database
    started = await journalStart(sql, instanceName(config, mode), mode);
    if (started.previous?.stop === 'unclean') {
      log.warn(`the previous run (pid ${started.previous.pid ?? '?'}, started ${started.previous.started_at}) did not stop cleanly: counted as an unclean stop`);
    }
    if (mode === 'work') {
      stopAsked();
      runner = await startRunner({ url: db.url, sql, config, log, childEnv });
      stopAsked();
      return { sql, url: null, stop };
    }
    stopAsked();
    hub = new JournalHub(sql, log);
    await hub.start();
    stopAsked();
    const freshSql = () => createSql(db.url, { max: 1, idleTimeout: 2, application: 'petal-dispatch serve (retry)' });
    const app = buildApp({ sql, config, log, hub, freshSql });
    const s = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST });
    server = s;
    await new Promise<void>((resolve, reject) => {
      s.once('listening', resolve);
      s.once('error', (err: Error) => reject(new Error(`cannot listen on ${config.HOST}:${config.PORT}: ${err.message}`)));
    });
    const { port } = s.address() as AddressInfo;
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
    // The runner starts once the port is known: its workers' gate hook and the orchestrator's MCP
    // client call this server back, also when PORT=0 let the system pick the port.
    stopAsked();
    if (mode === 'all') runner = await startRunner({ url: db.url, sql, config: { ...config, PORT: port }, log, childEnv });
    stopAsked();
    log.info(`listening on ${url}`);
    return { sql, url, stop };
  } catch (err) {
    await stop(requestedStop(err) ?? 'start-up failed');
    throw err;
  }
}
