-- Web Push: the server's VAPID keys, each device's subscription and preferences, and deliveries
-- (one per subscription and event, so a retried job never notifies twice).

create table dispatch.push_config (
  id          integer primary key default 1 check (id = 1),
  public_key  text not null,
  private_key text not null,
  created_at  timestamptz not null default now()
);

create table dispatch.push_subscriptions (
  id           uuid primary key default gen_random_uuid(),
  endpoint     text not null unique,
  p256dh       text not null,
  auth         text not null,
  -- Which moments notify this device: task statuses, and loop_stopped.
  statuses     text[] not null default '{stalled,failed,crashed,rate_limited,extraction_failed,success,loop_stopped}',
  device       text,
  created_at   timestamptz not null default now(),
  last_sent_at timestamptz,
  failures     integer not null default 0
);

create table dispatch.push_deliveries (
  subscription_id uuid not null references dispatch.push_subscriptions on delete cascade,
  event_id        uuid not null references dispatch.events (event_id),
  status          integer not null,
  sent_at         timestamptz not null default now(),
  primary key (subscription_id, event_id)
);

insert into dispatch.event_types (name, tier, description) values
  ('push.subscription_removed', 'raw', 'a push subscription the push service called gone (404/410) was removed');

-- The moments worth a push: a task stalled, failed or finished, or the orchestrator's loop stopped.
create function dispatch.push_enqueue() returns trigger
  language plpgsql volatile as $$
begin
  if not exists (select 1 from dispatch.push_subscriptions) then
    return null;
  end if;
  if (new.event_type = 'task.status_changed'
        and new.payload->>'status' in ('stalled', 'failed', 'crashed', 'rate_limited', 'extraction_failed', 'success'))
     or (new.event_type = 'orchestrator.working_set' and jsonb_typeof(new.payload->'stop') = 'object') then
    -- One queue per task (or project): its notifications arrive in the order things happened,
    -- so the last one shown under its tag is the latest state.
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || coalesce(new.task_id, new.project_id)::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;

create trigger events_push after insert on dispatch.events
  for each row when (new.event_type in ('task.status_changed', 'orchestrator.working_set'))
  execute function dispatch.push_enqueue();
