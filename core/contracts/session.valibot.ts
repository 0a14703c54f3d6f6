// A session as the client reads it.
import * as v from 'valibot';
import { Timestamp, Uuid } from './common.valibot.ts';

const int = v.pipe(v.number(), v.integer());

export const SessionSchema = v.object({
  id: Uuid,
  project_id: Uuid,
  task_id: v.nullable(Uuid),
  parent_session_id: v.nullable(Uuid),
  role: v.string(),
  status: v.string(),
  status_reason: v.nullable(v.string()),
  attempt: v.nullable(int),
  pid: v.nullable(int),
  host: v.nullable(v.string()),
  stalled: v.boolean(),
  created_at: Timestamp,
  started_at: v.nullable(Timestamp),
  ended_at: v.nullable(Timestamp),
  last_output_at: v.nullable(Timestamp),
  lines_written: int,
  exit_code: v.nullable(int),
  signal: v.nullable(v.string()),
  duration_ms: v.nullable(v.number()),
});
export type Session = v.InferOutput<typeof SessionSchema>;
