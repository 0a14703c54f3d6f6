// `npm start` (serve + work), `npm run serve` (HTTP only), `npm run work` (job runner only): validate
// config, open (or start) Postgres, migrate, then run. Stops cleanly on SIGINT/SIGTERM, the database last.
import { serve } from '@hono/node-server';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createSql } from './db/client.ts';
import { migrateAll } from './db/migrate.ts';
import { openDatabase } from './db/open.ts';
import { createLogger } from './log.ts';
import { startRunner, type StartedRunner } from '../jobs/runner.ts';
import { startupRefusal } from './middleware/auth.ts';
import { JournalHub } from './stream/hub.ts';

type Mode = 'all' | 'serve' | 'work';

async function main(): Promise<void> {
  const mode = (process.argv[2] ?? 'all') as Mode;
  if (!['all', 'serve', 'work'].includes(mode)) {
    process.stderr.write(`petal-dispatch: unknown mode ${mode}; use serve, work or nothing for both\n`);
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`petal-dispatch: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.LOG_LEVEL, mode === 'all' ? 'dispatch' : mode);
  const refusal = mode === 'work' ? null : startupRefusal(config);
  if (refusal) {
    process.stderr.write(`petal-dispatch: ${refusal}\n`);
    process.exit(2);
  }
  const db = await openDatabase(config, (l) => log.info(l));
  const sql = createSql(db.url, { max: 10, application: 'petal-dispatch serve' });

  let shuttingDown = false;
  const shutdown = async (why: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info(`shutting down (${why})`);
    await hub?.stop(); // ends every SSE stream, so the server can close
    await new Promise<void>((r) => {
      if (!server) return r();
      server.close(() => r());
      setTimeout(() => (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(), 2000).unref();
    });
    await runner?.stop().catch((e: Error) => log.warn(`runner stop: ${e.message}`));
    await sql.end({ timeout: 5 });
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  let server: ReturnType<typeof serve> | undefined;
  let runner: StartedRunner | undefined;
  let hub: JournalHub | undefined;
  try {
    await migrateAll(sql, db.url, (l) => log.info(l));
    if (mode !== 'serve') runner = await startRunner({ url: db.url, sql, config, log });
    if (mode === 'work') return;
    hub = new JournalHub(sql, log);
    await hub.start();
    const app = buildApp({ sql, config, log, hub });
    server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
      log.info(`listening on http://${config.HOST}:${info.port}`);
    });
    server.on('error', (err) => {
      log.error(`cannot listen on ${config.HOST}:${config.PORT}: ${err.message}`);
      void shutdown('listen error').then(() => process.exit(1));
    });
  } catch (err) {
    log.error((err as Error).message);
    await sql.end({ timeout: 5 });
    await db.close();
    process.exit(1);
  }
}

void main();
