// Builds the Hono app: one sub-app per resource, one error handler. Only main.ts listens.
import { Hono } from 'hono';
import type { Sql } from './db/client.ts';
import { renderError } from './errors.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { healthRoutes } from './routes/health.ts';

export interface Deps {
  sql: Sql;
  config: Config;
  log: Logger;
}

export type AppEnv = { Variables: { deps: Deps } };

export function buildApp(deps: Deps) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  app.onError((err, c) => renderError(err, c, (e) => deps.log.error(`unhandled: ${(e as Error)?.stack ?? String(e)}`)));
  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } }, 404));
  app.route('/', healthRoutes());
  return app;
}
