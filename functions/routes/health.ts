// GET /healthz: the process is up and its database answers.
import { Hono } from 'hono';
import type { AppEnv } from '../app.ts';

export function healthRoutes() {
  return new Hono<AppEnv>().get('/healthz', async (c) => {
    const { sql } = c.var.deps;
    const [row] = await sql<{ seq: number | null }[]>`select (select max(seq) from dispatch.events) as seq`;
    return c.json({ ok: true, seq: row?.seq ?? 0 });
  });
}
