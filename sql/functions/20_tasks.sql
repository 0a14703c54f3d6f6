-- Task functions, re-applied on every migrate. The psql interface and the code share these.

create or replace function dispatch.set_task_status(task_id uuid, status text, reason text default null,
                                                    details jsonb default '{}'::jsonb)
  returns uuid language plpgsql volatile as $$
declare
  t dispatch.tasks;
  is_terminal boolean;
  ev uuid;
begin
  select s.terminal into is_terminal from dispatch.statuses s where s.name = set_task_status.status;
  if is_terminal is null then
    raise exception 'unknown status %', set_task_status.status using errcode = '22023';
  end if;
  update dispatch.tasks tk
     set status = set_task_status.status,
         status_reason = set_task_status.reason,
         started_at = case when set_task_status.status = 'running' then coalesce(tk.started_at, now()) else tk.started_at end,
         ended_at = case when is_terminal then now() else null end,
         last_activity_at = now()
   where tk.id = set_task_status.task_id
  returning * into t;
  if not found then
    raise exception 'no task %', set_task_status.task_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'task.status_changed',
            jsonb_build_object('status', t.status, 'reason', t.status_reason, 'attempt', t.attempt) || details)
    returning event_id into ev;
  -- A task that ended with no change leaves no worktree or branch behind (60_workspaces.sql).
  if is_terminal and t.status <> 'gated' then
    perform dispatch.tidy_empty_workspace(t.id);
  end if;
  return ev;
end $$;

create or replace function dispatch.submit_task(project_id uuid, brief text, approach text default null,
                                                parent_id uuid default null, plan_ref text default null,
                                                spawned_by uuid default null, depends_on uuid[] default null)
  returns uuid language plpgsql volatile as $$
declare
  new_id uuid;
  cause uuid;
  deps uuid[] := dispatch.checked_dependencies(submit_task.project_id, submit_task.depends_on);
begin
  if submit_task.brief is null or length(btrim(submit_task.brief)) = 0 then
    raise exception 'a task needs a brief' using errcode = '23514';
  end if;
  insert into dispatch.tasks (project_id, parent_id, brief, approach, plan_ref, spawned_by_session)
    values (submit_task.project_id, submit_task.parent_id, submit_task.brief, submit_task.approach,
            submit_task.plan_ref, submit_task.spawned_by)
    returning id into new_id;
  -- The causal link: a task spawned by an orchestrator turn nests under that turn's session.spawned.
  if submit_task.spawned_by is not null then
    select e.event_id into cause from dispatch.events e
     where e.session_id = submit_task.spawned_by and e.event_type = 'session.spawned' order by e.seq limit 1;
  end if;
  insert into dispatch.events (project_id, task_id, parent_id, event_type, payload)
    values (submit_task.project_id, new_id, cause, 'task.submitted',
            jsonb_strip_nulls(jsonb_build_object('brief', submit_task.brief, 'approach', submit_task.approach,
                                                 'parent_id', submit_task.parent_id, 'plan_ref', submit_task.plan_ref,
                                                 'spawned_by', submit_task.spawned_by, 'attempt', 1,
                                                 'depends_on', case when cardinality(deps) > 0 then to_jsonb(deps) end)));
  if cardinality(deps) = 0 then
    perform graphile_worker.add_job('spawn_worker', json_build_object('task_id', new_id),
                                    job_key := 'spawn_worker:' || new_id, max_attempts := 25);
    return new_id;
  end if;
  -- It waits: its worker is queued by the ending of its last dependency (21_dependencies.sql), or
  -- now when every one of them ended clean already.
  insert into dispatch.task_dependencies (task_id, depends_on) select new_id, d from unnest(deps) d;
  update dispatch.tasks tk set status_reason = dispatch.waiting_reason(new_id) where tk.id = new_id;
  perform dispatch.release_if_ready(new_id, null);
  return new_id;
end $$;

comment on function dispatch.submit_task(uuid, text, text, uuid, text, uuid, uuid[]) is
  'Creates a task, journals task.submitted and enqueues spawn_worker, in one transaction; with depends_on, the worker is queued when every dependency ended clean. Returns the task id.';

-- Asks for a task to stop. A queued task is cancelled at once; a running one is stopped by the
-- runner that owns its process (it LISTENs on dispatch_cancel and polls as a safety net).
create or replace function dispatch.cancel_task(task_id uuid) returns text
  language plpgsql volatile as $$
declare
  t dispatch.tasks;
  live boolean;
