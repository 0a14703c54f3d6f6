// The orchestrator's working set after a turn (FR-006): journalled as orchestrator.working_set and
// served per project in GET /api/state. Every field is optional: rows written by older versions
// lack some, and new fields may be added.
import { z } from '@hono/zod-openapi';
import { Uuid } from './common.ts';

const Stop = z.object({ where: z.string(), why: z.string() });

export const WorkingSetSchema = z
  .object({
    session_id: z.string().optional(),
    turn_status: z.string().optional(),
    turn_reason: z.string().optional(),
    mode: z.string().optional(),
    in_flight: z
      .array(z.object({ task_id: z.string(), status: z.string(), brief: z.string() }).passthrough())
      .optional(),
    spawned: z.array(z.string()).optional(),
    refused: z.array(z.string()).optional(),
    handoffs_given: z.array(z.string()).optional(),
    messages_delivered: z.array(z.string()).optional(),
    /** The live Trellis thread's id (a string or a number) when the turn started. */
    live_thread: z.union([z.string(), z.number()]).nullable().optional(),
    last_message: z.string().nullable().optional(),
    needs_user: z.array(z.object({ id: Uuid, status: z.string(), status_reason: z.string().nullable() })).optional(),
    /** Where and why the loop stopped, when it did; null while work runs. */
    stop: Stop.nullable().optional(),
    /** The journal position of the working_set event (GET /api/state only). */
    seq: z.number().int().optional(),
  })
  .passthrough()
  .openapi('WorkingSet');
export type WorkingSet = z.output<typeof WorkingSetSchema>;
