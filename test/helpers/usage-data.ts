// Synthetic finished sessions with usage, for the usage reports' tests and bench: `n` sessions of
// one project spread over `days` days before `end`, in two roles and two models, with costs in
// whole millionths of a dollar so sums are exact.
import type { Sql } from '../../core/db/client.ts';

export async function loadSessions(sql: Sql, projectId: string, n: number, days: number, end = new Date()): Promise<void> {
  const batch = 100_000;
  for (let from = 0; from < n; from += batch) {
    const count = Math.min(batch, n - from);
    await sql.begin(async (tx) => {
      await tx`
        with s as (
          insert into dispatch.sessions (project_id, role, status, ended_at)
          select ${projectId}, case when g % 3 = 0 then 'extractor' else 'worker' end, 'success',
                 ${end}::timestamptz - (random() * ${days} * interval '1 day')
            from generate_series(1, ${count}) g
          returning id, project_id, role, ended_at
        )
        insert into dispatch.session_usage (session_id, model, project_id, role, ended_at, cost_usd, input_tokens,
                                            output_tokens, cache_read_tokens, cache_creation_tokens)
        select id, case when random() < 0.2 then 'claude-haiku-4-5' else 'claude-opus-4-8' end, project_id, role, ended_at,
               (1 + floor(random() * 50000)) / 1000000.0, floor(random() * 20000), floor(random() * 2000),
               floor(random() * 50000), floor(random() * 5000)
          from s`;
    });
  }
}
