-- "Needs you", re-applied on every migrate: the one definition of what waits for an act of a person
-- now. GET /api/state and GET /api/needs-you list it, the app's badge counts it, and the push
-- trigger (55_push_triggers.sql) asks it whether a stopped loop is worth a push. Every item is
-- computed from the current rows, so it leaves by itself the moment it is no longer true (the gate
-- decided, the task retried or done, the session resumed, a new turn or message); a dismissed key
-- (dispatch.needs_you_dismissals) stays out. A loop that ended because its work is done is not here:
-- that is "finished" (finished_loops below), shown and pushed as done.
--
-- Kinds, each with the act it asks for:
--   gate      an open gate                                   approve or deny
--   task      a task that ended waiting for a decision       retry or look (extraction_failed, retries
--                                                            used up, a gated task with no open gate)
--   stalled   a live session silent past the threshold       wait, or stop it
--   budget    tasks held by a spent daily budget             raise the budget (or wait for tomorrow)
--   login     the Claude login expired (quota state)         log in again
--   question  the orchestrator ended its turn asking         answer in the chat
--   loop      the loop stopped not done (a failed turn, a refused spawn, a worker's failure left)
--                                                            tell the orchestrator what next
-- plpgsql, so its body is checked when called: it reads functions defined in later files.

-- Whether a working set's stop means the work is done: the turn ended clean and said why it started
-- nothing more (older rows wrote that as where = 'orchestrator').
create or replace function dispatch.loop_finished(ws jsonb) returns boolean
  language sql immutable as $$
  select jsonb_typeof(ws->'stop') = 'object'
     and coalesce(ws->>'turn_status', 'success') = 'success'
     and ws->'stop'->>'where' in ('finished', 'orchestrator')
$$;

-- Whether a finished turn's last words ask the person something.
create or replace function dispatch.loop_asks(ws jsonb) returns boolean
  language sql immutable as $$
  select dispatch.loop_finished(ws) and right(btrim(coalesce(ws->>'last_message', '')), 1) = '?'
$$;

-- The newest working set of each project (or one), and whether anything happened since: a message
-- from the person, a live task or a live orchestrator turn means the loop is not stopped any more.
create or replace function dispatch.latest_loops(scope uuid default null)
  returns table (project_id uuid, event_id uuid, seq bigint, created_at timestamptz, ws jsonb, quiet boolean)
  language sql stable as $$
  select p.id, w.event_id, w.seq, w.created_at, w.payload,
         not exists (select 1 from dispatch.user_messages m where m.project_id = p.id and m.seq > w.seq)
         and not exists (select 1 from dispatch.tasks t where t.project_id = p.id and t.ended_at is null and t.status <> 'held')
         and not exists (select 1 from dispatch.sessions s where s.project_id = p.id and s.role = 'orchestrator' and s.ended_at is null)
    from dispatch.projects p
   cross join lateral (select e.event_id, e.seq, e.created_at, e.payload from dispatch.events e
                        where e.event_type = 'orchestrator.working_set' and e.project_id = p.id
                        order by e.seq desc limit 1) w
   where latest_loops.scope is null or p.id = latest_loops.scope
$$;

create or replace function dispatch.needs_you(scope uuid default null)
  returns table (key text, kind text, project_id uuid, task_id uuid, session_id uuid, gate_id uuid, role text,
                 title text, detail text, since text)
  language plpgsql stable as $$
#variable_conflict use_column
begin
  return query
  with items as (
    select 'gate:' || g.id as key, 'gate' as kind, g.project_id, g.task_id, g.session_id, g.id as gate_id, null::text as role,
           case when g.kind = 'spawn' then 'approve a new worker?' else 'approve ' || g.tool || '?' end as title,
           left(coalesce(g.subject, g.input::text), 300) || ' — ' || g.reason as detail, g.created_at as since
      from dispatch.gates g
     where g.status = 'open' and (needs_you.scope is null or g.project_id = needs_you.scope)
    union all
    select 'task:' || t.id || ':' || t.attempt, 'task', t.project_id, t.id, null, null, null,
           replace(t.status, '_', ' ') || ': ' || left(t.brief, 200),
           coalesce(t.status_reason, ''), coalesce(t.ended_at, t.created_at)
      from dispatch.tasks t join dispatch.statuses st on st.name = t.status
     where (needs_you.scope is null or t.project_id = needs_you.scope)
       and st.terminal and not st.clean and t.status not in ('cancelled', 'skipped')
       -- a gated task with an open gate is the gate's item
       and not (t.status = 'gated' and exists (select 1 from dispatch.gates g where g.task_id = t.id and g.status = 'open'))
       and (t.status in ('extraction_failed', 'gated')
            -- the return policy used up its attempts and handed it to a person
            or exists (select 1 from dispatch.events e
                        where e.task_id = t.id and e.event_type = 'policy.decision'
                          and e.payload->>'action' = 'escalate_user' and (e.payload->>'attempt')::int = t.attempt))
    union all
    select 'stalled:' || s.id || ':' || coalesce(extract(epoch from s.last_output_at)::bigint, 0), 'stalled', s.project_id, s.task_id, s.id, null, s.role,
           case when s.role = 'orchestrator' then 'the orchestrator has gone quiet'
                else 'the ' || s.role || ' has gone quiet: ' || coalesce(left(t.brief, 200), '') end,
           coalesce(s.status_reason, ''), coalesce(s.last_output_at, s.started_at, s.created_at)
      from dispatch.sessions s left join dispatch.tasks t on t.id = s.task_id
     where s.stalled and s.ended_at is null and (needs_you.scope is null or s.project_id = needs_you.scope)
    union all
    select 'budget:' || t.project_id || ':' || (now() at time zone 'utc')::date, 'budget', t.project_id, null, null, null, null,
           'today''s budget is spent',
           count(*) || case when count(*) = 1 then ' task waits' else ' tasks wait' end
             || ' until the daily budget is raised or the day ends',
           min(t.created_at)
      from dispatch.tasks t
     where t.status = 'held' and (needs_you.scope is null or t.project_id = needs_you.scope)
     group by t.project_id
    union all
    -- The quota's login_expired state (set by the quota reader when the CLI says it is not logged in).
    select 'login:' || coalesce(q->>'updated_at', ''), 'login', null, null, null, null, null,
           'log in to Claude again', coalesce(q->>'reason', 'the Claude login has expired'), now()
      from (select dispatch.quota_state() as q) qs
     where q->>'state' = 'login_expired'
    union all
    select case when dispatch.loop_asks(l.ws) then 'question:' else 'loop:' end || l.event_id,
           case when dispatch.loop_asks(l.ws) then 'question' else 'loop' end, l.project_id, null, null, null, null,
           case when dispatch.loop_asks(l.ws) then 'the orchestrator asks you' else 'the orchestrator stopped' end,
           case when dispatch.loop_asks(l.ws) then right(btrim(l.ws->>'last_message'), 300) else l.ws->'stop'->>'why' end,
           l.created_at
      from dispatch.latest_loops(needs_you.scope) l
     where l.quiet and jsonb_typeof(l.ws->'stop') = 'object'
       and (dispatch.loop_asks(l.ws)
            or (not dispatch.loop_finished(l.ws) and coalesce(l.ws->'stop'->>'where', '') in ('orchestrator', 'spawn_refused', 'worker')))
  )
  select i.key, i.kind, i.project_id, i.task_id, i.session_id, i.gate_id, i.role, i.title, i.detail, dispatch.iso(i.since)
    from items i
   where not exists (select 1 from dispatch.needs_you_dismissals d where d.key = i.key)
   order by i.since desc;
end $$;

comment on function dispatch.needs_you(uuid) is
  'What waits for an act of a person now (one project, or all): open gates, tasks awaiting a decision, stalled sessions, budget holds, an expired login, a question or stop of the orchestrator. Dismissed keys are left out.';

-- The projects whose loop ended because the work is done (shown as finished, never as Needs you).
create or replace function dispatch.finished_loops(scope uuid default null)
  returns table (project_id uuid, event_id uuid, since text)
  language sql stable as $$
  select l.project_id, l.event_id, dispatch.iso(l.created_at)
    from dispatch.latest_loops(finished_loops.scope) l
   where l.quiet and dispatch.loop_finished(l.ws) and not dispatch.loop_asks(l.ws)
$$;

-- A person marks an item as seen: it leaves Needs you in every client (the journalled row reaches
-- them), and stays out. An item that is not listed now is refused (P0002), so a stale tap says so.
create or replace function dispatch.dismiss_needs_you(key text, by_whom text default null) returns uuid
  language plpgsql volatile as $$
declare
  it record;
  ev uuid;
begin
  select * into it from dispatch.needs_you() n where n.key = dismiss_needs_you.key;
  if not found then
    raise exception 'nothing in Needs you has the key %', dismiss_needs_you.key using errcode = 'P0002';
  end if;
  insert into dispatch.needs_you_dismissals (key, project_id, dismissed_by)
    values (it.key, it.project_id, dismiss_needs_you.by_whom) on conflict do nothing;
  insert into dispatch.events (project_id, task_id, session_id, event_type, payload)
    values (it.project_id, it.task_id, it.session_id, 'needs_you.dismissed',
            jsonb_build_object('key', it.key, 'kind', it.kind, 'title', it.title, 'by', dismiss_needs_you.by_whom))
    returning event_id into ev;
  return ev;
end $$;
