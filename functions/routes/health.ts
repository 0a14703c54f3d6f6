// GET /healthz: the process is up and its database answers, with a few vital signs (memory,
// event-loop delay, open streams) for operators and benchmarks.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Hono } from 'hono';
import type { AppEnv } from '../deps.ts';

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

export function healthRoutes() {
  return new Hono<AppEnv>().get('/healthz', async (c) => {
    const { sql, hub } = c.var.deps;
    const [row] = await sql<{ seq: number | null }[]>`select (select max(seq) from dispatch.events) as seq`;
    const body = {
      ok: true,
      seq: row?.seq ?? 0,
      rss_bytes: process.memoryUsage().rss,
      event_loop_delay_ms: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      stream_clients: hub.subscriberCount,
    };
    if (c.req.query('reset') === 'loop') loop.reset();
    return c.json(body);
  });
}
