// /api/push: the VAPID public key, and each device's push subscription with its preferences (which
// moments notify it). Subscribing again with the same endpoint updates it.
import { createRoute, z } from '@hono/zod-openapi';
import { AppError } from '../errors.ts';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import type { Sql } from '../../core/db/client.ts';
import { ensureVapid } from '../../core/push.ts';
import { IdParam } from '../schemas.ts';
import { json, newRouter } from './openapi.ts';

const Subscribe = z.object({
  subscription: z.object({
    endpoint: z.string().url().max(2000),
    keys: z.object({ p256dh: z.string().min(10).max(200), auth: z.string().min(4).max(100) }),
  }),
  /** Which moments notify this device: notifying statuses (dispatch.statuses.notifies) and loop_stopped. */
  statuses: z.array(z.string().min(1).max(50)).max(50).optional(),
  device: z.string().max(200).optional(),
});

/** The moments a device may subscribe to (dispatch.push_moments()). */
async function pushMoments(sql: Sql): Promise<string[]> {
  const [row] = await sql<{ m: string[] }[]>`select dispatch.push_moments() as m`;
  return row!.m;
}

export function pushRoutes() {
  return newRouter()
    .openapi(
      createRoute({ method: 'get', path: '/push/key', responses: { 200: json(z.object({ public_key: z.string() }), 'the VAPID public key') } }),
      async (c) => c.json({ public_key: (await ensureVapid(c.var.deps.sql)).publicKey }, 200),
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/push/subscriptions',
        request: { body: { content: { 'application/json': { schema: Subscribe } }, required: true } },
        responses: {
          201: json(z.object({ id: Uuid, statuses: z.array(z.string()) }), 'subscribed'),
          200: json(z.object({ id: Uuid, statuses: z.array(z.string()) }), 'updated'),
          400: json(ErrorBody, 'bad input'),
        },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const b = c.req.valid('json');
        const moments = await pushMoments(sql);
        const unknown = (b.statuses ?? []).map((s, i) => ({ s, i })).filter(({ s }) => !moments.includes(s));
        if (unknown.length) {
          const details = unknown.map(({ s, i }) => ({ path: `statuses.${i}`, message: `${s} is not a push moment (${moments.join(', ')})` }));
          throw new AppError(400, 'invalid_input', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
        }
        const statuses = b.statuses ? [...new Set(b.statuses)] : moments;
        const [row] = await sql<{ id: string; statuses: string[]; created: boolean }[]>`
          insert into dispatch.push_subscriptions (endpoint, p256dh, auth, statuses, device)
          values (${b.subscription.endpoint}, ${b.subscription.keys.p256dh}, ${b.subscription.keys.auth}, ${statuses}, ${b.device ?? null})
          on conflict (endpoint) do update set p256dh = excluded.p256dh, auth = excluded.auth, statuses = excluded.statuses,
                                               device = coalesce(excluded.device, dispatch.push_subscriptions.device), failures = 0
          returning id, statuses, (xmax = 0) as created`;
        const out = { id: row!.id, statuses: row!.statuses };
        return row!.created ? c.json(out, 201) : c.json(out, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'delete',
        path: '/push/subscriptions/{id}',
        request: { params: IdParam },
        responses: { 200: json(z.object({ id: Uuid, deleted: z.boolean() }), 'unsubscribed'), 404: json(ErrorBody, 'unknown id') },
      }),
      async (c) => {
        const { id } = c.req.valid('param');
        const rows = await c.var.deps.sql`delete from dispatch.push_subscriptions where id = ${id} returning id`;
        if (!rows.length) throw new AppError(404, 'not_found', `no push subscription ${id}`);
        return c.json({ id, deleted: true }, 200);
      },
    );
}
