// One row of dispatch.statuses as the client reads it from GET /api/state.
import * as v from 'valibot';

export const StatusRowSchema = v.object({
  name: v.string(),
  terminal: v.boolean(),
  clean: v.boolean(),
  alarming: v.boolean(),
  failure: v.boolean(),
  blocking: v.boolean(),
  needs_user: v.boolean(),
  notifies: v.boolean(),
  description: v.string(),
});
export type StatusRow = v.InferOutput<typeof StatusRowSchema>;
