// /api/tasks: submit (journal + enqueue in one transaction), read, list, cancel and retry tasks.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import { CreateTask, TaskDetailSchema, TaskSchema } from '../../core/contracts/task.ts';
import { taskSessions } from '../queries/sessions.ts';
import { cancelTask, exists, getTask, listTasks, submitTask } from '../queries/tasks.ts';
import { IdParam } from '../schemas.ts';

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown id') };

export function taskRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/tasks',
        request: { body: { content: { 'application/json': { schema: CreateTask } }, required: true } },
        responses: { 201: json(TaskSchema, 'the submitted task'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const b = c.req.valid('json');
        if (!(await exists(sql, 'projects', b.project_id))) throw new AppError(404, 'not_found', `no project ${b.project_id}`);
        if (b.parent_id && !(await exists(sql, 'tasks', b.parent_id))) throw new AppError(404, 'not_found', `no parent task ${b.parent_id}`);
        const id = await submitTask(sql, b);
        const task = await getTask(sql, id);
        return c.json(task!, 201);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/tasks',
        request: { query: z.object({ project: Uuid.optional(), limit: z.coerce.number().int().min(1).max(500).default(100) }) },
        responses: { 200: json(z.object({ tasks: z.array(TaskSchema) }), 'recent tasks, newest first'), ...errors },
      }),
      async (c) => {
        const q = c.req.valid('query');
        return c.json({ tasks: await listTasks(c.var.deps.sql, q) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/tasks/{id}',
        request: { params: IdParam },
        responses: { 200: json(TaskDetailSchema, 'the task and its sessions'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        const task = await getTask(sql, id);
        if (!task) throw new AppError(404, 'not_found', `no task ${id}`);
        return c.json({ ...task, sessions: await taskSessions(sql, id) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/tasks/{id}/cancel',
        request: { params: IdParam },
        responses: { 200: json(z.object({ id: Uuid, status: z.string() }), 'cancelled, or cancelling while its runner stops it'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        if (!(await exists(sql, 'tasks', id))) throw new AppError(404, 'not_found', `no task ${id}`);
        return c.json({ id, status: await cancelTask(sql, id) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/tasks/{id}/retry',
        request: { params: IdParam },
        responses: {
          200: json(TaskSchema, 'the task, queued again as a new attempt'),
          409: json(ErrorBody, 'the task is not over, ended clean, or is gated (decide its gate)'),
          ...errors,
        },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        if (!(await exists(sql, 'tasks', id))) throw new AppError(404, 'not_found', `no task ${id}`);
        await sql`select dispatch.retry_task(${id})`;
        return c.json((await getTask(sql, id))!, 200);
      },
    );
}
