// /api/tasks: submit (journal + enqueue in one transaction), read, list and cancel tasks.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { exists, getTask, listTasks } from '../queries/tasks.ts';
import { CreateTask, ErrorBody, IdParam, TaskSchema, Uuid } from '../schemas.ts';

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown id') };
type Task = z.infer<typeof TaskSchema>;

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
        const [row] = await sql<{ id: string }[]>`
          select dispatch.submit_task(${b.project_id}, ${b.brief}, ${b.approach ?? null}, ${b.parent_id ?? null}, ${b.plan_ref ?? null}) as id`;
        return c.json((await getTask(sql, row!.id)) as unknown as Task, 201);
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
        return c.json({ tasks: (await listTasks(c.var.deps.sql, q)) as unknown as Task[] }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/tasks/{id}',
        request: { params: IdParam },
        responses: { 200: json(TaskSchema.extend({ sessions: z.array(z.unknown()) }), 'the task and its sessions'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        const task = await getTask(sql, id);
        if (!task) throw new AppError(404, 'not_found', `no task ${id}`);
        const sessions = await sql`
          select id, role, status, status_reason, attempt, pid, exit_code, signal, stalled, parent_session_id,
                 started_at, ended_at, last_output_at, lines_written
            from dispatch.sessions where task_id = ${id} order by created_at`;
        return c.json({ ...(task as unknown as Task), sessions: [...sessions] }, 200);
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
        const [row] = await sql<{ s: string }[]>`select dispatch.cancel_task(${id}) as s`;
        return c.json({ id, status: row!.s }, 200);
      },
    );
}
