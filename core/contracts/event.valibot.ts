// The journal row as the client reads it from GET /api/events and the stream.
import * as v from 'valibot';
import { Seq, Timestamp, Uuid } from './common.valibot.ts';
import { SUMMARY_KINDS, TIERS } from './vocabulary.ts';

export const EventSummarySchema = v.object({
  kind: v.picklist(SUMMARY_KINDS),
  text: v.optional(v.string()),
  tool: v.optional(v.string()),
  input_summary: v.optional(v.string()),
  is_error: v.optional(v.boolean()),
});
export type EventSummary = v.InferOutput<typeof EventSummarySchema>;

export const EventSchema = v.object({
  event_id: Uuid,
  seq: Seq,
  project_id: v.nullable(Uuid),
  session_id: v.nullable(Uuid),
  task_id: v.nullable(Uuid),
  parent_id: v.nullable(Uuid),
  thread_id: v.nullable(v.pipe(v.number(), v.integer())),
  thread_ref: v.optional(v.nullable(v.string())),
  message_id: v.nullable(Uuid),
  event_type: v.string(),
  tier: v.picklist(TIERS),
  payload: v.unknown(),
  summary: v.nullable(EventSummarySchema),
  line_no: v.nullable(v.pipe(v.number(), v.integer())),
  created_at: Timestamp,
});
export type EventRow = v.InferOutput<typeof EventSchema>;
