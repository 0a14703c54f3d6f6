-- What runs cost: recording a finished session's usage, and the reports over it (the psql
-- interface of GET /api/usage and the operator CLI's `usage`).

-- Records what a session cost, in the substrate's neutral shape:
--   {cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens,
--    by_model: [{model, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens}]}
-- Called in the transaction that journals the session's exit. Once per session: a second call
-- (a re-adopted session closed twice) changes nothing and returns null.
create or replace function dispatch.record_usage(session_id uuid, usage jsonb) returns uuid
  language plpgsql volatile as $$
declare
  s dispatch.sessions;
  models jsonb;
  n integer;
  ev uuid;
begin
  select * into s from dispatch.sessions ss where ss.id = record_usage.session_id;
  if not found then
    raise exception 'no session %', record_usage.session_id using errcode = 'P0002';
  end if;
  if record_usage.usage is null or jsonb_typeof(record_usage.usage) <> 'object' then
    return null;
  end if;
  models := coalesce(record_usage.usage -> 'by_model', '[]'::jsonb);
  if jsonb_typeof(models) <> 'array' or jsonb_array_length(models) = 0 then
    models := jsonb_build_array(record_usage.usage || jsonb_build_object('model', 'unknown'));
  end if;
  insert into dispatch.session_usage (session_id, model, project_id, task_id, role, ended_at, cost_usd, input_tokens,
                                      output_tokens, cache_read_tokens, cache_creation_tokens, sessions)
  select s.id, m.model, s.project_id, s.task_id, s.role, coalesce(s.ended_at, now()), m.cost, m.i, m.o, m.cr, m.cc,
         case when row_number() over (order by m.cost desc, m.model) = 1 then 1 else 0 end
    from (select coalesce(nullif(x ->> 'model', ''), 'unknown') as model,
                 greatest(coalesce((x ->> 'cost_usd')::numeric, 0), 0) as cost,
                 greatest(coalesce((x ->> 'input_tokens')::bigint, 0), 0) as i,
                 greatest(coalesce((x ->> 'output_tokens')::bigint, 0), 0) as o,
                 greatest(coalesce((x ->> 'cache_read_tokens')::bigint, 0), 0) as cr,
                 greatest(coalesce((x ->> 'cache_creation_tokens')::bigint, 0), 0) as cc
            from jsonb_array_elements(models) x) m
  on conflict do nothing;
  get diagnostics n = row_count;
  if n = 0 then
    return null;
  end if;
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
  select s.project_id, s.id, s.task_id, 'usage.recorded',
         jsonb_build_object('role', s.role, 'cost_usd', sum(u.cost_usd), 'input_tokens', sum(u.input_tokens),
                            'output_tokens', sum(u.output_tokens), 'cache_read_tokens', sum(u.cache_read_tokens),
                            'cache_creation_tokens', sum(u.cache_creation_tokens),
                            'models', jsonb_agg(u.model order by u.cost_usd desc, u.model))
    from dispatch.session_usage u where u.session_id = s.id
  returning event_id into ev;
  return ev;
end $$;

drop function if exists dispatch.usage_key(text, uuid, uuid, text, text, timestamptz); -- the first version

-- The key a usage row is grouped under, for every grouping but day (null: grouped by its UTC date).
create or replace function dispatch.usage_key(group_by text, project_id uuid, task_id uuid, role text, model text) returns text
  language sql immutable as $$
  select case group_by
           when 'model' then model
           when 'project' then project_id::text
           when 'role' then role
           when 'task' then coalesce(task_id::text, '')
         end
$$;

-- Usage of one project (all projects when project_id is null) in [since, until) (open ends when
-- null), grouped by task, day (UTC), model, project or role:
--   {rows: [{key, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, sessions}],
--    total: {…the same fields}}
-- Whole days come from the daily rollup, the whole hours of the partial days from the hourly one,
-- and the partial hours at either edge from the sessions themselves: any range is exact, and a
-- month of a busy project reads a few hundred rows.
-- Grouping by task reads the sessions of the range (tasks are not in the rollup). Sessions of no
-- task (orchestrator turns) are grouped under the key ''.
create or replace function dispatch.usage(project_id uuid, since timestamptz default null,
                                          until timestamptz default null, group_by text default 'day')
  returns jsonb language plpgsql stable as $$
