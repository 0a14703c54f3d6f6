// Needs you over HTTP: the list (GET /api/needs-you, the same items GET /api/state carries) and
// the dismissal (POST /api/needs-you/dismiss {key}), journalled so every client drops the item.
import { createRoute, z } from '@hono/zod-openapi';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import { DismissNeedsYou, NeedsYouListSchema } from '../../core/contracts/needs-you.ts';
import { dismissNeedsYou, finishedLoops, needsYou } from '../queries/needs-you.ts';
import { json, newRouter } from './openapi.ts';

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'nothing listed under that key') };

export function needsYouRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/needs-you',
        request: { query: z.object({ project_id: Uuid.optional() }) },
        responses: { 200: json(NeedsYouListSchema, 'what waits for a person, newest first, and the finished loops'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const project = c.req.valid('query').project_id ?? null;
        const [items, finished] = await Promise.all([needsYou(sql, project), finishedLoops(sql, project)]);
        return c.json({ items, finished }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/needs-you/dismiss',
        request: { body: { content: { 'application/json': { schema: DismissNeedsYou } }, required: true } },
        responses: { 200: json(z.object({ key: z.string(), event_id: Uuid }), 'marked seen, journalled as needs_you.dismissed'), ...errors },
      }),
      async (c) => {
        const { key } = c.req.valid('json');
        const event_id = await dismissNeedsYou(c.var.deps.sql, key, c.var.user ?? null);
        return c.json({ key, event_id }, 200);
      },
    );
}
