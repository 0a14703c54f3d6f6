// GET /api/trellis: the live thread, its identity and recent context; {available: false, reason}
// when Trellis cannot answer within its budget.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { readTrellis } from '../trellis.ts';

export function trellisRoutes() {
  return newRouter().openapi(
    createRoute({
      method: 'get',
      path: '/trellis',
      responses: { 200: { content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } }, description: 'Trellis view or unavailable' } },
    }),
    async (c) => {
      const { config } = c.var.deps;
      return c.json(await readTrellis({ url: config.TRELLIS_URL, routes: config.TRELLIS_ROUTES }), 200);
    },
  );
}
