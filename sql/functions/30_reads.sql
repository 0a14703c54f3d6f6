-- The derived read surface (FR-010) and input functions shared by the API, MCP and psql.

-- Handoffs for a task, session or project scope, newest first by default.
create or replace function dispatch.get_handoffs(scope uuid, lim integer default 20, newest_first boolean default true)
  returns table (event_id uuid, seq bigint, project_id uuid, task_id uuid, session_id uuid, parent_id uuid,
                 thread_id bigint, created_at timestamptz, payload jsonb)
  language sql stable as $$
  (select e.event_id, e.seq, e.project_id, e.task_id, e.session_id, e.parent_id, e.thread_id, e.created_at, e.payload
     from dispatch.events e
    where e.tier = 'derived' and e.event_type = 'handoff'
      and (e.task_id = scope or e.session_id = scope or e.project_id = scope)
    order by case when newest_first then -e.seq else e.seq end
    limit greatest(1, least(coalesce(lim, 20), 200)))
$$;

-- A bounded rollup of a project (a few KB however large the project).
create or replace function dispatch.project_state(project_id uuid) returns jsonb
  language plpgsql stable as $$
declare
  p dispatch.projects;
  result jsonb;
begin
  select * into p from dispatch.projects pr where pr.id = project_state.project_id;
  if not found then
    raise exception 'no project %', project_state.project_id using errcode = 'P0002';
  end if;
  with t as (
    select tk.*, st.clean, st.failure, st.blocking, st.needs_user
      from dispatch.tasks tk join dispatch.statuses st on st.name = tk.status
     where tk.project_id = p.id
  ), counts as (
    select count(*) filter (where clean) as done,
           count(*) filter (where ended_at is null) as in_flight,
           count(*) filter (where failure) as failed,
           count(*) filter (where blocking) as blocked,
           count(*) as total
      from t
  ), latest as (
    select h.task_id, h.event_id, h.seq, h.payload
      from (select distinct on (e.task_id) e.task_id, e.event_id, e.seq, e.payload
              from dispatch.events e
             where e.project_id = p.id and e.tier = 'derived' and e.event_type = 'handoff'
             order by e.task_id, e.seq desc) h
     order by h.seq desc limit 10
  ), ruled as (
    select r->>'approach' as approach, r->>'reason' as reason, e.event_id as handoff_id, e.seq
      from dispatch.events e, jsonb_array_elements(case when jsonb_typeof(e.payload->'ruled_out') = 'array'
                                                          then e.payload->'ruled_out' else '[]'::jsonb end) r
     where e.project_id = p.id and e.tier = 'derived' and e.event_type = 'handoff'
     order by e.seq desc limit 30
  ), open_tasks as (
    select id, status, attempt, left(brief, 160) as brief, approach, started_at from t
     where ended_at is null order by created_at desc limit 20
  )
  select jsonb_build_object(
    'project_id', p.id,
    'name', p.name,
    'tasks', (select to_jsonb(c) from counts c),
    'in_flight', coalesce((select jsonb_agg(to_jsonb(o)) from open_tasks o), '[]'::jsonb),
    'latest_handoffs', coalesce((select jsonb_agg(jsonb_build_object(
        'task_id', l.task_id, 'handoff_id', l.event_id, 'seq', l.seq,
        'goal', left(l.payload->>'goal', 200), 'current_state', left(l.payload->>'current_state', 300),
        'next_step', left(l.payload->>'next_step', 200), 'status', l.payload->>'status') order by l.seq desc)
      from latest l), '[]'::jsonb),
    'open_rule_outs', coalesce((select jsonb_agg(jsonb_build_object('approach', left(r.approach, 200),
        'reason', left(r.reason, 200), 'handoff_id', r.handoff_id) order by r.seq desc) from ruled r), '[]'::jsonb),
    'needs_user', coalesce((select jsonb_agg(jsonb_build_object('task_id', t.id, 'status', t.status,
        'reason', left(t.status_reason, 200)))
      from (select * from t where t.needs_user order by ended_at desc limit 10) t), '[]'::jsonb),
    'pending_messages', (select count(*) from dispatch.user_messages m where m.project_id = p.id and m.delivered_at is null)
  ) into result;
  return result || jsonb_build_object('budget', dispatch.budget_state(p.id));
end $$;

-- Journals a user message (idempotent on message_id); it wakes the orchestrator unless a turn or a
-- worker it started is running, in which case it waits as pending for the next turn boundary.
create or replace function dispatch.post_user_message(project_id uuid, text text, message_id uuid)
  returns table (event_id uuid, seq bigint, created boolean)
  language plpgsql volatile as $$
declare
  ev uuid;
  s bigint;
