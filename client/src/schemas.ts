// What the client accepts from the API and the stream, checked with valibot at the boundary.
import * as v from 'valibot';

const id = v.string();
const nullableId = v.nullable(v.string());
const time = v.nullable(v.string());

export const EventRowSchema = v.object({
  event_id: id,
  seq: v.number(),
  project_id: nullableId,
  session_id: nullableId,
  task_id: nullableId,
  parent_id: nullableId,
  thread_id: v.nullable(v.number()),
  message_id: nullableId,
  event_type: v.string(),
  tier: v.picklist(['raw', 'derived']),
  payload: v.unknown(),
  line_no: v.nullable(v.number()),
  created_at: v.string(),
});
export type EventRow = v.InferOutput<typeof EventRowSchema>;

export const TaskSchema = v.object({
  id,
  project_id: id,
  parent_id: nullableId,
  status: v.string(),
  status_reason: v.nullable(v.string()),
  brief: v.string(),
  approach: v.nullable(v.string()),
  attempt: v.number(),
  created_at: v.string(),
  started_at: time,
  ended_at: time,
  last_activity_at: time,
  duration_ms: v.nullable(v.number()),
  stalled: v.boolean(),
});
export type Task = v.InferOutput<typeof TaskSchema>;

export const SessionSchema = v.object({
  id,
  project_id: id,
  task_id: nullableId,
  role: v.string(),
  status: v.string(),
  status_reason: v.nullable(v.string()),
  attempt: v.nullable(v.number()),
  stalled: v.boolean(),
  created_at: v.string(),
  started_at: time,
  ended_at: time,
});
export type Session = v.InferOutput<typeof SessionSchema>;

export const ProjectSchema = v.object({ id, name: v.string(), created_at: v.string() });
export type Project = v.InferOutput<typeof ProjectSchema>;

export const PendingMessageSchema = v.object({ message_id: id, project_id: id, id, seq: v.number(), text: v.string(), created_at: v.string() });

export const FocusSchema = v.nullable(v.object({ id, seq: v.number(), thread_id: v.nullable(v.number()), task_id: nullableId }));

export const WorkingSetSchema = v.looseObject({
  session_id: v.optional(v.string()),
  turn_status: v.optional(v.string()),
  mode: v.optional(v.string()),
  in_flight: v.optional(v.array(v.looseObject({ task_id: v.string(), status: v.string(), brief: v.string() }))),
  handoffs_given: v.optional(v.array(v.string())),
  last_message: v.optional(v.nullable(v.string())),
  live_thread: v.optional(v.nullable(v.number())),
  stop: v.optional(v.nullable(v.object({ where: v.string(), why: v.string() }))),
});
export type WorkingSet = v.InferOutput<typeof WorkingSetSchema>;

export const StateSchema = v.object({
  seq: v.number(),
  projects: v.array(ProjectSchema),
  tasks: v.array(TaskSchema),
  sessions: v.array(SessionSchema),
  pending_messages: v.array(PendingMessageSchema),
  focus: FocusSchema,
  working_sets: v.record(v.string(), WorkingSetSchema),
});
export type State = v.InferOutput<typeof StateSchema>;

export const TrellisSchema = v.union([
  v.object({
    available: v.literal(true),
    live_thread: v.nullable(v.looseObject({ id: v.union([v.string(), v.number()]), title: v.optional(v.string()) })),
    threads: v.array(v.looseObject({ id: v.union([v.string(), v.number()]), title: v.optional(v.string()) })),
    recent_context: v.array(v.unknown()),
  }),
  v.object({ available: v.literal(false), reason: v.string() }),
]);
export type Trellis = v.InferOutput<typeof TrellisSchema>;

export const ErrorSchema = v.object({ error: v.object({ code: v.string(), message: v.string() }) });
