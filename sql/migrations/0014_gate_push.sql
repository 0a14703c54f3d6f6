-- A push per gate (gate.requested), with Approve and Deny actions on the notification: a moment of
-- its own, on for every device that already subscribed (a gate is what a person is waited on for).

create or replace function dispatch.push_moments() returns text[]
  language sql stable as $$
  select array_agg(s.name order by s.name) || array['loop_stopped', 'budget_reached', 'gate_requested']
    from dispatch.statuses s where s.notifies
$$;

update dispatch.push_subscriptions set statuses = statuses || '{gate_requested}'::text[]
 where not ('gate_requested' = any(statuses));

create function dispatch.push_gate_requested() returns trigger
  language plpgsql volatile as $$
begin
  if exists (select 1 from dispatch.push_subscriptions) then
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || coalesce(new.task_id, new.project_id)::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;

create trigger events_push_gate after insert on dispatch.events
  for each row when (new.event_type = 'gate.requested')
  execute function dispatch.push_gate_requested();