begin
  select m.event_id, m.seq into ev, s from dispatch.user_messages m where m.message_id = post_user_message.message_id;
  if found then
    return query select ev, s, false;
    return;
  end if;
  insert into dispatch.events (project_id, message_id, event_type, payload)
    values (post_user_message.project_id, post_user_message.message_id, 'user_message',
            jsonb_build_object('text', post_user_message.text))
    returning events.event_id, events.seq into ev, s;
  insert into dispatch.user_messages (message_id, project_id, event_id, seq, text)
    values (post_user_message.message_id, post_user_message.project_id, ev, s, post_user_message.text);
  perform dispatch.wake_if_waiting(post_user_message.project_id);
  return query select ev, s, true;
end $$;

-- Asks for one orchestrator turn of the project: one job key per project, so a burst is one turn,
-- and one named queue per project, so turns of one project never overlap.
create or replace function dispatch.request_turn(project_id uuid, reason text) returns void
  language plpgsql volatile as $$
begin
  perform graphile_worker.add_job('orchestrator_turn', json_build_object('project_id', request_turn.project_id),
                                  queue_name := 'orchestrator:' || request_turn.project_id,
                                  job_key := 'orchestrator_turn:' || request_turn.project_id,
                                  max_attempts := 5);
end $$;

-- The focus: a Trellis thread (its id as Trellis gives it: a JSON string or number) and/or a task.
-- thread_ref keeps the id as text, thread_id too when it is an integer; the payload keeps the JSON
-- value itself, so a client gets back exactly what it sent. From psql: set_focus('"th_8f2"', null).
create or replace function dispatch.set_focus(thread jsonb, task_id uuid) returns uuid
  language plpgsql volatile as $$
declare
  pid uuid;
  ev uuid;
  ref text;
  num bigint;
begin
  if set_focus.thread is not null and jsonb_typeof(set_focus.thread) = 'null' then
    set_focus.thread := null;
  end if;
  if set_focus.thread is not null then
    if jsonb_typeof(set_focus.thread) = 'string' then
      ref := set_focus.thread #>> '{}';
    elsif jsonb_typeof(set_focus.thread) = 'number' and (set_focus.thread #>> '{}') ~ '^[0-9]{1,18}$' then
      ref := set_focus.thread #>> '{}';
      num := ref::bigint;
    else
      raise exception 'a thread id is a string or a non-negative integer, not %', set_focus.thread using errcode = '22023';
    end if;
    if ref = '' or length(ref) > 200 then
      raise exception 'a thread id has 1 to 200 characters' using errcode = '22023';
    end if;
  end if;
  if set_focus.task_id is not null then
    select t.project_id into pid from dispatch.tasks t where t.id = set_focus.task_id;
    if not found then
      raise exception 'no task %', set_focus.task_id using errcode = 'P0002';
    end if;
  end if;
  insert into dispatch.events (project_id, task_id, thread_id, thread_ref, event_type, payload)
    values (pid, set_focus.task_id, num, ref, 'focus.changed',
            jsonb_build_object('thread_id', set_focus.thread, 'task_id', set_focus.task_id))
    returning event_id into ev;
  return ev;
end $$;

create or replace function dispatch.issue_mcp_token(project_id uuid, session_id uuid default null) returns text
  language plpgsql volatile as $$
declare
  token text := 'pdm_' || encode(gen_random_bytes(24), 'hex');
begin
  insert into dispatch.mcp_tokens (token_sha256, project_id, session_id)
    values (encode(digest(token, 'sha256'), 'hex'), issue_mcp_token.project_id, issue_mcp_token.session_id);
  return token;
end $$;

create or replace function dispatch.normalise_approach(t text) returns text
  language sql immutable as $$
  select btrim(regexp_replace(lower(coalesce(t, '')), '[^a-z0-9]+', ' ', 'g'))
$$;

-- Prior rule-outs of the project that match an approach: a normalised exact match, or a close
-- paraphrase (pg_trgm similarity at or above the threshold).
create or replace function dispatch.check_ruled_out(project_id uuid, approach text, threshold real default 0.5)
  returns table (ruled_out_approach text, reason text, handoff_id uuid, task_id uuid, similarity real)
  language sql stable as $$
  with r as (
    select x->>'approach' as a, x->>'reason' as why, e.event_id, e.task_id, e.seq,
           dispatch.normalise_approach(x->>'approach') as na,
           dispatch.normalise_approach(check_ruled_out.approach) as nb
      from dispatch.events e,
           jsonb_array_elements(case when jsonb_typeof(e.payload->'ruled_out') = 'array' then e.payload->'ruled_out' else '[]'::jsonb end) x
     where e.project_id = check_ruled_out.project_id and e.tier = 'derived' and e.event_type = 'handoff'
  )
  select r.a, r.why, r.event_id, r.task_id, case when r.na = r.nb then 1.0 else similarity(r.na, r.nb) end::real as sim
    from r
   where r.na = r.nb or similarity(r.na, r.nb) >= check_ruled_out.threshold
   order by sim desc, r.seq desc
$$;
