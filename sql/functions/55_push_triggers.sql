-- The push moments and the triggers that enqueue a push_notify job for them, re-applied on every
-- migrate (the delivery itself is jobs/tasks/push_notify.ts; 50_push.sql keeps the bookkeeping).
--
-- All four are AFTER ROW triggers on dispatch.events, each with a WHEN on the event type, so at
-- most one fires for a row; their names put them, in this order, after events_assign_seq and
-- before events_check_and_notify (the full order of an insert is in 05_journal_triggers.sql).
-- One queue per task (or project): its notifications arrive in the order things happened, so the
-- last one shown under its tag is the latest state.

-- The moments a device may subscribe to: the notifying statuses, the loop stopping, a project's
-- daily budget reached and a gate opened (the default of push_subscriptions.statuses).
create or replace function dispatch.push_moments() returns text[]
  language sql stable as $$
  select array_agg(s.name order by s.name) || array['loop_stopped', 'budget_reached', 'gate_requested']
    from dispatch.statuses s where s.notifies
$$;

-- A task reached a notifying status, or the orchestrator's loop stopped.
create or replace function dispatch.push_enqueue() returns trigger
  language plpgsql volatile as $$
begin
  if not exists (select 1 from dispatch.push_subscriptions) then
    return null;
  end if;
  if (new.event_type = 'task.status_changed'
        and exists (select 1 from dispatch.statuses s where s.name = new.payload->>'status' and s.notifies))
     -- A stopped loop is pushed when it is done (once, as "done") or when Needs you lists it; a
     -- stop that resolves itself (backing off from a rate limit) is not worth a person's look.
     or (new.event_type = 'orchestrator.working_set' and jsonb_typeof(new.payload->'stop') = 'object'
         and (dispatch.loop_finished(new.payload)
              or exists (select 1 from dispatch.needs_you(new.project_id) n where n.key in ('loop:' || new.event_id, 'question:' || new.event_id)))) then
    -- One queue per task (or project): its notifications arrive in the order things happened,
    -- so the last one shown under its tag is the latest state.
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || coalesce(new.task_id, new.project_id)::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_push', $$
create or replace trigger events_push after insert on dispatch.events
  for each row when (new.event_type in ('task.status_changed', 'orchestrator.working_set'))
  execute function dispatch.push_enqueue()
$$);

-- A project's daily budget is spent: once per project and day, not once per held task.
create or replace function dispatch.push_budget_reached() returns trigger
  language plpgsql volatile as $$
begin
  if exists (select 1 from dispatch.push_subscriptions) then
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || new.project_id::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_push_budget', $$
create or replace trigger events_push_budget after insert on dispatch.events
  for each row when (new.event_type = 'budget.reached')
  execute function dispatch.push_budget_reached()
$$);

-- A gate opened (the notification carries Approve and Deny actions).
create or replace function dispatch.push_gate_requested() returns trigger
  language plpgsql volatile as $$
begin
  if exists (select 1 from dispatch.push_subscriptions) then
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || coalesce(new.task_id, new.project_id)::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_push_gate', $$
create or replace trigger events_push_gate after insert on dispatch.events
  for each row when (new.event_type = 'gate.requested')
  execute function dispatch.push_gate_requested()
$$);

-- A stalled extractor or orchestrator turn is pushed like a stalled worker. A worker's stall reaches
-- devices through its task (task.status_changed → stalled); the other roles have no task status of
-- their own to move, so their session.stalled row is the push moment, under the same preference
-- ('stalled'). session_stalled journals a stall once, so each stall is one push.
create or replace function dispatch.push_session_stalled() returns trigger
  language plpgsql volatile as $$
begin
  if not exists (select 1 from dispatch.push_subscriptions) then
    return null;
  end if;
  if exists (select 1 from dispatch.sessions s where s.id = new.session_id and s.role <> 'worker') then
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || coalesce(new.task_id, new.project_id)::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_push_session_stalled', $$
create or replace trigger events_push_session_stalled after insert on dispatch.events
  for each row when (new.event_type = 'session.stalled')
  execute function dispatch.push_session_stalled()
$$);
