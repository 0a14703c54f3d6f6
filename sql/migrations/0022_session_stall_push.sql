-- A stalled extractor or orchestrator turn is pushed like a stalled worker. A worker's stall reaches
-- devices through its task (task.status_changed → stalled); the other roles have no task status of
-- their own to move, so their session.stalled row is the push moment, under the same preference
-- ('stalled'). session_stalled journals a stall once (not again while the session stays stalled,
-- nor when another runner adopts it), so each stall is one push.
create function dispatch.push_session_stalled() returns trigger
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

create trigger events_push_session_stalled after insert on dispatch.events
  for each row when (new.event_type = 'session.stalled')
  execute function dispatch.push_session_stalled();
