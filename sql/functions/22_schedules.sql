-- Schedules, re-applied on every migrate: a cron expression that submits a task at each firing.
-- The expression is parsed in the code (graphile-worker's crontab parser, core/cron.ts), which
-- passes the next run in; everything else — the firing, the skip, pause, delete — is here, each
-- journalled in the same transaction. The fire_schedules job runs every minute and at each start.

create or replace function dispatch.schedule_json(s dispatch.schedules) returns jsonb
  language sql stable as $$
  select jsonb_build_object(
    'id', s.id, 'project_id', s.project_id, 'cron', s.cron, 'time_zone', s.time_zone, 'brief', s.brief, 'approach', s.approach,
    'depends_on', to_jsonb(s.depends_on), 'next_run_at', dispatch.iso(s.next_run_at), 'paused', s.paused_at is not null,
    'paused_at', dispatch.iso(s.paused_at), 'pause_reason', s.pause_reason, 'last_fired_at', dispatch.iso(s.last_fired_at),
    'last_task_id', s.last_task_id,
    'last_task_status', (select t.status from dispatch.tasks t where t.id = s.last_task_id),
    'created_at', dispatch.iso(s.created_at))
$$;

-- Makes a schedule. next_run_at: the first run as the code computed it; null from psql (the
-- runner's next tick computes it, and pauses a schedule whose expression does not parse).
create or replace function dispatch.create_schedule(project_id uuid, cron text, brief text, approach text default null,
                                                    depends_on uuid[] default null, time_zone text default null,
                                                    next_run_at timestamptz default null)
  returns uuid language plpgsql volatile as $$
declare
  deps uuid[] := dispatch.checked_dependencies(create_schedule.project_id, create_schedule.depends_on);
  new_id uuid;
begin
  if create_schedule.brief is null or length(btrim(create_schedule.brief)) = 0 then
    raise exception 'a schedule needs a brief' using errcode = '23514';
  end if;
  insert into dispatch.schedules (project_id, cron, time_zone, brief, approach, depends_on, next_run_at)
    values (create_schedule.project_id, btrim(create_schedule.cron), create_schedule.time_zone, create_schedule.brief,
            create_schedule.approach, deps, create_schedule.next_run_at)
    returning id into new_id;
  insert into dispatch.events (project_id, event_type, payload)
    values (create_schedule.project_id, 'schedule.created',
            jsonb_build_object('schedule_id', new_id, 'cron', btrim(create_schedule.cron), 'time_zone', create_schedule.time_zone,
                               'brief', create_schedule.brief, 'next_run_at', dispatch.iso(create_schedule.next_run_at)));
  return new_id;
end $$;

-- The schedules due at `at` (or whose next run is not computed yet), for the fire_schedules job.
create or replace function dispatch.due_schedules(at timestamptz)
  returns table (id uuid, cron text, time_zone text, next_run_at timestamptz)
  language sql stable as $$
  select s.id, s.cron, s.time_zone, s.next_run_at from dispatch.schedules s
   where s.paused_at is null and (s.next_run_at is null or s.next_run_at <= due_schedules.at)
   order by s.next_run_at nulls first
$$;

-- One firing, at `at`, of a schedule that was due; next_run_at is the first run after `at`. Runs
-- missed while nothing ran are one firing: next_run_at moves past `at`, not one minute on. Under
-- the schedule's row lock, so two runners ticking at once fire it once. Returns what it did:
-- fired (with the task), skipped (its previous task still runs), or nothing (not due, paused, gone).
create or replace function dispatch.fire_schedule(schedule_id uuid, at timestamptz, next_run_at timestamptz)
  returns jsonb language plpgsql volatile as $$
declare
  s dispatch.schedules;
  prev dispatch.tasks;
  new_id uuid;
  out jsonb;
begin
  select * into s from dispatch.schedules sc where sc.id = fire_schedule.schedule_id for update;
  if not found or s.paused_at is not null then
    return jsonb_build_object('outcome', 'none');
  end if;
  if s.next_run_at is null then
    update dispatch.schedules sc set next_run_at = fire_schedule.next_run_at where sc.id = s.id;
    return jsonb_build_object('outcome', 'scheduled', 'next_run_at', dispatch.iso(fire_schedule.next_run_at));
  end if;
  if s.next_run_at > fire_schedule.at then
    return jsonb_build_object('outcome', 'none');
  end if;
  select * into prev from dispatch.tasks t where t.id = s.last_task_id;
  if prev.id is not null and prev.ended_at is null then
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (s.project_id, prev.id, 'schedule.skipped',
              jsonb_build_object('schedule_id', s.id, 'scheduled_for', dispatch.iso(s.next_run_at), 'running_task_id', prev.id,
                                 'reason', format('its previous task is still %s', prev.status),
                                 'next_run_at', dispatch.iso(fire_schedule.next_run_at)));
    out := jsonb_build_object('outcome', 'skipped', 'running_task_id', prev.id);
  else
    new_id := dispatch.submit_task(s.project_id, s.brief, s.approach,
                                   depends_on => case when cardinality(s.depends_on) > 0 then s.depends_on end);
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (s.project_id, new_id, 'schedule.fired',
              jsonb_build_object('schedule_id', s.id, 'task_id', new_id, 'scheduled_for', dispatch.iso(s.next_run_at),
                                 'fired_at', dispatch.iso(fire_schedule.at), 'next_run_at', dispatch.iso(fire_schedule.next_run_at),
                                 'late', fire_schedule.at - s.next_run_at >= interval '1 minute'));
    update dispatch.schedules sc set last_fired_at = fire_schedule.at, last_task_id = new_id where sc.id = s.id;
    out := jsonb_build_object('outcome', 'fired', 'task_id', new_id);
  end if;
  update dispatch.schedules sc set next_run_at = fire_schedule.next_run_at where sc.id = s.id;
  return out || jsonb_build_object('next_run_at', dispatch.iso(fire_schedule.next_run_at));
end $$;

create or replace function dispatch.pause_schedule(schedule_id uuid, reason text default null) returns jsonb
  language plpgsql volatile as $$
declare
  s dispatch.schedules;
begin
  update dispatch.schedules sc set paused_at = coalesce(sc.paused_at, now()), pause_reason = coalesce(pause_schedule.reason, sc.pause_reason)
   where sc.id = pause_schedule.schedule_id returning * into s;
  if not found then
    raise exception 'no schedule %', pause_schedule.schedule_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, event_type, payload)
    values (s.project_id, 'schedule.paused', jsonb_strip_nulls(jsonb_build_object('schedule_id', s.id, 'reason', pause_schedule.reason)));
  return dispatch.schedule_json(s);
end $$;

-- Resumes a paused schedule from now: next_run_at as the code computed it (null: the next tick does).
create or replace function dispatch.resume_schedule(schedule_id uuid, next_run_at timestamptz default null) returns jsonb
  language plpgsql volatile as $$
declare
  s dispatch.schedules;
begin
  update dispatch.schedules sc set paused_at = null, pause_reason = null, next_run_at = resume_schedule.next_run_at
   where sc.id = resume_schedule.schedule_id returning * into s;
  if not found then
    raise exception 'no schedule %', resume_schedule.schedule_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, event_type, payload)
    values (s.project_id, 'schedule.resumed', jsonb_build_object('schedule_id', s.id, 'next_run_at', dispatch.iso(s.next_run_at)));
  return dispatch.schedule_json(s);
end $$;

-- Deletes a schedule; the tasks it submitted stay.
create or replace function dispatch.delete_schedule(schedule_id uuid) returns boolean
  language plpgsql volatile as $$
declare
  s dispatch.schedules;
begin
  delete from dispatch.schedules sc where sc.id = delete_schedule.schedule_id returning * into s;
  if not found then
    raise exception 'no schedule %', delete_schedule.schedule_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, event_type, payload)
    values (s.project_id, 'schedule.deleted', jsonb_build_object('schedule_id', s.id, 'cron', s.cron, 'brief', s.brief));
  return true;
end $$;

-- Fires what is due now, from psql or at a start: queues the fire_schedules job (once).
create or replace function dispatch.run_due_schedules() returns void
  language plpgsql volatile as $$
begin
  perform graphile_worker.add_job('fire_schedules', '{}'::json, job_key := 'fire_schedules', max_attempts := 3);
end $$;
