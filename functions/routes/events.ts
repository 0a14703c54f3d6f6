// /api/events (a journal page in seq order) and /api/stream (SSE: id = seq; Last-Event-ID or
// ?after= resumes with no gap and no duplicate; heartbeat comments; a slow client is cut off and
// resumes by itself instead of growing the server's memory).
import { createRoute, z } from '@hono/zod-openapi';
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

const encoder = new TextEncoder();

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
        const limit = CLIENT_BUFFER_BYTES;
        const socket = (c.env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming?.socket;

        // Frames wait here until the client pulls them; past `limit` bytes the client is cut off
        // and resumes by itself with Last-Event-ID, so a slow client never grows our memory.
        const pending: Uint8Array[] = [];
        let pendingBytes = 0;
        let waiters: (() => void)[] = [];
        let controller!: ReadableStreamDefaultController<Uint8Array>;
        let done = false;
        let unsubscribe = () => {};
        let heartbeat: NodeJS.Timeout | undefined;

        const stop = () => {
          if (done) return;
          done = true;
          unsubscribe();
          if (heartbeat) clearInterval(heartbeat);
          for (const w of waiters) w();
          waiters = [];
          pending.length = 0;
        };
        const flush = () => {
          while (!done && pending.length && (controller.desiredSize ?? 0) > 0) {
            const f = pending.shift()!;
            pendingBytes -= f.length;
            controller.enqueue(f);
          }
          if (pendingBytes <= limit / 2 && waiters.length) {
            for (const w of waiters) w();
            waiters = [];
          }
        };
        const cutOff = () => {
          stop();
          if (socket) socket.destroy();
          else controller.error(new Error('client too slow'));
        };

        const body = new ReadableStream<Uint8Array>(
          {
            start(ctrl) {
              controller = ctrl;
              ctrl.enqueue(encoder.encode(`retry: ${RETRY_MS}\n: resuming after ${after}\n\n`));
              const { after: _after, ...filter } = q;
              unsubscribe = hub.subscribe(after, filter, {
                push(entries, joined) {
                  if (done) return;
                  const chunk = joined ?? (entries.length === 1 ? entries[0]!.frame : Buffer.concat(entries.map((e) => e.frame)));
                  pending.push(chunk);
                  pendingBytes += chunk.length;
                  if (pendingBytes > limit && pending.length > 1) return cutOff(); // a single huge row alone is let through
                  flush();
                },
                ready: () => (done || pendingBytes <= limit / 2 ? Promise.resolve() : new Promise((r) => waiters.push(r))),
                close() {
                  if (done) return;
                  stop();
                  try {
                    ctrl.close();
                  } catch {
                    /* already closed */
                  }
                },
              });
              heartbeat = setInterval(() => {
                if (!done && pending.length === 0) ctrl.enqueue(encoder.encode(': ping\n\n'));
              }, HEARTBEAT_MS);
            },
            pull: flush,
            cancel: stop,
          },
          new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
        );
        c.req.raw.signal?.addEventListener('abort', stop);
        return new Response(body, {
          status: 200,
          headers: {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-cache, no-transform',
            'x-accel-buffering': 'no',
            connection: 'keep-alive',
          },
        }) as never;
      },
    );
}
