// The focus: the Trellis thread and/or task every client shows first (one tap switches it everywhere).
import { z } from '@hono/zod-openapi';
import { Seq, Timestamp, Uuid } from './common.ts';

export const FocusSchema = z
  .object({
    /** The focus.changed event. */
    id: Uuid,
    seq: Seq,
    thread_id: z.number().int().nullable(),
    task_id: Uuid.nullable(),
    project_id: Uuid.nullable(),
    created_at: Timestamp,
  })
  .openapi('Focus');
export type Focus = z.output<typeof FocusSchema>;

/** POST /api/focus */
export const PostFocus = z
  .object({ thread_id: z.number().int().nonnegative().optional(), task_id: Uuid.optional() })
  .refine((f) => f.thread_id !== undefined || f.task_id !== undefined, { message: 'give thread_id, task_id or both' });
