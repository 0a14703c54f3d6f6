-- A daily rollup beside the hourly one: a report over weeks reads one row per project, day, role
-- and model for each whole UTC day, the hourly rollup for the whole hours of the partial days, and
-- the sessions themselves only for the partial hours at the edges.
create table dispatch.usage_daily (
  project_id            uuid not null references dispatch.projects,
  day                   timestamptz not null, -- UTC midnight
  role                  text not null,
  model                 text not null,
  cost_usd              numeric(20, 10) not null default 0,
  input_tokens          bigint not null default 0,
  output_tokens         bigint not null default 0,
  cache_read_tokens     bigint not null default 0,
  cache_creation_tokens bigint not null default 0,
  sessions              bigint not null default 0,
  primary key (project_id, day, role, model)
);
create index usage_daily_day_idx on dispatch.usage_daily (day);

insert into dispatch.usage_daily (project_id, day, role, model, cost_usd, input_tokens, output_tokens, cache_read_tokens,
                                  cache_creation_tokens, sessions)
select project_id, date_trunc('day', hour, 'UTC'), role, model, sum(cost_usd), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_creation_tokens), sum(sessions)
  from dispatch.usage_hourly group by 1, 2, 3, 4;

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
