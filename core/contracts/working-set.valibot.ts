// The orchestrator's working set as the client reads it.
import * as v from 'valibot';
import { Uuid } from './common.valibot.ts';

const Stop = v.object({ where: v.string(), why: v.string() });

export const WorkingSetSchema = v.looseObject({
  session_id: v.optional(v.string()),
  turn_status: v.optional(v.string()),
  turn_reason: v.optional(v.string()),
  mode: v.optional(v.string()),
  in_flight: v.optional(v.array(v.looseObject({ task_id: v.string(), status: v.string(), brief: v.string() }))),
  spawned: v.optional(v.array(v.string())),
  refused: v.optional(v.array(v.string())),
  handoffs_given: v.optional(v.array(v.string())),
  messages_delivered: v.optional(v.array(v.string())),
  live_thread: v.optional(v.nullable(v.union([v.string(), v.number()]))),
  last_message: v.optional(v.nullable(v.string())),
  needs_user: v.optional(v.array(v.object({ id: Uuid, status: v.string(), status_reason: v.nullable(v.string()) }))),
  stop: v.optional(v.nullable(Stop)),
  seq: v.optional(v.pipe(v.number(), v.integer())),
});
export type WorkingSet = v.InferOutput<typeof WorkingSetSchema>;
