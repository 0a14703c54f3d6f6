// "Needs you": what waits for an act of a person now, as dispatch.needs_you() lists it. GET
// /api/state (needs_you, finished), GET /api/needs-you and the dismissal share these shapes.
import { z } from '@hono/zod-openapi';
import { Timestamp, Uuid } from './common.ts';

export const NEEDS_YOU_KINDS = ['gate', 'task', 'stalled', 'budget', 'login', 'question', 'loop'] as const;

export const NeedsYouItemSchema = z
  .object({
    /** Names one occurrence (a gate, a task's attempt, a stall since a moment): the dismissal key. */
    key: z.string(),
    kind: z.enum(NEEDS_YOU_KINDS),
    project_id: Uuid.nullable(),
    task_id: Uuid.nullable(),
    session_id: Uuid.nullable(),
    gate_id: Uuid.nullable(),
    /** The stalled session's role. */
    role: z.string().nullable(),
    /** What it is, in a few words. */
    title: z.string(),
    /** Why it waits. */
    detail: z.string(),
    /** Since when it has waited (a stall: the session's last output). */
    since: Timestamp,
  })
  .openapi('NeedsYouItem');
export type NeedsYouItem = z.output<typeof NeedsYouItemSchema>;

/** A project whose loop ended because the work is done. */
export const FinishedLoopSchema = z.object({ project_id: Uuid, event_id: Uuid, since: Timestamp }).openapi('FinishedLoop');
export type FinishedLoop = z.output<typeof FinishedLoopSchema>;

export const NeedsYouListSchema = z.object({ items: z.array(NeedsYouItemSchema), finished: z.array(FinishedLoopSchema) }).openapi('NeedsYouList');

/** POST /api/needs-you/dismiss */
export const DismissNeedsYou = z.object({ key: z.string().min(1).max(300) }).openapi('DismissNeedsYou');
