// /api/schedules: make (POST, 201), list (GET), delete (DELETE), pause and resume a schedule. A cron
// expression that does not parse is a 400 invalid_cron naming the field and its position.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import { CreateSchedule, ScheduleListSchema, ScheduleSchema } from '../../core/contracts/schedule.ts';
import { CronError } from '../../core/cron.ts';
import { exists } from '../queries/tasks.ts';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, pauseSchedule, resumeSchedule } from '../queries/schedules.ts';
import { IdParam } from '../schemas.ts';
import type { Sql } from '../../core/db/client.ts';

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown id') };

/** A CronError as the answer a person reads: which field, where. */
export function cronRefusal(err: unknown): never {
  if (!(err instanceof CronError)) throw err;
  if (err.field === 'time_zone') throw new AppError(400, 'invalid_input', err.message, { field: 'time_zone' });
  throw new AppError(400, 'invalid_cron', err.message, { field: 'cron', cron_field: err.field, position: err.position, column: err.column });
}

async function known(sql: Sql, id: string) {
  if (!(await getSchedule(sql, id))) throw new AppError(404, 'not_found', `no schedule ${id}`);
}

export function scheduleRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/schedules',
        request: { body: { content: { 'application/json': { schema: CreateSchedule } }, required: true } },
        responses: { 201: json(ScheduleSchema, 'the schedule, with its next run'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const b = c.req.valid('json');
        if (!(await exists(sql, 'projects', b.project_id))) throw new AppError(404, 'not_found', `no project ${b.project_id}`);
        const s = await createSchedule(sql, b).catch(cronRefusal);
        return c.json(s, 201);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/schedules',
        request: { query: z.object({ project_id: Uuid.optional() }) },
        responses: { 200: json(ScheduleListSchema, 'the schedules: running ones by next run, then the paused'), ...errors },
      }),
      async (c) => c.json({ schedules: await listSchedules(c.var.deps.sql, c.req.valid('query').project_id) }, 200),
    )
    .openapi(
      createRoute({
        method: 'delete',
        path: '/schedules/{id}',
        request: { params: IdParam },
        responses: { 200: json(z.object({ id: Uuid, deleted: z.literal(true) }), 'deleted; the tasks it submitted stay'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        await known(sql, id);
        await deleteSchedule(sql, id);
        return c.json({ id, deleted: true as const }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/schedules/{id}/pause',
        request: { params: IdParam },
        responses: { 200: json(ScheduleSchema, 'paused: it fires no more until resumed'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        await known(sql, id);
        return c.json(await pauseSchedule(sql, id), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/schedules/{id}/resume',
        request: { params: IdParam },
        responses: { 200: json(ScheduleSchema, 'resumed from now (runs missed while paused do not fire)'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        await known(sql, id);
        return c.json(await resumeSchedule(sql, id).catch(cronRefusal), 200);
      },
    );
}
