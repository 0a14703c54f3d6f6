// Workspaces over HTTP: a task's change (GET /api/tasks/:id/workspace), the list of changes and how
// many wait (GET /api/workspaces), and the decisions — merge and discard answer 202 with the queued
// job (or 409 naming the conflicting files), continue and resolve answer 201 with the new task.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import { TaskSchema } from '../../core/contracts/task.ts';
import { WORKSPACE_STATES } from '../../core/contracts/vocabulary.ts';
import { ContinueTask, DecisionSchema, WorkspaceListSchema, WorkspaceSchema, type Decision } from '../../core/contracts/workspace.ts';
import type { Sql } from '../../core/db/client.ts';
import { exists, getTask } from '../queries/tasks.ts';
import { continueTask, decideChange, listWorkspaces, resolveTask, taskWorkspace } from '../queries/workspaces.ts';
import { IdParam } from '../schemas.ts';

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown id'), 409: json(ErrorBody, 'cannot be decided now, or conflicts') };

/** Why merge_task / discard_task did not queue a job, as an HTTP answer. */
const REFUSALS: Record<string, string> = {
  conflict: 'merge_conflict',
  no_workspace: 'no_workspace',
  busy: 'workspace_busy',
  decided: 'already_decided',
  empty: 'empty_change',
  not_verified: 'not_verified',
  stacked: 'dependency_not_merged',
};

/** POST /api/tasks/:id/merge: `force` merges although the project's check failed or never ran (journalled). */
const MergeBody = z.object({ force: z.boolean().optional() }).strict();

async function decide(sql: Sql, action: 'merge' | 'discard', id: string, force = false): Promise<Decision> {
  if (!(await exists(sql, 'tasks', id))) throw new AppError(404, 'not_found', `no task ${id}`);
  const r = await decideChange(sql, action, id, { force });
  if (r.outcome === 'queued') return { task_id: id, action: r.action!, job: r.job! };
  const code = REFUSALS[String(r.outcome)] ?? 'conflict';
  const details =
    r.outcome === 'conflict' ? { files: r.files, branch: r.branch, base: r.base, resolve: `/api/tasks/${id}/resolve` }
    : r.outcome === 'not_verified' ? { verify: r.verify ?? null, force: 'send {"force": true} to merge anyway' }
    : r.outcome === 'stacked' ? { state: r.state, blocking_task_id: r.blocking_task_id, merge_first: `/api/tasks/${r.blocking_task_id}/merge` }
    : { state: r.state };
  throw new AppError(409, code, String(r.message), details);
}

export function workspaceRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/tasks/{id}/workspace',
        request: { params: IdParam },
        responses: { 200: json(WorkspaceSchema.nullable(), "the task's newest workspace and its change; null when the task has none"), ...errors },
      }),
      async (c) => {
        const { id } = c.req.valid('param');
        const w = await taskWorkspace(c.var.deps.sql, id);
        // A task without a workspace is an answer, not an error (an unknown task is the 404).
        if (!w && !(await exists(c.var.deps.sql, 'tasks', id))) throw new AppError(404, 'not_found', `no task ${id}`);
        return c.json(w ?? null, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/workspaces',
        request: {
          query: z.object({
            project_id: Uuid.optional(),
            /** One task's workspaces, each with its change. */
            task_id: Uuid.optional(),
            state: z.enum(['waiting', 'all', ...WORKSPACE_STATES]).default('all'),
            limit: z.coerce.number().int().min(1).max(500).default(100),
          }),
        },
        responses: { 200: json(WorkspaceListSchema, 'workspaces, newest first (with their change when of one task), and how many changes wait'), ...errors },
      }),
      async (c) => c.json(await listWorkspaces(c.var.deps.sql, c.req.valid('query')), 200),
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/tasks/{id}/merge',
        request: { params: IdParam, body: { content: { 'application/json': { schema: MergeBody } }, required: false } },
        responses: { 202: json(DecisionSchema, 'the merge job is queued'), ...errors },
      }),
      async (c) => {
        // The body is optional: a bare POST merges as before (and is refused while unverified).
        const body = c.req.header('content-type') ? MergeBody.safeParse(await c.req.json().catch(() => null)) : { success: true as const, data: {} };
        if (!body.success) throw new AppError(400, 'invalid_input', `body: ${body.error.issues.map((i) => `${i.path.join('.') || 'force'}: ${i.message}`).join('; ')}`, { field: 'force' });
        return c.json(await decide(c.var.deps.sql, 'merge', c.req.valid('param').id, body.data.force ?? false), 202);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/tasks/{id}/discard',
        request: { params: IdParam },
        responses: { 202: json(DecisionSchema, 'the discard job is queued'), ...errors },
      }),
      async (c) => c.json(await decide(c.var.deps.sql, 'discard', c.req.valid('param').id), 202),
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/tasks/{id}/continue',
        request: { params: IdParam, body: { content: { 'application/json': { schema: ContinueTask } }, required: true } },
        responses: { 201: json(TaskSchema, 'the follow-up task, on a branch from this one'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        const b = c.req.valid('json');
        await decidable(sql, id);
        return c.json((await getTask(sql, await continueTask(sql, id, b.brief, b.approach)))!, 201);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/tasks/{id}/resolve',
        request: { params: IdParam },
        responses: { 201: json(TaskSchema, 'a task on the conflicting branch whose brief carries the conflict'), ...errors },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const { id } = c.req.valid('param');
        const w = await decidable(sql, id);
        if (!w.conflicts.length) throw new AppError(409, 'no_conflict', `task ${id}'s change has no known conflict with ${w.base}`);
        return c.json((await getTask(sql, await resolveTask(sql, id)))!, 201);
      },
    );
}

/** The task's workspace when a decision can be made about it, else the 404/409 saying why not. */
async function decidable(sql: Sql, id: string) {
  if (!(await exists(sql, 'tasks', id))) throw new AppError(404, 'not_found', `no task ${id}`);
  const w = await taskWorkspace(sql, id);
  if (!w) throw new AppError(409, 'no_workspace', `task ${id} has no workspace (its project has no repo)`);
  if (w.state !== 'ready' && w.state !== 'empty') {
    const code = ['active', 'merging', 'discarding'].includes(w.state) ? 'workspace_busy' : 'already_decided';
    throw new AppError(409, code, `task ${id}'s change is ${w.state}`, { state: w.state });
  }
  return w;
}