begin
  select * into t from dispatch.tasks tk where tk.id = cancel_task.task_id for update;
  if not found then
    raise exception 'no task %', cancel_task.task_id using errcode = 'P0002';
  end if;
  if t.ended_at is not null then
    return t.status; -- already over: nothing to cancel
  end if;
  update dispatch.tasks tk set cancel_requested_at = coalesce(tk.cancel_requested_at, now()) where tk.id = t.id;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'task.cancel_requested', jsonb_build_object('status_before', t.status));
  select exists (select 1 from dispatch.sessions s where s.task_id = t.id and s.ended_at is null) into live;
  if not live then
    perform graphile_worker.remove_job('spawn_worker:' || t.id);
    perform dispatch.set_task_status(t.id, 'cancelled', 'cancelled before it started');
    return 'cancelled';
  end if;
  perform pg_notify('dispatch_cancel', t.id::text);
  return 'cancelling';
end $$;

-- A person runs a task that ended not clean once more (the "Retry" of Needs you: an
-- extraction_failed task, or one the policy escalated to them): a new attempt of the same task, as
-- the return policy's retry makes, journalled as the task going back to queued. A gated task waits
-- for its gate instead, and a task not over or over clean has nothing to retry.
create or replace function dispatch.retry_task(task_id uuid) returns uuid
  language plpgsql volatile as $$
declare
  t dispatch.tasks;
  ok boolean;
  ev uuid;
begin
  select * into t from dispatch.tasks tk where tk.id = retry_task.task_id for update;
  if not found then
    raise exception 'no task %', retry_task.task_id using errcode = 'P0002';
  end if;
  select st.terminal and not st.clean and st.name <> 'gated' into ok from dispatch.statuses st where st.name = t.status;
  if not coalesce(ok, false) then
    raise exception 'task % is %: only a task that ended not clean can be retried%', t.id, t.status,
      case when t.status = 'gated' then ' (decide its gate instead)' else '' end
      using errcode = '55000';
  end if;
  update dispatch.tasks tk set attempt = tk.attempt + 1, cancel_requested_at = null where tk.id = t.id;
  ev := dispatch.set_task_status(t.id, 'queued', format('retried after %s', t.status), jsonb_build_object('retry_of', t.status));
  perform graphile_worker.add_job('spawn_worker', json_build_object('task_id', t.id),
                                  job_key := 'spawn_worker:' || t.id, max_attempts := 25);
  return ev;
end $$;

comment on function dispatch.retry_task(uuid) is
  'Runs a task that ended not clean (not gated) again as a new attempt: back to queued (task.status_changed) and spawn_worker enqueued, in one transaction.';

-- The not-clean-return policy (Phase 2), driven by dispatch.return_policies. Journals its decision
-- and, for a retry, queues the next attempt in the same transaction.
create or replace function dispatch.apply_return_policy(task_id uuid) returns text
  language plpgsql volatile as $$
declare
  t dispatch.tasks;
  p dispatch.return_policies;
  action text;
  run_at timestamptz := now();
begin
  select * into t from dispatch.tasks tk where tk.id = apply_return_policy.task_id for update;
  if not found then
    raise exception 'no task %', apply_return_policy.task_id using errcode = 'P0002';
  end if;
  select * into p from dispatch.return_policies rp where rp.status = t.status and rp.cause = 'exit';
  if not found then
    perform dispatch.wake_if_waiting(t.project_id);
    return 'none'; -- success and the live statuses have no policy
  end if;
  action := p.action;
  if action in ('retry_same', 'retry_modified', 'back_off') and t.attempt >= p.max_attempts then
    action := 'escalate_user';
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (t.project_id, t.id, 'policy.decision',
              jsonb_build_object('status', t.status, 'action', 'escalate_user', 'policy_action', p.action,
                                 'attempt', t.attempt, 'reason', format('%s attempts used', t.attempt)));
    perform dispatch.wake_if_waiting(t.project_id);
    return action;
  end if;
  if action in ('retry_same', 'retry_modified', 'back_off') then
    run_at := now() + make_interval(secs => p.delay_seconds);
    update dispatch.tasks tk
       set attempt = tk.attempt + 1, status = 'queued', ended_at = null, cancel_requested_at = null,
           status_reason = format('attempt %s after %s', tk.attempt + 1, t.status)
     where tk.id = t.id;
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (t.project_id, t.id, 'policy.decision',
              jsonb_build_object('status', t.status, 'action', action, 'attempt', t.attempt,
                                 'next_attempt', t.attempt + 1, 'run_at', run_at, 'note', p.note));
    perform graphile_worker.add_job('spawn_worker', json_build_object('task_id', t.id),
                                    run_at := run_at, job_key := 'spawn_worker:' || t.id, max_attempts := 25);
    return action;
  end if;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'policy.decision',
            jsonb_build_object('status', t.status, 'action', action, 'attempt', t.attempt, 'note', p.note));
  if action = 'escalate_orchestrator' then
    perform dispatch.request_turn(t.project_id, 'escalated: ' || t.status);
  else
    perform dispatch.wake_if_waiting(t.project_id);
  end if;
  return action;
end $$;
