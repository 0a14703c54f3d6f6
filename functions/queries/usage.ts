// Usage and budget reads and writes shared by the routes and the operator CLI (the same SQL
// functions psql users call: dispatch.usage, task_usage, budget_state, set_budget).
import type { BudgetState, TaskUsage, UsageGroup, UsageReport } from '../../core/contracts/usage.ts';
import type { Sql } from '../../core/db/client.ts';

/** Usage in [since, until), grouped; every project when project_id is null. */
export async function usageReport(
  sql: Sql,
  q: { project_id: string | null; since: string | null; until: string | null; group: UsageGroup | string },
): Promise<UsageReport> {
  const [row] = await sql<{ r: UsageReport }[]>`select dispatch.usage(${q.project_id}, ${q.since}, ${q.until}, ${q.group}) as r`;
  return row!.r;
}

/** One task's cost by session role and model. */
export async function taskUsage(sql: Sql, taskId: string): Promise<TaskUsage> {
  const [row] = await sql<{ r: TaskUsage }[]>`select dispatch.task_usage(${taskId}) as r`;
  return row!.r;
}

/** A project's budget and what is left of it today. */
export async function budgetState(sql: Sql, projectId: string): Promise<BudgetState> {
  const [row] = await sql<{ b: BudgetState }[]>`select dispatch.budget_state(${projectId}) as b`;
  return row!.b;
}

/** Sets both limits (null removes one); raising them releases held tasks. */
export async function setBudget(sql: Sql, projectId: string, b: { per_task_usd: number | null; per_day_usd: number | null }): Promise<BudgetState> {
  const [row] = await sql<{ b: BudgetState }[]>`select dispatch.set_budget(${projectId}, ${b.per_task_usd}, ${b.per_day_usd}) as b`;
  return row!.b;
}