declare
  lo timestamptz := coalesce(since, '-infinity');
  hi timestamptz := coalesce(until, 'infinity');
  hlo timestamptz;
  hhi timestamptz;
  dlo timestamptz;
  dhi timestamptz;
  -- One project, or every project, as a list: "= any" bounds both index columns in plpgsql's
  -- cached generic plan (an "is null or =" test, or a uuid range, would scan past the range's end).
  p_ids uuid[] := case when usage.project_id is null then array(select p.id from dispatch.projects p)
                       else array[usage.project_id] end;
  result jsonb;
begin
  if group_by is null or group_by not in ('task', 'day', 'model', 'project', 'role') then
    raise exception 'group_by must be task, day, model, project or role (got %)', group_by using errcode = '22023';
  end if;
  hlo := case when date_trunc('hour', lo, 'UTC') = lo then lo else date_trunc('hour', lo, 'UTC') + interval '1 hour' end;
  hhi := date_trunc('hour', hi, 'UTC');
  if group_by = 'task' then
    hlo := hi; -- no rollup: every session of the range is read
    hhi := hi;
  end if;
  -- Inside the whole hours, the whole days come from the daily rollup (empty when hlo >= hhi).
  dlo := case when date_trunc('day', hlo, 'UTC') = hlo then hlo else date_trunc('day', hlo, 'UTC') + interval '1 day' end;
  dhi := date_trunc('day', hhi, 'UTC');
  -- Grouped on raw values (a UTC date, or a text), formatted after: formatting every row costs more
  -- than the rest of the report.
  with parts as (
    select case when group_by = 'day' then (y.day at time zone 'UTC')::date end as d,
           dispatch.usage_key(group_by, y.project_id, null, y.role, y.model) as k,
           y.cost_usd, y.input_tokens, y.output_tokens, y.cache_read_tokens, y.cache_creation_tokens, y.sessions
      from dispatch.usage_daily y
     where y.project_id = any(p_ids)
       and y.day >= dlo and y.day < dhi
    union all
    select case when group_by = 'day' then (h.hour at time zone 'UTC')::date end,
           dispatch.usage_key(group_by, h.project_id, null, h.role, h.model),
           h.cost_usd, h.input_tokens, h.output_tokens, h.cache_read_tokens, h.cache_creation_tokens, h.sessions
      from dispatch.usage_hourly h
     where h.project_id = any(p_ids)
       and h.hour >= hlo and h.hour < least(dlo, hhi)
    union all
    select case when group_by = 'day' then (h.hour at time zone 'UTC')::date end,
           dispatch.usage_key(group_by, h.project_id, null, h.role, h.model),
           h.cost_usd, h.input_tokens, h.output_tokens, h.cache_read_tokens, h.cache_creation_tokens, h.sessions
      from dispatch.usage_hourly h
     where h.project_id = any(p_ids)
       and h.hour >= greatest(dhi, least(dlo, hhi)) and h.hour < hhi
    union all
    select case when group_by = 'day' then (u.ended_at at time zone 'UTC')::date end,
           dispatch.usage_key(group_by, u.project_id, u.task_id, u.role, u.model),
           u.cost_usd, u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_creation_tokens, u.sessions
      from dispatch.session_usage u
     where u.project_id = any(p_ids)
       and u.ended_at >= lo and u.ended_at < least(hlo, hi)
    union all
    select case when group_by = 'day' then (u.ended_at at time zone 'UTC')::date end,
           dispatch.usage_key(group_by, u.project_id, u.task_id, u.role, u.model),
           u.cost_usd, u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_creation_tokens, u.sessions
      from dispatch.session_usage u
     where u.project_id = any(p_ids)
       and u.ended_at >= greatest(hhi, least(hlo, hi)) and u.ended_at < hi
  ), grouped as (
    select coalesce(k, to_char(d, 'YYYY-MM-DD')) as key, sum(cost_usd) as cost_usd, sum(input_tokens) as input_tokens,
           sum(output_tokens) as output_tokens, sum(cache_read_tokens) as cache_read_tokens,
           sum(cache_creation_tokens) as cache_creation_tokens, sum(sessions) as sessions
      from parts group by d, k
  )
  select jsonb_build_object(
           'rows', coalesce(jsonb_agg(dispatch.usage_json(g.key, g.cost_usd, g.input_tokens, g.output_tokens, g.cache_read_tokens,
                                                          g.cache_creation_tokens, g.sessions) order by g.key), '[]'::jsonb),
           'total', dispatch.usage_json(null, coalesce(sum(g.cost_usd), 0), coalesce(sum(g.input_tokens), 0),
                                        coalesce(sum(g.output_tokens), 0), coalesce(sum(g.cache_read_tokens), 0),
                                        coalesce(sum(g.cache_creation_tokens), 0), coalesce(sum(g.sessions), 0)))
    into result
    from grouped g;
  return result;
end $$;

-- One usage row as JSON (key left out when null). Cost rounded to a millionth of a dollar.
create or replace function dispatch.usage_json(key text, cost_usd numeric, input_tokens numeric, output_tokens numeric,
                                               cache_read_tokens numeric, cache_creation_tokens numeric, sessions numeric)
  returns jsonb language sql immutable as $$
  select jsonb_strip_nulls(jsonb_build_object('key', key)) || jsonb_build_object(
    'cost_usd', round(cost_usd, 6), 'input_tokens', input_tokens, 'output_tokens', output_tokens,
    'cache_read_tokens', cache_read_tokens, 'cache_creation_tokens', cache_creation_tokens, 'sessions', sessions)
$$;

-- What one task cost, whole and broken down: by session role (worker, extractor, …, and
-- `orchestrator`: its share of the turn that spawned it, the turn's cost split evenly over the
-- tasks that turn spawned) and by model:
--   {task_id, total: {…}, by_role: [{key, …}], by_model: [{key, …}]}
-- total is what the task's own sessions cost; the orchestrator share is shown beside it, not in it.
create or replace function dispatch.task_usage(task_id uuid) returns jsonb
  language plpgsql stable as $$
declare
  t dispatch.tasks;
  share jsonb;
  own jsonb;
begin
  select * into t from dispatch.tasks tk where tk.id = task_usage.task_id;
  if not found then
    raise exception 'no task %', task_usage.task_id using errcode = 'P0002';
  end if;
  if t.spawned_by_session is not null then
    select dispatch.usage_json('orchestrator', sum(u.cost_usd) / n.tasks, round(sum(u.input_tokens) / n.tasks),
                               round(sum(u.output_tokens) / n.tasks), round(sum(u.cache_read_tokens) / n.tasks),
                               round(sum(u.cache_creation_tokens) / n.tasks), 0)
      into share
      from dispatch.session_usage u,
           lateral (select count(*) as tasks from dispatch.tasks x where x.spawned_by_session = t.spawned_by_session) n
     where u.session_id = t.spawned_by_session
     group by n.tasks;
  end if;
  with u as (select * from dispatch.session_usage su where su.task_id = t.id)
  select jsonb_build_object(
    'task_id', t.id,
    'total', (select dispatch.usage_json(null, coalesce(sum(cost_usd), 0), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
                                         coalesce(sum(cache_read_tokens), 0), coalesce(sum(cache_creation_tokens), 0),
                                         coalesce(sum(sessions), 0)) from u),
    'by_role', coalesce((select jsonb_agg(r order by r ->> 'key') from (
                 select dispatch.usage_json(role, sum(cost_usd), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
                                            sum(cache_creation_tokens), sum(sessions)) as r
                   from u group by role) x), '[]'::jsonb) || case when share is null then '[]'::jsonb else jsonb_build_array(share) end,
    'by_model', coalesce((select jsonb_agg(r order by r ->> 'key') from (
                 select dispatch.usage_json(model, sum(cost_usd), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens),
                                            sum(cache_creation_tokens), sum(sessions)) as r
                   from u group by model) x), '[]'::jsonb))
    into own;
  return own;
