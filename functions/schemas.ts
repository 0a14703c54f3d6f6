// HTTP contracts: one zod schema per body, query and answer; the OpenAPI document is generated
// from these same schemas.
import { z } from '@hono/zod-openapi';

export const Uuid = z.string().uuid();

export const ErrorBody = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
  })
  .openapi('Error');

export const EventSchema = z
  .object({
    event_id: Uuid,
    seq: z.number().int(),
    project_id: Uuid.nullable(),
    session_id: Uuid.nullable(),
    task_id: Uuid.nullable(),
    parent_id: Uuid.nullable(),
    thread_id: z.number().int().nullable(),
    message_id: Uuid.nullable(),
    event_type: z.string(),
    tier: z.enum(['raw', 'derived']),
    payload: z.unknown(),
    line_no: z.number().int().nullable(),
    created_at: z.string(),
  })
  .openapi('Event');

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
    created_at: z.string(),
    started_at: z.string().nullable(),
    ended_at: z.string().nullable(),
    last_activity_at: z.string().nullable(),
    duration_ms: z.number().nullable(),
    stalled: z.boolean(),
  })
  .openapi('Task');

export const ProjectSchema = z
  .object({ id: Uuid, name: z.string(), config: z.record(z.string(), z.unknown()), created_at: z.string() })
  .openapi('Project');

export const CreateProject = z.object({
  name: z.string().trim().min(1).max(200),
  config: z
    .object({
      cwd: z.string().min(1).optional(),
      allowed_tools: z.array(z.string().min(1)).max(100).optional(),
      permission_mode: z.string().min(1).optional(),
      model: z.string().min(1).optional(),
      extra_args: z.array(z.string()).max(100).optional(),
      extractor_args: z.array(z.string()).max(100).optional(),
      mode: z.enum(['interactive', 'autonomous']).optional(),
      orchestrator_tools: z.array(z.string().min(1)).max(100).optional(),
    })
    .strict()
    .optional(),
});

export const CreateTask = z.object({
  project_id: Uuid,
  brief: z.string().trim().min(1).max(100_000),
  approach: z.string().trim().min(1).max(2000).optional(),
  parent_id: Uuid.optional(),
  plan_ref: z.string().min(1).max(200).optional(),
});

export const PostMessage = z.object({
  project_id: Uuid,
  text: z.string().trim().min(1).max(100_000),
  message_id: Uuid,
});

export const MessageSchema = z
  .object({
    id: Uuid,
    message_id: Uuid,
    project_id: Uuid,
    text: z.string(),
    seq: z.number().int(),
    status: z.enum(['pending', 'delivered']),
  })
  .openapi('Message');

export const PostFocus = z
  .object({ thread_id: z.number().int().nonnegative().optional(), task_id: Uuid.optional() })
  .refine((f) => f.thread_id !== undefined || f.task_id !== undefined, { message: 'give thread_id, task_id or both' });

export const FocusSchema = z
  .object({ id: Uuid, seq: z.number().int(), thread_id: z.number().int().nullable(), task_id: Uuid.nullable() })
  .openapi('Focus');

export const EventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  project: Uuid.optional(),
  task: Uuid.optional(),
  session: Uuid.optional(),
});

export const HandoffsQuery = z.object({
  scope: Uuid,
  limit: z.coerce.number().int().min(1).max(200).default(20),
  order: z.enum(['desc', 'asc']).default('desc'),
});

export const IdParam = z.object({ id: Uuid });
