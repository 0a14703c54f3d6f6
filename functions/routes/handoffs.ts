// GET /api/handoffs: the derived read surface (FR-010) for a task, session or project scope.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { ErrorBody } from '../../core/contracts/common.ts';
import { HandoffsQuery } from '../schemas.ts';


export function handoffRoutes() {
  return newRouter().openapi(
    createRoute({
      method: 'get',
      path: '/handoffs',
      request: { query: HandoffsQuery },
      responses: {
        200: json(z.object({ handoffs: z.array(z.record(z.string(), z.unknown())) }), 'handoffs of the scope'),
        400: json(ErrorBody, 'bad input'),
        404: json(ErrorBody, 'unknown scope'),
      },
    }),
    async (c) => {
      const { sql } = c.var.deps;
      const q = c.req.valid('query');
      const [known] = await sql`
        select 1 as one where exists (select 1 from dispatch.projects where id = ${q.scope})
           or exists (select 1 from dispatch.tasks where id = ${q.scope})
           or exists (select 1 from dispatch.sessions where id = ${q.scope})`;
      if (!known) throw new AppError(404, 'not_found', `no project, task or session ${q.scope}`);
      const handoffs = await sql`select * from dispatch.get_handoffs(${q.scope}, ${q.limit}, ${q.order === 'desc'})`;
      return c.json({ handoffs: [...handoffs] as Record<string, unknown>[] }, 200);
    },
  );
}
