-- The account's quota state (dispatch.quota): recording a rate limit, reading it, and holding a
-- worker back until it lifts.

-- A session's stream said the account is rate limited. `until` is the reset time or retry delay the
-- stream gave, or null (then the return policy's back-off for rate_limited). Extends the state
-- (never shortens it) and journals quota.limited when it moves.
create or replace function dispatch.rate_limited(session_id uuid, until timestamptz, reason text) returns timestamptz
  language plpgsql volatile as $$
declare
  s dispatch.sessions;
  t timestamptz := rate_limited.until;
  q dispatch.quota;
begin
  select * into s from dispatch.sessions ss where ss.id = rate_limited.session_id;
  if t is null then
    select now() + make_interval(secs => coalesce(max(p.delay_seconds), 300)) into t
      from dispatch.return_policies p where p.status = 'rate_limited' and p.cause = 'exit';
  end if;
  update dispatch.quota qq
     set limited_until = t, reason = rate_limited.reason, session_id = s.id, updated_at = now()
   where qq.id = 1 and (qq.limited_until is null or qq.limited_until < t)
  returning * into q;
  if found then
    insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
      values (s.project_id, s.id, s.task_id, 'quota.limited',
              jsonb_build_object('until', dispatch.iso(t), 'reason', rate_limited.reason, 'session_id', s.id));
  end if;
  return (select limited_until from dispatch.quota where id = 1);
end $$;

-- {limited, until, reason, session_id, updated_at, waiting_tasks}: whether the account is rate
-- limited now, until when, and how many workers wait for it.
create or replace function dispatch.quota_state() returns jsonb
  language sql stable as $$
  select jsonb_build_object(
    'limited', coalesce(q.limited_until > now(), false),
    'until', case when q.limited_until is not null then dispatch.iso(q.limited_until) end,
    'reason', q.reason,
    'session_id', q.session_id,
    'updated_at', dispatch.iso(q.updated_at),
    'waiting_tasks', case when q.limited_until > now() then
        (select count(*) from dispatch.tasks t where t.status = 'queued' and t.status_reason like 'waiting: rate limited%')
      else 0 end)
  from dispatch.quota q where q.id = 1
$$;

-- Called before a task's worker starts: while the account is rate limited the task stays queued
-- (reason "waiting: rate limited until T"), its worker is enqueued again for T, and T is returned;
-- otherwise null, and the worker starts.
create or replace function dispatch.wait_for_quota(task_id uuid) returns timestamptz
  language plpgsql volatile as $$
declare
  u timestamptz;
  t dispatch.tasks;
  why text;
begin
  select limited_until into u from dispatch.quota where id = 1;
  if u is null or u <= now() then
    return null;
  end if;
  select * into t from dispatch.tasks tk where tk.id = wait_for_quota.task_id for update;
  if not found or t.ended_at is not null then
    return null;
  end if;
  why := 'waiting: rate limited until ' || dispatch.iso(u);
  if t.status is distinct from 'queued' or t.status_reason is distinct from why then
    perform dispatch.set_task_status(t.id, 'queued', why, jsonb_build_object('until', dispatch.iso(u)));
  end if;
  perform graphile_worker.add_job('spawn_worker', json_build_object('task_id', t.id),
                                  run_at := u, job_key := 'spawn_worker:' || t.id, max_attempts := 25);
  return u;
end $$;
