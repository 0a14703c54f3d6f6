-- Two things every reader needs without knowing the substrate or keeping its own lists:
-- (1) events.summary: the substrate adapter's neutral reading of a stdout line, written by the
--     journal writer next to the raw payload (which stays the line itself, for forensics);
-- (2) what each status means, as columns of dispatch.statuses, read by the push trigger, the
--     project rollup, the orchestrator's turn input and (through GET /api/state) the clients.

-- (1) Null for the journal's own events. NOT VALID: every existing row is null, so there is
-- nothing to check, and a large journal is not scanned at upgrade; new rows are checked.
alter table dispatch.events add column summary jsonb;
alter table dispatch.events add constraint events_summary_object
  check (summary is null or jsonb_typeof(summary) = 'object') not valid;

-- (2)
alter table dispatch.statuses
  add column clean      boolean not null default false,
  add column alarming   boolean not null default false,
  add column failure    boolean not null default false,
  add column blocking   boolean not null default false,
  add column needs_user boolean not null default false,
  add column notifies   boolean not null default false;

comment on column dispatch.statuses.terminal is 'the work is over (ended_at is set)';
comment on column dispatch.statuses.clean is 'over and done right';
comment on column dispatch.statuses.alarming is 'shown as trouble in the views';
comment on column dispatch.statuses.failure is 'counted as failed in project_state';
comment on column dispatch.statuses.blocking is 'counted as blocked in project_state';
comment on column dispatch.statuses.needs_user is 'a person has to look';
comment on column dispatch.statuses.notifies is 'reaching it is a push moment';

update dispatch.statuses s
   set clean = v.clean, alarming = v.alarming, failure = v.failure, blocking = v.blocking,
       needs_user = v.needs_user, notifies = v.notifies
  from (values
    --                   clean  alarming failure blocking needs_user notifies
    ('queued',            false, false,   false,  false,   false,     false),
    ('running',           false, false,   false,  false,   false,     false),
    ('stalled',           false, false,   false,  true,    false,     true),
    ('success',           true,  false,   false,  false,   false,     true),
    ('failed',            false, true,    true,   false,   false,     true),
    ('crashed',           false, true,    true,   false,   false,     true),
    ('cancelled',         false, false,   false,  false,   false,     false),
    ('rate_limited',      false, true,    true,   false,   false,     true),
    ('partial',           false, false,   false,  true,    false,     false),
    ('skipped',           false, false,   false,  false,   false,     false),
    ('gated',             false, true,    false,  true,    true,      false),
    ('extraction_failed', false, true,    true,   true,    true,      true)
  ) as v(name, clean, alarming, failure, blocking, needs_user, notifies)
 where s.name = v.name;

-- The moments a device may subscribe to: the notifying statuses and the loop stopping.
create function dispatch.push_moments() returns text[]
  language sql stable as $$
  select array_agg(s.name order by s.name) || array['loop_stopped'] from dispatch.statuses s where s.notifies
$$;

alter table dispatch.push_subscriptions alter column statuses set default dispatch.push_moments();

-- The push trigger reads the table instead of a list of its own.
create or replace function dispatch.push_enqueue() returns trigger
  language plpgsql volatile as $$
begin
  if not exists (select 1 from dispatch.push_subscriptions) then
    return null;
  end if;
  if (new.event_type = 'task.status_changed'
        and exists (select 1 from dispatch.statuses s where s.name = new.payload->>'status' and s.notifies))
     or (new.event_type = 'orchestrator.working_set' and jsonb_typeof(new.payload->'stop') = 'object') then
    -- One queue per task (or project): its notifications arrive in the order things happened,
    -- so the last one shown under its tag is the latest state.
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || coalesce(new.task_id, new.project_id)::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;
