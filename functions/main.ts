// `npm start`: validate config, open (or start) Postgres, migrate, then serve HTTP. Stops cleanly on
// SIGINT/SIGTERM, the database last.
import { serve } from '@hono/node-server';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createSql } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { openDatabase } from './db/open.ts';
import { createLogger } from './log.ts';

async function main(): Promise<void> {
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
  const log = createLogger(config.LOG_LEVEL);
  const db = await openDatabase(config, (l) => log.info(l));
  const sql = createSql(db.url, { max: 10, application: 'petal-dispatch serve' });

  let shuttingDown = false;
  const shutdown = async (why: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info(`shutting down (${why})`);
    await new Promise<void>((r) => server?.close(() => r()) ?? r());
    await sql.end({ timeout: 5 });
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  let server: ReturnType<typeof serve> | undefined;
  try {
    await migrate(sql, { log: (l) => log.info(l) });
    const app = buildApp({ sql, config, log });
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
