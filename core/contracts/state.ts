// GET /api/state: the glance snapshot a client paints first, then follows with the stream from `seq`.
import { z } from '@hono/zod-openapi';
import { Seq, Timestamp } from './common.ts';
import { FocusSchema } from './focus.ts';
import { MessageSchema } from './message.ts';
import { FinishedLoopSchema, NeedsYouItemSchema } from './needs-you.ts';
import { ProjectSchema } from './project.ts';
import { SessionSchema } from './session.ts';
import { StatusRowSchema } from './status.ts';
import { TaskSchema } from './task.ts';
import { WorkingSetSchema } from './working-set.ts';

export const StateSchema = z
  .object({
    /** The journal position the snapshot reflects: stream from here. */
    seq: Seq,
    generated_at: Timestamp,
    projects: z.array(ProjectSchema),
    /** Open tasks and the most recent ones, newest first. */
    tasks: z.array(TaskSchema),
    /** Open sessions and the most recent ones, newest first. */
    sessions: z.array(SessionSchema),
    pending_messages: z.array(MessageSchema),
    focus: FocusSchema.nullable(),
    /** The latest working set of each project's orchestrator, by project id. */
    working_sets: z.record(z.string(), WorkingSetSchema),
    /** dispatch.statuses: what each status means, so clients carry no list of their own. */
    statuses: z.array(StatusRowSchema),
    /** dispatch.needs_you(): what waits for an act of a person now (the badge counts these). */
    needs_you: z.array(NeedsYouItemSchema).optional(),
    /** Projects whose loop ended because the work is done. */
    finished: z.array(FinishedLoopSchema).optional(),
  })
  .openapi('State');
export type State = z.output<typeof StateSchema>;
