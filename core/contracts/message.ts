// A user message to a project's orchestrator: journalled at once, pending until a turn delivers it.
import { z } from '@hono/zod-openapi';
import { Seq, Timestamp, Uuid } from './common.ts';
import { MESSAGE_STATES } from './vocabulary.ts';

export const MessageSchema = z
  .object({
    /** The user_message event. */
    id: Uuid,
    /** The client's reconcile key. */
    message_id: Uuid,
    project_id: Uuid,
    text: z.string(),
    seq: Seq,
    status: z.enum(MESSAGE_STATES),
    created_at: Timestamp,
  })
  .openapi('Message');
export type Message = z.output<typeof MessageSchema>;

/** POST /api/messages */
export const PostMessage = z.object({
  project_id: Uuid,
  text: z.string().trim().min(1).max(100_000),
  message_id: Uuid,
});
