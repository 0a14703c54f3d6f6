// GET /api/state (the glance snapshot) and POST /api/focus (one action switches focus everywhere).
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { stateSnapshot } from '../queries/state.ts';
import { ErrorBody, FocusSchema, PostFocus } from '../schemas.ts';


export function stateRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/state',
        responses: { 200: json(z.record(z.string(), z.unknown()), 'projects, tasks, sessions, pending messages, working sets, focus, seq') },
      }),
      async (c) => c.json((await stateSnapshot(c.var.deps.sql)) as Record<string, unknown>, 200),
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/focus',
        request: { body: { content: { 'application/json': { schema: PostFocus } }, required: true } },
        responses: { 201: json(FocusSchema, 'focus.changed journalled'), 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown task') },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const b = c.req.valid('json');
        const [r] = await sql<{ id: string }[]>`select dispatch.set_focus(${b.thread_id ?? null}, ${b.task_id ?? null}) as id`;
        const [f] = await sql<{ seq: number }[]>`select seq from dispatch.events where event_id = ${r!.id}`;
        return c.json({ id: r!.id, seq: f!.seq, thread_id: b.thread_id ?? null, task_id: b.task_id ?? null }, 201);
      },
    );
}
