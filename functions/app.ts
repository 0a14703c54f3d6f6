// Builds the Hono app: one sub-app per resource, auth and body rules on /api, one error handler,
// the OpenAPI document generated from the route schemas. Only main.ts listens.
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { compress } from 'hono/compress';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Deps } from './deps.ts';
import { isConnectionLoss } from '../core/db/errors.ts';
import { renderError } from './errors.ts';
import { clientRoutes } from './routes/client.ts';
import { mcpRoutes } from './mcp.ts';
import { auth } from './middleware/auth.ts';
import { hostCheck } from './middleware/host-check.ts';
import { jsonOnly } from './middleware/json-only.ts';
import { diagnosticsRoutes } from './routes/diagnostics.ts';
import { eventRoutes } from './routes/events.ts';
import { gateHookRoutes, gateRoutes } from './routes/gates.ts';
import { needsYouRoutes } from './routes/needs-you.ts';
import { handoffRoutes } from './routes/handoffs.ts';
import { healthRoutes } from './routes/health.ts';
import { messageRoutes } from './routes/messages.ts';
import { projectRoutes } from './routes/projects.ts';
import { pushRoutes } from './routes/push.ts';
import { scheduleRoutes } from './routes/schedules.ts';
import { stateRoutes } from './routes/state.ts';
import { taskRoutes } from './routes/tasks.ts';
import { trellisRoutes } from './routes/trellis.ts';
import { usageRoutes } from './routes/usage.ts';
import { wellKnownRoutes } from './routes/well-known.ts';
import { workspaceRoutes } from './routes/workspaces.ts';

export const BODY_LIMIT_BYTES = 256 * 1024;

export function buildApp(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>();
  const freshFor = new WeakMap<Request, Deps['sql']>();
  app.use(async function provideDeps(c, next) {
    const fresh = freshFor.get(c.req.raw);
    c.set('deps', fresh ? { ...deps, sql: fresh } : deps);
    await next();
  });
  // A read that met a pooled connection a Postgres restart killed is answered by a second try
  // (below); only idempotent methods qualify, a write answers 503 with Retry-After.
  // Keyed by the request, not the answer: a middleware (compress, headers) may hand back a new Response object.
  const retryable = new WeakSet<Request>();
  app.onError((err, c) => {
    const res = renderError(err, c, (e) => deps.log.error(`unhandled: ${(e as Error)?.stack ?? String(e)}`));
    if (isConnectionLoss(err) && IDEMPOTENT.has(c.req.method)) retryable.add(c.req.raw);
    return res;
  });
  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } }, 404));

  // A write through this server may change what GET /api/state shows without a new journal head
  // (a budget): its kept answer is not reused after one, even before the change's NOTIFY arrives.
  app.use(async function touchStateAfterWrites(c, next) {
    await next();
    if (!IDEMPOTENT.has(c.req.method)) deps.hub.touch();
  });
  // Rebinding and foreign origins are refused before anything else looks at the request.
  app.use(hostCheck(deps.config));
  const limit = bodyLimit({
    maxSize: BODY_LIMIT_BYTES,
    // The unread rest of the body would be taken for the next request on this connection (or the
    // server drops the socket mid keep-alive): say the connection ends here.
    onError: (c) =>
      c.json(
        { error: { code: 'payload_too_large', message: `bodies are limited to ${BODY_LIMIT_BYTES} bytes` } },
        413,
        { connection: 'close' },
      ),
  });
  // GET and HEAD have no body to limit (the limit lets them through), and asking for one makes the
  // Node adapter build a full Request with its own AbortController and headers, which an SSE client
  // then keeps for as long as it stays connected (about 2 KB each, measured at 1 000 idle clients).
  const limitBody: MiddlewareHandler<AppEnv> = (c, next) => (IDEMPOTENT.has(c.req.method) ? next() : limit(c, next));
  // JSON answers gzip-compressed when asked (a journal page shrinks about tenfold); the SSE stream
  // says no-transform, so its frames are never held back in a compressor's buffer.
  app.use('/api/*', compress(), auth(deps.config), limitBody, jsonOnly());
  app.use('/mcp', limitBody);
  app.use('/hooks/*', limitBody, jsonOnly());

  app.route('/', healthRoutes());
  app.route('/', wellKnownRoutes());
  app.route('/api', projectRoutes());
  app.route('/api', taskRoutes());
  app.route('/api', scheduleRoutes());
  app.route('/api', eventRoutes());
  app.route('/api', messageRoutes());
  app.route('/api', handoffRoutes());
  app.route('/api', stateRoutes());
  app.route('/api', trellisRoutes());
  app.route('/api', diagnosticsRoutes());
  app.route('/api', pushRoutes());
  app.route('/api', gateRoutes());
  app.route('/api', needsYouRoutes());
  app.route('/', gateHookRoutes());
  app.route('/api', usageRoutes());
  app.route('/api', workspaceRoutes());
  app.route('/', mcpRoutes());
  app.doc31('/api/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'petal-dispatch', version: '1.0.0', description: 'The journal, the execution loop and the live view of AI coding agents.' },
  });
  // Unknown /api paths are JSON 404s, never the client shell.
  app.all('/api/*', (c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } }, 404));
  app.route('/', clientRoutes(deps.clientDir));

  const fetchOnce = app.fetch;
  app.fetch = async function fetchRetryingReads(request, env, ctx) {
    const first = await fetchOnce(request, env, ctx);
    if (!retryable.has(request)) return first;
    deps.log.info(`${request.method} ${new URL(request.url).pathname}: database connection lost; trying once more on a fresh one`);
    // Not the pool: after a restart its other idle connections are as dead as the first, and it
    // learns so one query at a time. A client of its own connects anew (and closes when idle).
    const fresh = deps.freshSql?.();
    if (fresh) freshFor.set(request, fresh);
    return fetchOnce(request, env, ctx);
  };
  return app;
}

const IDEMPOTENT = new Set(['GET', 'HEAD']);
