// A task's workspace (its git worktree and branch) and its change, as the API serves them; and the
// answer to a decision (merge, discard) that was queued as a job.
import { z } from '@hono/zod-openapi';
import { Timestamp, Uuid } from './common.ts';
import { WORKSPACE_STATES } from './vocabulary.ts';

export const FileChangeSchema = z
  .object({ path: z.string(), insertions: z.number().int().nonnegative(), deletions: z.number().int().nonnegative(), binary: z.literal(true).optional() })
  .openapi('FileChange');

/** The payload of workspace.changed: the change a worker left, with its patch bounded. */
export const ChangeSchema = z
  .object({
    branch: z.string(),
    base_commit: z.string(),
    head_commit: z.string(),
    files: z.array(FileChangeSchema),
    patch: z.string(),
    /** The patch was cut (it ends with a marker line); patch_bytes is the full size. */
    truncated: z.boolean(),
    patch_bytes: z.number().int().nonnegative(),
  })
  .openapi('Change');
export type Change = z.output<typeof ChangeSchema>;

export const WorkspaceSchema = z
  .object({
    id: Uuid,
    task_id: Uuid,
    project_id: Uuid,
    attempt: z.number().int(),
    branch: z.string(),
    base: z.string(),
    from_ref: z.string(),
    path: z.string(),
    base_commit: z.string(),
    head_commit: z.string().nullable(),
    state: z.enum(WORKSPACE_STATES),
    /** Files that conflict with base at the last check (Merge is refused, Resolve offered). */
    conflicts: z.array(z.string()),
    created_at: Timestamp,
    updated_at: Timestamp,
    removed_at: Timestamp.nullable(),
    /** The journalled change (null until the worker ended; omitted in lists). */
    change: ChangeSchema.nullable(),
  })
  .openapi('Workspace');
export type Workspace = z.output<typeof WorkspaceSchema>;

export const WorkspaceListSchema = z
  .object({ workspaces: z.array(WorkspaceSchema), waiting: z.number().int().nonnegative() })
  .openapi('WorkspaceList');
export type WorkspaceList = z.output<typeof WorkspaceListSchema>;

/** 202: the decision is a queued job. */
export const DecisionSchema = z
  .object({
    task_id: Uuid,
    action: z.enum(['merge', 'discard']),
    job: z.object({ id: z.string(), task_identifier: z.string(), key: z.string().nullable() }),
  })
  .openapi('Decision');
export type Decision = z.output<typeof DecisionSchema>;

/** POST /api/tasks/:id/continue */
export const ContinueTask = z.object({ brief: z.string().trim().min(1).max(100_000), approach: z.string().max(10_000).optional() });