end $$;

-- A project's budget and what is left of it today (UTC):
--   {per_task_usd, per_day_usd, day, spent_today_usd, remaining_today_usd, held_tasks}
-- (limits null when not set; remaining null without a daily budget).
create or replace function dispatch.budget_state(project_id uuid) returns jsonb
  language plpgsql stable as $$
declare
  cfg jsonb;
  per_task numeric;
  per_day numeric;
  today timestamptz := date_trunc('day', now(), 'UTC');
  spent numeric;
  held integer;
begin
  select p.config -> 'budget' into cfg from dispatch.projects p where p.id = budget_state.project_id;
  if jsonb_typeof(cfg) = 'object' then
    per_task := case when jsonb_typeof(cfg -> 'per_task_usd') = 'number' then (cfg ->> 'per_task_usd')::numeric end;
    per_day := case when jsonb_typeof(cfg -> 'per_day_usd') = 'number' then (cfg ->> 'per_day_usd')::numeric end;
  end if;
  select coalesce(sum(h.cost_usd), 0) into spent
    from dispatch.usage_hourly h where h.project_id = budget_state.project_id and h.hour >= today;
  select count(*) into held from dispatch.tasks t where t.project_id = budget_state.project_id and t.status = 'held';
  return jsonb_build_object(
    'per_task_usd', per_task, 'per_day_usd', per_day, 'day', to_char(today at time zone 'UTC', 'YYYY-MM-DD'),
    'spent_today_usd', round(spent, 6), 'remaining_today_usd', case when per_day is not null then round(greatest(per_day - spent, 0), 6) end,
    'held_tasks', held);
