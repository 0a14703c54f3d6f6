// A session: one process run (worker, extractor, orchestrator turn, …) with its observed status.
import { z } from '@hono/zod-openapi';
import { Timestamp, Uuid } from './common.ts';

const int = z.number().int();

export const SessionSchema = z
  .object({
    id: Uuid,
    project_id: Uuid,
    task_id: Uuid.nullable(),
    parent_session_id: Uuid.nullable(),
    role: z.string(),
    status: z.string(),
    status_reason: z.string().nullable(),
    attempt: int.nullable(),
    pid: int.nullable(),
    host: z.string().nullable(),
    stalled: z.boolean(),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    ended_at: Timestamp.nullable(),
    last_output_at: Timestamp.nullable(),
    lines_written: int,
    exit_code: int.nullable(),
    signal: z.string().nullable(),
    /** Elapsed so far while it runs. */
    duration_ms: z.number().nullable(),
  })
  .openapi('Session');
export type Session = z.output<typeof SessionSchema>;
