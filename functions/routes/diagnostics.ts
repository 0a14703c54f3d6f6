// Crash and restart counts (SC-2). POST /api/diagnostics/client-errors: a client's crash report
// (an uncaught error, an unhandled rejection, an event stream that stopped reconnecting), validated,
// rate-limited per address, journalled as client.error. GET /api/health/daily: crashes and restarts
// per UTC day, from dispatch.health_daily.
import { createRoute, z } from '@hono/zod-openapi';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { ErrorBody } from '../../core/contracts/common.ts';
import { ClientErrorReport, HealthDailySchema, type HealthDaily } from '../../core/contracts/diagnostics.ts';
import { AppError } from '../errors.ts';
import { json, newRouter } from './openapi.ts';

/** Reports each address may send per minute, and all addresses together. */
export const CLIENT_ERROR_LIMITS = { perAddress: 10, total: 60, windowMs: 60_000 };

/** A fixed-window counter per key: enough to keep a crash loop from flooding the journal. */
function limiter(limits: typeof CLIENT_ERROR_LIMITS) {
  let windowStart = 0;
  let total = 0;
  const byKey = new Map<string, number>();
  return (key: string, now = Date.now()): boolean => {
    if (now - windowStart >= limits.windowMs) {
      windowStart = now;
      total = 0;
      byKey.clear();
    }
    const n = byKey.get(key) ?? 0;
    if (n >= limits.perAddress || total >= limits.total) return false;
    byKey.set(key, n + 1);
    total++;
    return true;
  };
}

function addressOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // app.request in tests: no socket
  }
}

export function diagnosticsRoutes() {
  const allow = limiter(CLIENT_ERROR_LIMITS);
  return newRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/diagnostics/client-errors',
        request: { body: { content: { 'application/json': { schema: ClientErrorReport } }, required: true } },
        responses: {
          201: json(z.object({ id: z.string().uuid() }), 'client.error journalled'),
          400: json(ErrorBody, 'bad input'),
          429: json(ErrorBody, 'too many reports from this address (or from all) this minute'),
        },
      }),
      async (c) => {
        const report = c.req.valid('json');
        if (!allow(addressOf(c))) {
          throw new AppError(429, 'rate_limited', `at most ${CLIENT_ERROR_LIMITS.perAddress} client error reports a minute per address; this one was dropped`);
        }
        const [row] = await c.var.deps.sql<{ id: string }[]>`select dispatch.client_error(${JSON.stringify(report)}::text::jsonb) as id`;
        return c.json({ id: row!.id }, 201);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/health/daily',
        request: { query: z.object({ days: z.coerce.number().int().min(1).max(366).default(14) }) },
        responses: { 200: json(HealthDailySchema, 'crashes and restarts per UTC day, newest first'), 400: json(ErrorBody, 'bad input') },
      }),
      async (c) => {
        const { days } = c.req.valid('query');
        const [row] = await c.var.deps.sql<{ d: HealthDaily['days'] }[]>`select dispatch.health_daily(${days}) as d`;
        return c.json({ days: row!.d }, 200);
      },
    );
}
