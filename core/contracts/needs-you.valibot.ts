// "Needs you" as the client reads it (GET /api/needs-you, GET /api/state).
import * as v from 'valibot';
import { Timestamp, Uuid } from './common.valibot.ts';

export const NEEDS_YOU_KINDS = ['gate', 'task', 'stalled', 'budget', 'login', 'question', 'loop'] as const;

export const NeedsYouItemSchema = v.object({
  key: v.string(),
  kind: v.picklist(NEEDS_YOU_KINDS),
  project_id: v.nullable(Uuid),
  task_id: v.nullable(Uuid),
  session_id: v.nullable(Uuid),
  gate_id: v.nullable(Uuid),
  role: v.nullable(v.string()),
  title: v.string(),
  detail: v.string(),
  since: Timestamp,
});
export type NeedsYouItem = v.InferOutput<typeof NeedsYouItemSchema>;

export const FinishedLoopSchema = v.object({ project_id: Uuid, event_id: Uuid, since: Timestamp });
export type FinishedLoop = v.InferOutput<typeof FinishedLoopSchema>;

export const NeedsYouListSchema = v.object({ items: v.array(NeedsYouItemSchema), finished: v.array(FinishedLoopSchema) });