end $$;

-- Called before a task's worker starts: when the project's daily budget is spent, the task is held
-- (status `held`, with the reason) and true is returned; the first hold of the day journals
-- `budget.reached` (one push). Otherwise false, and the worker starts.
create or replace function dispatch.hold_for_budget(task_id uuid) returns boolean
  language plpgsql volatile as $$
declare
  t dispatch.tasks;
  b jsonb;
  first boolean;
begin
  select * into t from dispatch.tasks tk where tk.id = hold_for_budget.task_id for update;
  if not found or t.ended_at is not null then
    return false;
  end if;
  b := dispatch.budget_state(t.project_id);
  if b ->> 'per_day_usd' is null or (b ->> 'spent_today_usd')::numeric < (b ->> 'per_day_usd')::numeric then
    return false;
  end if;
  perform dispatch.set_task_status(t.id, 'held',
    format('daily budget reached: $%s of $%s spent today; raise budget.per_day_usd or wait for tomorrow (UTC)',
           b ->> 'spent_today_usd', b ->> 'per_day_usd'),
    jsonb_build_object('budget', b));
  insert into dispatch.budget_days (project_id, day, per_day_usd)
    values (t.project_id, (b ->> 'day')::date, (b ->> 'per_day_usd')::numeric)
    on conflict do nothing;
  get diagnostics first = row_count;
  if first then
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (t.project_id, t.id, 'budget.reached',
              jsonb_build_object('day', b ->> 'day', 'per_day_usd', (b ->> 'per_day_usd')::numeric,
                                 'spent_usd', (b ->> 'spent_today_usd')::numeric));
  end if;
  return true;
end $$;

-- Releases held tasks (of one project, or all) whose project's budget now allows new work: each
-- goes back to `queued` and its worker is enqueued again. Returns how many were released.
create or replace function dispatch.release_held_tasks(project_id uuid default null, reason text default 'a new day began')
  returns integer language plpgsql volatile as $$
declare
  p record;
  t dispatch.tasks;
  n integer := 0;
  released integer;
begin
  for p in select distinct tk.project_id as id from dispatch.tasks tk
            where tk.status = 'held' and (release_held_tasks.project_id is null or tk.project_id = release_held_tasks.project_id)
  loop
    declare
      b jsonb := dispatch.budget_state(p.id);
    begin
      continue when b ->> 'per_day_usd' is not null and (b ->> 'spent_today_usd')::numeric >= (b ->> 'per_day_usd')::numeric;
      released := 0;
      for t in select * from dispatch.tasks tk where tk.project_id = p.id and tk.status = 'held' order by tk.created_at for update
      loop
        perform dispatch.set_task_status(t.id, 'queued', 'released: ' || release_held_tasks.reason);
        perform graphile_worker.add_job('spawn_worker', json_build_object('task_id', t.id),
                                        job_key := 'spawn_worker:' || t.id, max_attempts := 25);
        released := released + 1;
      end loop;
      if released > 0 then
        insert into dispatch.events (project_id, event_type, payload)
          values (p.id, 'budget.released', jsonb_build_object('tasks', released, 'reason', release_held_tasks.reason, 'budget', b));
        n := n + released;
      end if;
    end;
  end loop;
  return n;
end $$;

-- Sets a project's budget (config key `budget`; a null limit removes it) and returns its state.
-- Raising it releases the held tasks at once (trigger projects_budget_changed).
create or replace function dispatch.set_budget(project_id uuid, per_task_usd numeric default null, per_day_usd numeric default null)
  returns jsonb language plpgsql volatile as $$
begin
  if set_budget.per_task_usd is not null and set_budget.per_task_usd <= 0 then
    raise exception 'per_task_usd must be more than 0' using errcode = '22023';
  end if;
  if set_budget.per_day_usd is not null and set_budget.per_day_usd < 0 then
    raise exception 'per_day_usd must not be negative' using errcode = '22023';
  end if;
  update dispatch.projects p
     set config = case when set_budget.per_task_usd is null and set_budget.per_day_usd is null then p.config - 'budget'
                       else p.config || jsonb_build_object('budget', jsonb_strip_nulls(jsonb_build_object(
                              'per_task_usd', set_budget.per_task_usd, 'per_day_usd', set_budget.per_day_usd))) end
   where p.id = set_budget.project_id;
  if not found then
    raise exception 'no project %', set_budget.project_id using errcode = 'P0002';
  end if;
  return dispatch.budget_state(set_budget.project_id);
end $$;
