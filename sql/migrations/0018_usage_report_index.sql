-- The partial hours at the edges of a usage report are read from session_usage: an index that
-- covers what the report sums lets Postgres answer them from the index alone.
drop index dispatch.session_usage_project_idx;
create index session_usage_report_idx on dispatch.session_usage (project_id, ended_at)
  include (role, model, task_id, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, sessions);
