-- What runs cost. The substrate reports each session's usage in its final result (Claude Code:
-- total_cost_usd, usage, modelUsage — the CLI's own estimate, not a bill); the runner hands it, in
-- the substrate's neutral shape, to dispatch.record_usage in the transaction that journals the
-- session's exit. session_usage is the one source of truth; usage_hourly is its rollup, kept by a
-- trigger in the same statement, so a report over a million sessions reads a few thousand rows.

-- One row per session and model (a session may use several); written once, never changed (the
-- rollup adds, it does not recompute). `sessions` is 1 on the session's
-- main model (the costliest) and 0 on the others, so sums count each session once.
create table dispatch.session_usage (
  session_id            uuid not null references dispatch.sessions,
  model                 text not null,
  project_id            uuid not null references dispatch.projects,
  task_id               uuid references dispatch.tasks,
  role                  text not null,
  ended_at              timestamptz not null,
  cost_usd              numeric(20, 10) not null default 0 check (cost_usd >= 0),
  input_tokens          bigint not null default 0 check (input_tokens >= 0),
  output_tokens         bigint not null default 0 check (output_tokens >= 0),
  cache_read_tokens     bigint not null default 0 check (cache_read_tokens >= 0),
  cache_creation_tokens bigint not null default 0 check (cache_creation_tokens >= 0),
  sessions              smallint not null default 1 check (sessions in (0, 1)),
  primary key (session_id, model)
);
create index session_usage_project_idx on dispatch.session_usage (project_id, ended_at);
create index session_usage_ended_idx on dispatch.session_usage (ended_at);
create index session_usage_task_idx on dispatch.session_usage (task_id) where task_id is not null;

-- The rollup by project, UTC hour, role and model.
create table dispatch.usage_hourly (
  project_id            uuid not null references dispatch.projects,
  hour                  timestamptz not null,
  role                  text not null,
  model                 text not null,
  cost_usd              numeric(20, 10) not null default 0,
  input_tokens          bigint not null default 0,
  output_tokens         bigint not null default 0,
  cache_read_tokens     bigint not null default 0,
  cache_creation_tokens bigint not null default 0,
  sessions              bigint not null default 0,
  primary key (project_id, hour, role, model)
);
create index usage_hourly_hour_idx on dispatch.usage_hourly (hour);

create function dispatch.roll_up_usage() returns trigger language plpgsql as $$
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
  return null;
end $$;

create trigger session_usage_roll_up after insert on dispatch.session_usage
  referencing new table as new_rows for each statement execute function dispatch.roll_up_usage();

insert into dispatch.event_types (name, tier, description) values
  ('usage.recorded', 'raw', 'what a finished session cost, as its substrate reported it: {role, cost_usd, tokens, models}');
