-- The triggers of usage and budgets, re-applied on every migrate: the rollups kept in the same
-- statement as a session's usage rows, and held tasks released when a project's budget changes.

-- session_usage is the one source of truth; usage_hourly and usage_daily are its rollups by
-- project, UTC hour (or day), role and model, kept by this statement trigger, so a report over a
-- million sessions reads a few thousand rows. The rollup adds, it does not recompute.
create or replace function dispatch.roll_up_usage() returns trigger language plpgsql as $$
begin
  insert into dispatch.usage_hourly as h (project_id, hour, role, model, cost_usd, input_tokens, output_tokens,
                                          cache_read_tokens, cache_creation_tokens, sessions)
  select n.project_id, date_trunc('hour', n.ended_at, 'UTC'), n.role, n.model, sum(n.cost_usd), sum(n.input_tokens),
         sum(n.output_tokens), sum(n.cache_read_tokens), sum(n.cache_creation_tokens), sum(n.sessions)
    from new_rows n
   group by 1, 2, 3, 4
   order by 1, 2, 3, 4 -- one lock order for concurrent writers
  on conflict (project_id, hour, role, model) do update
     set cost_usd = h.cost_usd + excluded.cost_usd,
         input_tokens = h.input_tokens + excluded.input_tokens,
         output_tokens = h.output_tokens + excluded.output_tokens,
         cache_read_tokens = h.cache_read_tokens + excluded.cache_read_tokens,
         cache_creation_tokens = h.cache_creation_tokens + excluded.cache_creation_tokens,
         sessions = h.sessions + excluded.sessions;
  insert into dispatch.usage_daily as d (project_id, day, role, model, cost_usd, input_tokens, output_tokens,
                                         cache_read_tokens, cache_creation_tokens, sessions)
  select n.project_id, date_trunc('day', n.ended_at, 'UTC'), n.role, n.model, sum(n.cost_usd), sum(n.input_tokens),
         sum(n.output_tokens), sum(n.cache_read_tokens), sum(n.cache_creation_tokens), sum(n.sessions)
    from new_rows n
   group by 1, 2, 3, 4
   order by 1, 2, 3, 4
  on conflict (project_id, day, role, model) do update
     set cost_usd = d.cost_usd + excluded.cost_usd,
         input_tokens = d.input_tokens + excluded.input_tokens,
         output_tokens = d.output_tokens + excluded.output_tokens,
         cache_read_tokens = d.cache_read_tokens + excluded.cache_read_tokens,
         cache_creation_tokens = d.cache_creation_tokens + excluded.cache_creation_tokens,
         sessions = d.sessions + excluded.sessions;
  return null;
end $$;

select dispatch.define_trigger('dispatch.session_usage', 'session_usage_roll_up', $$
create or replace trigger session_usage_roll_up after insert on dispatch.session_usage
  referencing new table as new_rows for each statement execute function dispatch.roll_up_usage()
$$);

-- Raising (or removing) a project's budget releases what it held, in the same transaction. An
-- AFTER ROW trigger: it fires before projects_state_changed (AFTER STATEMENT, 31_state_changed.sql).
create or replace function dispatch.budget_changed() returns trigger
  language plpgsql volatile as $$
begin
  perform dispatch.release_held_tasks(new.id, 'the budget was raised');
  return null;
end $$;

select dispatch.define_trigger('dispatch.projects', 'projects_budget_changed', $$
create or replace trigger projects_budget_changed after update of config on dispatch.projects
  for each row when (old.config -> 'budget' is distinct from new.config -> 'budget')
  execute function dispatch.budget_changed()
$$);
