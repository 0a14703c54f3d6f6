// GET /api/state as the client reads it.
import * as v from 'valibot';
import { Seq, Timestamp } from './common.valibot.ts';
import { FocusSchema } from './focus.valibot.ts';
import { MessageSchema } from './message.valibot.ts';
import { FinishedLoopSchema, NeedsYouItemSchema } from './needs-you.valibot.ts';
import { ProjectSchema } from './project.valibot.ts';
import { SessionSchema } from './session.valibot.ts';
import { StatusRowSchema } from './status.valibot.ts';
import { TaskSchema } from './task.valibot.ts';
import { WorkingSetSchema } from './working-set.valibot.ts';

export const StateSchema = v.object({
  seq: Seq,
  generated_at: Timestamp,
  projects: v.array(ProjectSchema),
  tasks: v.array(TaskSchema),
  sessions: v.array(SessionSchema),
  pending_messages: v.array(MessageSchema),
  focus: v.nullable(FocusSchema),
  working_sets: v.record(v.string(), WorkingSetSchema),
  statuses: v.array(StatusRowSchema),
  needs_you: v.optional(v.array(NeedsYouItemSchema)),
  finished: v.optional(v.array(FinishedLoopSchema)),
});
export type State = v.InferOutput<typeof StateSchema>;
