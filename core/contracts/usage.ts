// What runs cost, as their substrate reported it in each final result (the CLI's own estimate, not
// a bill): one run's usage, and the report of GET /api/usage (rows grouped by a key, and a total).
import { z } from '@hono/zod-openapi';

const tokens = z.number().int().nonnegative();

export const UsageSchema = z
  .object({
    cost_usd: z.number().nonnegative().nullable(),
    input_tokens: tokens,
    output_tokens: tokens,
    cache_read_tokens: tokens,
    cache_creation_tokens: tokens,
    /** The models that answered. */
    models: z.array(z.string()),
  })
  .openapi('Usage');
export type Usage = z.output<typeof UsageSchema>;

/** How GET /api/usage groups its rows. */
export const UsageGroup = z.enum(['task', 'day', 'model', 'project', 'role']);
export type UsageGroup = z.output<typeof UsageGroup>;

/** Sums over a set of sessions. `sessions` counts each session once (under its main model when grouped by model). */
export const UsageTotalsSchema = z
  .object({
    cost_usd: z.number().nonnegative(),
    input_tokens: tokens,
    output_tokens: tokens,
    cache_read_tokens: tokens,
    cache_creation_tokens: tokens,
    sessions: tokens,
  })
  .openapi('UsageTotals');
export type UsageTotals = z.output<typeof UsageTotalsSchema>;

export const UsageRowSchema = UsageTotalsSchema.extend({
  /** The task id, the UTC day (YYYY-MM-DD), the model, the project id or the session role. */
  key: z.string(),
}).openapi('UsageRow');
export type UsageRow = z.output<typeof UsageRowSchema>;

export const UsageReportSchema = z
  .object({ rows: z.array(UsageRowSchema), total: UsageTotalsSchema })
  .openapi('UsageReport');
export type UsageReport = z.output<typeof UsageReportSchema>;

/** What one task cost: its own sessions, by role (plus the orchestrator's share beside them) and by model. */
export const TaskUsageSchema = z
  .object({ task_id: z.string().uuid(), total: UsageTotalsSchema, by_role: z.array(UsageRowSchema), by_model: z.array(UsageRowSchema) })
  .openapi('TaskUsage');
export type TaskUsage = z.output<typeof TaskUsageSchema>;

/** A project's budget and what is left of it today (UTC), as dispatch.budget_state reports it. */
export const BudgetStateSchema = z
  .object({
    per_task_usd: z.number().nullable(),
    per_day_usd: z.number().nullable(),
    /** The UTC day the figures are for (YYYY-MM-DD). */
    day: z.string(),
    spent_today_usd: z.number(),
    remaining_today_usd: z.number().nullable(),
    held_tasks: z.number().int().nonnegative(),
  })
  .openapi('BudgetState');
export type BudgetState = z.output<typeof BudgetStateSchema>;

/** PUT /api/projects/:id/budget: each limit in US dollars; null or left out removes it. */
export const BudgetInput = z
  .object({ per_task_usd: z.number().positive().nullable().optional(), per_day_usd: z.number().nonnegative().nullable().optional() })
  .strict()
  .openapi('BudgetInput');

/** The account's quota state: rate limited until a time (for every project), and the workers waiting for it. */
export const QuotaStateSchema = z
  .object({
    limited: z.boolean(),
    until: z.string().nullable(),
    reason: z.string().nullable(),
    session_id: z.string().nullable(),
    updated_at: z.string(),
    waiting_tasks: z.number().int().nonnegative(),
  })
  .openapi('QuotaState');
export type QuotaState = z.output<typeof QuotaStateSchema>;
