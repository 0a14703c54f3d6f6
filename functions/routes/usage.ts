// GET /api/usage: what runs cost (the CLI's own estimate), summed over a range and grouped; and
// GET /api/tasks/:id/usage: one task's cost by session role and model. Both read dispatch.usage /
// dispatch.task_usage, the functions psql and the operator CLI use. GET/PUT /api/projects/:id/budget:
// a project's budget and what is left of it today. GET /api/quota: the account's rate-limit state.
import { createRoute } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { ErrorBody } from '../../core/contracts/common.ts';
import { BudgetInput, BudgetStateSchema, QuotaStateSchema, TaskUsageSchema, UsageReportSchema, type QuotaState } from '../../core/contracts/usage.ts';
import { budgetState, setBudget, taskUsage, usageReport } from '../queries/usage.ts';
import { IdParam, UsageQuery } from '../schemas.ts';

export function usageRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/usage',
        request: { query: UsageQuery },
        responses: {
          200: json(UsageReportSchema, 'usage in [since, until), grouped'),
          400: json(ErrorBody, 'bad input'),
          404: json(ErrorBody, 'unknown project'),
        },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const q = c.req.valid('query');
        if (q.project_id) {
          const [p] = await sql`select 1 as one from dispatch.projects where id = ${q.project_id}`;
          if (!p) throw new AppError(404, 'not_found', `no project ${q.project_id}`);
        }
        if (q.since && q.until && Date.parse(q.since) > Date.parse(q.until)) {
          throw new AppError(400, 'invalid_input', 'since is after until');
        }
        const report = await usageReport(sql, { project_id: q.project_id ?? null, since: q.since ?? null, until: q.until ?? null, group: q.group });
        return c.json(report, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/tasks/{id}/usage',
        request: { params: IdParam },
        responses: {
          200: json(TaskUsageSchema, 'what the task cost, by session role and model'),
          400: json(ErrorBody, 'bad input'),
          404: json(ErrorBody, 'unknown task'),
        },
      }),
      async (c) => {
        return c.json(await taskUsage(c.var.deps.sql, c.req.valid('param').id), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/quota',
        responses: { 200: json(QuotaStateSchema, 'whether the account is rate limited, until when, and the workers waiting') },
      }),
      async (c) => {
        const [row] = await c.var.deps.sql<{ q: QuotaState }[]>`select dispatch.quota_state() as q`;
        return c.json(row!.q, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/projects/{id}/budget',
        request: { params: IdParam },
        responses: { 200: json(BudgetStateSchema, 'the budget and what is left today'), 404: json(ErrorBody, 'unknown project') },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const id = c.req.valid('param').id;
        const [p] = await sql`select 1 as one from dispatch.projects where id = ${id}`;
        if (!p) throw new AppError(404, 'not_found', `no project ${id}`);
        return c.json(await budgetState(sql, id), 200);
      },
    )
    .openapi(
      createRoute({
        method: 'put',
        path: '/projects/{id}/budget',
        request: { params: IdParam, body: { content: { 'application/json': { schema: BudgetInput } }, required: true } },
        responses: {
          200: json(BudgetStateSchema, 'the new budget; raising it released the held tasks'),
          400: json(ErrorBody, 'bad input'),
          404: json(ErrorBody, 'unknown project'),
        },
      }),
      async (c) => {
        const b = c.req.valid('json');
        const state = await setBudget(c.var.deps.sql, c.req.valid('param').id, { per_task_usd: b.per_task_usd ?? null, per_day_usd: b.per_day_usd ?? null });
        return c.json(state, 200);
      },
    );
}
