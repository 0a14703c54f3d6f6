// /api/events (a journal page in seq order) and /api/stream (SSE: id = seq; Last-Event-ID or
// ?after= resumes with no gap and no duplicate; heartbeat comments; a slow client is cut off and
// resumes by itself instead of growing the server's memory).
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { pageEvents, type EventRow } from '../queries/events.ts';
import { ErrorBody, EventSchema, EventsQuery, Uuid } from '../schemas.ts';


export const HEARTBEAT_MS = 15_000;
export const RETRY_MS = 2000;
/** Bytes queued for one client before it is disconnected (it resumes with Last-Event-ID). */
export const CLIENT_BUFFER_BYTES = 4 * 1024 * 1024;

const StreamQuery = z.object({
  after: z.coerce.number().int().min(0).optional(),
  project: Uuid.optional(),
  task: Uuid.optional(),
  session: Uuid.optional(),
});

const encoder = new TextEncoder();

export function frame(row: EventRow): Uint8Array {
  return encoder.encode(`id: ${row.seq}\ndata: ${JSON.stringify(row)}\n\n`);
}

export function eventRoutes(opts: { heartbeatMs?: number; bufferBytes?: number } = {}) {
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/events',
        request: { query: EventsQuery },
        responses: {
          200: json(z.object({ events: z.array(EventSchema), next_after: z.number().int() }), 'journal rows after `after`, in seq order'),
          400: json(ErrorBody, 'bad input'),
        },
      }),
      async (c) => {
        const q = c.req.valid('query');
        const events = await pageEvents(c.var.deps.sql, q);
        return c.json({ events: events as unknown as z.infer<typeof EventSchema>[], next_after: events.at(-1)?.seq ?? q.after }, 200);
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
        const limit = opts.bufferBytes ?? CLIENT_BUFFER_BYTES;
        let unsubscribe = () => {};
        let heartbeat: NodeJS.Timeout | undefined;
        const stop = () => {
          unsubscribe();
          if (heartbeat) clearInterval(heartbeat);
        };
        const body = new ReadableStream<Uint8Array>(
          {
            start(controller) {
              const send = (chunk: Uint8Array) => {
                if ((controller.desiredSize ?? 0) < -limit) {
                  stop();
                  controller.error(new Error('client too slow'));
                  return false;
                }
                controller.enqueue(chunk);
                return true;
              };
              send(encoder.encode(`retry: ${RETRY_MS}\n: resuming after ${after}\n\n`));
              unsubscribe = hub.subscribe(after, { project: q.project, task: q.task, session: q.session }, {
                push(rows) {
                  for (const r of rows) if (!send(frame(r))) return;
                },
                close() {
                  stop();
                  try {
                    controller.close();
                  } catch {
                    /* already closed */
                  }
                },
              });
              heartbeat = setInterval(() => send(encoder.encode(': ping\n\n')), opts.heartbeatMs ?? HEARTBEAT_MS);
            },
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
