// GET /api/trellis: the live thread, its identity and recent context; {available: false, reason}
// when Trellis cannot answer within its budget.
import { createRoute } from '@hono/zod-openapi';
import { TrellisViewSchema } from '../../core/contracts/trellis.ts';
import { readTrellis } from '../trellis.ts';
import { json, newRouter } from './openapi.ts';

export function trellisRoutes() {
  return newRouter().openapi(
    createRoute({
      method: 'get',
      path: '/trellis',
      responses: { 200: json(TrellisViewSchema, 'Trellis view or unavailable') },
    }),
    async (c) => {
      const { config } = c.var.deps;
      return c.json(await readTrellis({ url: config.TRELLIS_URL, routes: config.TRELLIS_ROUTES }), 200);
    },
  );
}
