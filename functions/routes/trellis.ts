// GET /api/trellis[?thread=ID]: the live thread, the thread list and the recent context of the live
// thread (or of ?thread, the one the user focused); {available: false, reason} when Trellis cannot
// answer within its budget.
import { createRoute, z } from '@hono/zod-openapi';
import { TrellisViewSchema } from '../../core/contracts/trellis.ts';
import { readTrellis, trellisOptions } from '../../core/trellis.ts';
import { json, newRouter } from './openapi.ts';

export function trellisRoutes() {
  return newRouter().openapi(
    createRoute({
      method: 'get',
      path: '/trellis',
      request: { query: z.object({ thread: z.string().min(1).max(200).optional() }) },
      responses: { 200: json(TrellisViewSchema, 'Trellis view or unavailable') },
    }),
    async (c) => {
      const { thread } = c.req.valid('query');
      return c.json(await readTrellis(trellisOptions(c.var.deps.config), thread), 200);
    },
  );
}
