// A schedule: a five-field cron expression that submits a task (brief, approach, dependencies) at
// each firing, in the server's time zone unless it names one.
import { z } from '@hono/zod-openapi';
import { Timestamp, Uuid } from './common.ts';

export const ScheduleSchema = z
  .object({
    id: Uuid,
    project_id: Uuid,
    cron: z.string(),
    /** An IANA zone; null: the server's. */
    time_zone: z.string().nullable(),
    brief: z.string(),
    approach: z.string().nullable(),
    depends_on: z.array(Uuid),
    /** Null only until a runner has computed it (a schedule made from psql). */
    next_run_at: Timestamp.nullable(),
    paused: z.boolean(),
    paused_at: Timestamp.nullable(),
    pause_reason: z.string().nullable(),
    last_fired_at: Timestamp.nullable(),
    last_task_id: Uuid.nullable(),
    last_task_status: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi('Schedule');
export type Schedule = z.output<typeof ScheduleSchema>;

export const ScheduleListSchema = z.object({ schedules: z.array(ScheduleSchema) }).openapi('ScheduleList');

/** POST /api/schedules */
export const CreateSchedule = z.object({
  project_id: Uuid,
  cron: z.string().trim().min(1).max(200),
  brief: z.string().trim().min(1).max(100_000),
  approach: z.string().trim().min(1).max(2000).optional(),
  depends_on: z.array(Uuid).max(100).optional(),
  time_zone: z.string().trim().min(1).max(64).optional(),
});
