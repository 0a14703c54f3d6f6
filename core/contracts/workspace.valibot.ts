// A task's workspace and its change, as the client reads them (GET /api/tasks/:id/workspace,
// GET /api/workspaces, the workspace.changed payload, the 202 of a decision).
import * as v from 'valibot';
import { Timestamp, Uuid } from './common.valibot.ts';
import { WORKSPACE_STATES } from './vocabulary.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

export const FileChangeSchema = v.object({ path: v.string(), insertions: count, deletions: count, binary: v.optional(v.literal(true)) });

export const ChangeSchema = v.object({
  branch: v.string(),
  base_commit: v.string(),
  head_commit: v.string(),
  files: v.array(FileChangeSchema),
  patch: v.string(),
  truncated: v.boolean(),
  patch_bytes: count,
});
export type Change = v.InferOutput<typeof ChangeSchema>;

export const WorkspaceSchema = v.object({
  id: Uuid,
  task_id: Uuid,
  project_id: Uuid,
  attempt: v.pipe(v.number(), v.integer()),
  branch: v.string(),
  base: v.string(),
  from_ref: v.string(),
  path: v.string(),
  base_commit: v.string(),
  head_commit: v.nullable(v.string()),
  state: v.picklist(WORKSPACE_STATES),
  conflicts: v.array(v.string()),
  created_at: Timestamp,
  updated_at: Timestamp,
  removed_at: v.nullable(Timestamp),
  change: v.nullable(ChangeSchema),
});
export type Workspace = v.InferOutput<typeof WorkspaceSchema>;

export const WorkspaceListSchema = v.object({ workspaces: v.array(WorkspaceSchema), waiting: count });
export type WorkspaceList = v.InferOutput<typeof WorkspaceListSchema>;

export const DecisionSchema = v.object({
  task_id: Uuid,
  action: v.picklist(['merge', 'discard']),
  job: v.object({ id: v.string(), task_identifier: v.string(), key: v.nullable(v.string()) }),
});
export type Decision = v.InferOutput<typeof DecisionSchema>;
