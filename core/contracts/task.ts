// A task: a unit of work with a brief; its sessions are its attempts' process runs.
import { z } from '@hono/zod-openapi';
import { Timestamp, Uuid } from './common.ts';
import { SessionSchema } from './session.ts';

export const TaskSchema = z
  .object({
    id: Uuid,
    project_id: Uuid,
    parent_id: Uuid.nullable(),
    status: z.string(),
    status_reason: z.string().nullable(),
    brief: z.string(),
    approach: z.string().nullable(),
    plan_ref: z.string().nullable(),
    attempt: z.number().int(),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    ended_at: Timestamp.nullable(),
    last_activity_at: Timestamp.nullable(),
    /** Elapsed so far while it runs. */
    duration_ms: z.number().nullable(),
    stalled: z.boolean(),
    /** The tasks this one waits for (it starts when every one of them ended success). */
    depends_on: z.array(Uuid).optional(),
    /** The tasks that wait for this one. (Both always sent; optional for readers of older servers.) */
    dependents: z.array(Uuid).optional(),
  })
  .openapi('Task');
export type Task = z.output<typeof TaskSchema>;

/** GET /api/tasks/:id */
export const TaskDetailSchema = TaskSchema.extend({ sessions: z.array(SessionSchema) }).openapi('TaskDetail');
export type TaskDetail = z.output<typeof TaskDetailSchema>;

/** POST /api/tasks */
export const CreateTask = z.object({
  project_id: Uuid,
  brief: z.string().trim().min(1).max(100_000),
  approach: z.string().trim().min(1).max(2000).optional(),
  parent_id: Uuid.optional(),
  plan_ref: z.string().min(1).max(200).optional(),
  /** Earlier tasks of the same project this one waits for; refused with 400 invalid_dependency otherwise. */
  depends_on: z.array(Uuid).max(100).optional(),
});
