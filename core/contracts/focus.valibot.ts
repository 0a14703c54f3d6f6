// The focus as the client reads it.
import * as v from 'valibot';
import { Seq, Timestamp, Uuid } from './common.valibot.ts';

export const FocusSchema = v.object({
  id: Uuid,
  seq: Seq,
  thread_id: v.nullable(v.union([v.string(), v.number()])),
  task_id: v.nullable(Uuid),
  project_id: v.nullable(Uuid),
  created_at: Timestamp,
});
export type Focus = v.InferOutput<typeof FocusSchema>;
