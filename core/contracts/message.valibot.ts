// A user message as the client reads it.
import * as v from 'valibot';
import { Seq, Timestamp, Uuid } from './common.valibot.ts';
import { MESSAGE_STATES } from './vocabulary.ts';

export const MessageSchema = v.object({
  id: Uuid,
  message_id: Uuid,
  project_id: Uuid,
  text: v.string(),
  seq: Seq,
  status: v.picklist(MESSAGE_STATES),
  created_at: Timestamp,
});
export type Message = v.InferOutput<typeof MessageSchema>;
