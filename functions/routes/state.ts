// GET /api/state (the glance snapshot) and POST /api/focus (one action switches focus everywhere).
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { ErrorBody } from '../../core/contracts/common.ts';
import { FocusSchema, PostFocus, type Focus } from '../../core/contracts/focus.ts';
import { StateSchema } from '../../core/contracts/state.ts';
import { FOCUS_COLUMNS, stateSnapshot } from '../queries/state.ts';

export function stateRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/state',
        responses: { 200: json(StateSchema, 'projects, tasks, sessions, pending messages, working sets, focus, statuses, seq') },
      }),
      async (c) => c.json(await stateSnapshot(c.var.deps.sql), 200),
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
        const [r] = await sql<{ id: string }[]>`select dispatch.set_focus(${b.thread_id === undefined ? null : JSON.stringify(b.thread_id)}::text::jsonb, ${b.task_id ?? null}) as id`;
        const [focus] = await sql<Focus[]>`select ${sql.unsafe(FOCUS_COLUMNS)} from dispatch.events where event_id = ${r!.id}`;
        return c.json(focus!, 201);
      },
    );
}
