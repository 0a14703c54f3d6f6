// /api/events (a journal page in seq order) and /api/stream (SSE: id = seq; Last-Event-ID or
// ?after= resumes with no gap and no duplicate; heartbeat comments; a slow client is cut off and
// resumes by itself instead of growing the server's memory).
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { streamTo } from '../stream/sse.ts';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { ErrorBody } from '../../core/contracts/common.ts';
import { EventSchema } from '../../core/contracts/event.ts';
import { pageEvents } from '../queries/events.ts';
import { EventFilterQuery, EventsQuery } from '../schemas.ts';

export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 2000;
/** Bytes queued for one client before it is disconnected (it resumes with Last-Event-ID). */
export const CLIENT_BUFFER_BYTES = 2 * 1024 * 1024;

const StreamQuery = EventFilterQuery.extend({
  after: z.coerce.number().int().min(0).optional(),
});

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

export function eventRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/events',
        request: { query: EventsQuery },
        responses: {
          200: json(
            z.object({ events: z.array(EventSchema), next_after: z.number().int(), next_before: z.number().int().nullable().optional() }),
            'journal rows in seq order: after `after`, or the newest below `before` (then `next_before` pages further back, null at the start)',
          ),
          400: json(ErrorBody, 'bad input'),
        },
      }),
      async (c) => {
        const q = c.req.valid('query');
        const events = await pageEvents(c.var.deps.sql, q);
        const next_after = events.at(-1)?.seq ?? q.after;
        if (q.before === undefined) return c.json({ events, next_after }, 200);
        return c.json({ events, next_after, next_before: events.length === q.limit ? events[0]!.seq : null }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/stream',
        request: { query: StreamQuery },
        responses: {
          200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'journal rows as SSE; id is seq' },
          400: json(ErrorBody, 'bad input'),
        },
      }),
      (c) => {
        const { hub } = c.var.deps;
        const q = c.req.valid('query');
        const header = c.req.header('last-event-id');
        let after = q.after ?? hub.head;
        if (header !== undefined) {
          if (!/^\d+$/.test(header.trim())) throw new AppError(400, 'invalid_input', 'Last-Event-ID must be a seq number');
          after = Number(header.trim());
        }
        const { after: _after, ...filter } = q;
        const options = { hub, after, filter, limit: CLIENT_BUFFER_BYTES, retryMs: RETRY_MS, heartbeatMs: HEARTBEAT_MS };
        const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
        if (outgoing) {
          // Written straight to the socket's response (see functions/stream/sse.ts).
          outgoing.writeHead(200, SSE_HEADERS);
          outgoing.flushHeaders();
          streamTo(outgoing, options);
          return RESPONSE_ALREADY_SENT as never;
        }
        // No Node response (app.request() in tests): the same stream through a PassThrough.
        const pass = new PassThrough();
        streamTo(pass, options);
        c.req.raw.signal?.addEventListener('abort', () => pass.destroy());
        const body = new ReadableStream<Uint8Array>({
          start(ctrl) {
            // A reader that cancelled has closed the controller: later frames are dropped, never thrown.
            pass.on('data', (chunk: Buffer) => {
              try {
                ctrl.enqueue(chunk);
              } catch {
                pass.destroy();
              }
            });
            pass.on('end', () => {
              try {
                ctrl.close();
              } catch {
                /* already closed */
              }
            });
          },
          cancel: () => void pass.destroy(),
        });
        return new Response(body, { status: 200, headers: SSE_HEADERS }) as never;
      },
    );
}
