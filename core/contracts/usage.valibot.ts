// What runs cost, as the client reads it (one run's usage, and the GET /api/usage report).
import * as v from 'valibot';

const tokens = v.pipe(v.number(), v.integer(), v.minValue(0));

export const UsageSchema = v.object({
  cost_usd: v.nullable(v.pipe(v.number(), v.minValue(0))),
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_creation_tokens: tokens,
  models: v.array(v.string()),
});
export type Usage = v.InferOutput<typeof UsageSchema>;

export const UsageGroup = v.picklist(['task', 'day', 'model', 'project', 'role']);
export type UsageGroup = v.InferOutput<typeof UsageGroup>;

const totals = {
  cost_usd: v.pipe(v.number(), v.minValue(0)),
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_creation_tokens: tokens,
  sessions: tokens,
};
export const UsageTotalsSchema = v.object(totals);
export type UsageTotals = v.InferOutput<typeof UsageTotalsSchema>;

export const UsageRowSchema = v.object({ ...totals, key: v.string() });
export type UsageRow = v.InferOutput<typeof UsageRowSchema>;

export const UsageReportSchema = v.object({ rows: v.array(UsageRowSchema), total: UsageTotalsSchema });
export type UsageReport = v.InferOutput<typeof UsageReportSchema>;

export const TaskUsageSchema = v.object({
  task_id: v.pipe(v.string(), v.uuid()),
  total: UsageTotalsSchema,
  by_role: v.array(UsageRowSchema),
  by_model: v.array(UsageRowSchema),
});
export type TaskUsage = v.InferOutput<typeof TaskUsageSchema>;

export const BudgetStateSchema = v.object({
  per_task_usd: v.nullable(v.number()),
  per_day_usd: v.nullable(v.number()),
  day: v.string(),
  spent_today_usd: v.number(),
  remaining_today_usd: v.nullable(v.number()),
  held_tasks: tokens,
});
export type BudgetState = v.InferOutput<typeof BudgetStateSchema>;

export const QuotaStateSchema = v.object({
  limited: v.boolean(),
  until: v.nullable(v.string()),
  reason: v.nullable(v.string()),
  session_id: v.nullable(v.string()),
  updated_at: v.string(),
  waiting_tasks: tokens,
});
export type QuotaState = v.InferOutput<typeof QuotaStateSchema>;
