// The focus: the Trellis thread and/or task every client shows first (one tap switches it everywhere).
import { z } from '@hono/zod-openapi';
import { Seq, Timestamp, Uuid } from './common.ts';

export const FocusSchema = z
  .object({
    /** The focus.changed event. */
    id: Uuid,
    seq: Seq,
    /** The Trellis thread id exactly as it was set: a string or a number. */
    thread_id: z.union([z.string(), z.number()]).nullable(),
    task_id: Uuid.nullable(),
    project_id: Uuid.nullable(),
    created_at: Timestamp,
  })
  .openapi('Focus');
export type Focus = z.output<typeof FocusSchema>;

/** A Trellis thread id as Trellis gives it: a string or a non-negative integer. */
export const ThreadId = z.union([z.string().min(1).max(200), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)]);

/**
 * POST /api/focus: the new focus as a whole (a field left out is no focus of that kind). A null
 * clears explicitly — `{"task_id": null}` unstars the task — while an empty object is refused as
 * a likely mistake.
 */
export const PostFocus = z
  .object({ thread_id: ThreadId.nullable().optional(), task_id: Uuid.nullable().optional() })
  .refine((f) => f.thread_id !== undefined || f.task_id !== undefined, { message: 'give thread_id, task_id or both (null clears one)' });
