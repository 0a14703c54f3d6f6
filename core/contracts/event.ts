// The journal row as the API and the stream show it (GET /api/events, SSE data), with the
// substrate-neutral summary of a stdout line that clients read instead of the raw payload.
import { z } from '@hono/zod-openapi';
import { Seq, Timestamp, Uuid } from './common.ts';
import { SUMMARY_KINDS, TIERS } from './vocabulary.ts';

export const EventSummarySchema = z
  .object({
    kind: z.enum(SUMMARY_KINDS),
    /** Words to show (clipped to SUMMARY_TEXT_MAX characters). */
    text: z.string().optional(),
    /** The tool's name, for tool_use. */
    tool: z.string().optional(),
    /** The tool call's input in one short line, for tool_use. */
    input_summary: z.string().optional(),
    is_error: z.boolean().optional(),
  })
  .openapi('EventSummary');
export type EventSummary = z.output<typeof EventSummarySchema>;

export const EventSchema = z
  .object({
    event_id: Uuid,
    seq: Seq,
    project_id: Uuid.nullable(),
    session_id: Uuid.nullable(),
    task_id: Uuid.nullable(),
    parent_id: Uuid.nullable(),
    thread_id: z.number().int().nullable(),
    /** The Trellis thread as Trellis names it (a string, or an integer as text); null when none. */
    thread_ref: z.string().nullable().optional(),
    message_id: Uuid.nullable(),
    event_type: z.string(),
    tier: z.enum(TIERS),
    /** The row's payload; for a stdout line, the line itself (forensics). */
    payload: z.unknown(),
    /** For a stdout line, what it was (null for the journal's own events). */
    summary: EventSummarySchema.nullable(),
    line_no: z.number().int().nullable(),
    created_at: Timestamp,
  })
  .openapi('Event');
export type EventRow = z.output<typeof EventSchema>;
