// A schedule as the client reads it.
import * as v from 'valibot';
import { Timestamp, Uuid } from './common.valibot.ts';

export const ScheduleSchema = v.object({
  id: Uuid,
  project_id: Uuid,
  cron: v.string(),
  time_zone: v.nullable(v.string()),
  brief: v.string(),
  approach: v.nullable(v.string()),
  depends_on: v.array(Uuid),
  next_run_at: v.nullable(Timestamp),
  paused: v.boolean(),
  paused_at: v.nullable(Timestamp),
  pause_reason: v.nullable(v.string()),
  last_fired_at: v.nullable(Timestamp),
  last_task_id: v.nullable(Uuid),
  last_task_status: v.nullable(v.string()),
  created_at: Timestamp,
});
export type Schedule = v.InferOutput<typeof ScheduleSchema>;

export const ScheduleListSchema = v.object({ schedules: v.array(ScheduleSchema) });
