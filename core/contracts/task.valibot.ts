// A task as the client reads it.
import * as v from 'valibot';
import { Timestamp, Uuid } from './common.valibot.ts';
import { SessionSchema } from './session.valibot.ts';

export const TaskSchema = v.object({
  id: Uuid,
  project_id: Uuid,
  parent_id: v.nullable(Uuid),
  status: v.string(),
  status_reason: v.nullable(v.string()),
  brief: v.string(),
  approach: v.nullable(v.string()),
  plan_ref: v.nullable(v.string()),
  attempt: v.pipe(v.number(), v.integer()),
  created_at: Timestamp,
  started_at: v.nullable(Timestamp),
  ended_at: v.nullable(Timestamp),
  last_activity_at: v.nullable(Timestamp),
  duration_ms: v.nullable(v.number()),
  stalled: v.boolean(),
  /** Absent from a server older than dependencies. */
  depends_on: v.optional(v.array(Uuid)),
  dependents: v.optional(v.array(Uuid)),
});
export type Task = v.InferOutput<typeof TaskSchema>;

export const TaskDetailSchema = v.object({ ...TaskSchema.entries, sessions: v.array(SessionSchema) });
export type TaskDetail = v.InferOutput<typeof TaskDetailSchema>;
