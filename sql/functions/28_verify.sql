-- Verification, re-applied on every migrate: the project's check (config.verify) run by the runner
-- after a worker exits clean, before extraction (jobs/tasks/verify_task.ts). These functions are
-- where its facts enter the journal and where a failing check's consequence is decided.

-- The check of one attempt started (or was started again: its runner died before it finished).
create or replace function dispatch.verify_started(task_id uuid, attempt integer, command jsonb, cwd text,
                                                   pid integer, host text, runner_id text, rerun boolean default false)
  returns uuid language plpgsql volatile as $$
declare
  t dispatch.tasks;
  ev uuid;
begin
  select * into t from dispatch.tasks tk where tk.id = verify_started.task_id;
  if not found then
    raise exception 'no task %', verify_started.task_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'verify.started',
            jsonb_build_object('attempt', verify_started.attempt, 'command', verify_started.command, 'cwd', verify_started.cwd,
                               'pid', verify_started.pid, 'host', verify_started.host, 'runner_id', verify_started.runner_id,
                               'rerun', verify_started.rerun))
    returning event_id into ev;
  return ev;
end $$;

-- The verdict of an attempt's check, once: a second call for the same attempt (a re-run racing a
-- late writer) journals nothing and returns the verdict already journalled. Locks the task row so
-- two writers of one attempt take turns.
create or replace function dispatch.verify_finished(task_id uuid, attempt integer, verdict jsonb)
  returns jsonb language plpgsql volatile as $$
declare
  t dispatch.tasks;
  known jsonb;
begin
  select * into t from dispatch.tasks tk where tk.id = verify_finished.task_id for update;
  if not found then
    raise exception 'no task %', verify_finished.task_id using errcode = 'P0002';
  end if;
  known := dispatch.attempt_check(t.id, verify_finished.attempt);
  if known is not null then
    return known;
  end if;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'verify.finished', verify_finished.verdict || jsonb_build_object('attempt', verify_finished.attempt));
  return verify_finished.verdict || jsonb_build_object('attempt', verify_finished.attempt);
end $$;

-- The verdict of one attempt's check (null: it has not finished).
create or replace function dispatch.attempt_check(task_id uuid, attempt integer) returns jsonb
  language sql stable as $$
  select e.payload from dispatch.events e
   where e.task_id = attempt_check.task_id and e.event_type = 'verify.finished'
     and (e.payload ->> 'attempt')::int = attempt_check.attempt
   order by e.seq limit 1
$$;

-- The task's last check verdict, whatever attempt it was (null: no check ever finished).
create or replace function dispatch.last_check(task_id uuid) returns jsonb
  language sql stable as $$
  select e.payload from dispatch.events e
   where e.task_id = last_check.task_id and e.event_type = 'verify.finished'
   order by e.seq desc limit 1
$$;

-- The attempt's change as workspace.changed journalled it (null without a workspace).
create or replace function dispatch.attempt_change(task_id uuid, attempt integer) returns jsonb
  language sql stable as $$
  select e.payload from dispatch.events e
   where e.task_id = attempt_change.task_id and e.event_type = 'workspace.changed'
     and (e.payload ->> 'attempt')::int = attempt_change.attempt
   order by e.seq limit 1
$$;

-- The current attempt's check failed: the return policy's ('failed', 'check') row decides. An
-- attempt that was itself a fix and changed nothing (its change identical to the previous
-- attempt's) ends the loop at once as stuck; otherwise the worker's conversation resumes with
-- `prompt` (retry_modified) until the fixes allowed are used, then the task ends failed. Both ends
-- are a person's to look at (escalate_user: Needs you). Returns what was done.
create or replace function dispatch.check_failed(task_id uuid, prompt text) returns text
  language plpgsql volatile as $$
declare
  t dispatch.tasks;
  p dispatch.return_policies;
  verdict jsonb;
  fixes integer;
  allowed integer;
  cur jsonb;
  prev jsonb;
  why text;
begin
  select * into t from dispatch.tasks tk where tk.id = check_failed.task_id for update;
  if not found then
    raise exception 'no task %', check_failed.task_id using errcode = 'P0002';
  end if;
  verdict := dispatch.attempt_check(t.id, t.attempt);
  select * into p from dispatch.return_policies rp where rp.status = 'failed' and rp.cause = 'check';
  select count(*)::int into fixes from dispatch.events e
   where e.task_id = t.id and e.event_type = 'worker.resume_requested' and e.payload ->> 'reason' = 'check_failed';
  select coalesce((pr.config -> 'verify' ->> 'max_fix_attempts')::int, coalesce(p.max_attempts, 3) - 1)
    into allowed from dispatch.projects pr where pr.id = t.project_id;

  if dispatch.resume_request(t.id, t.attempt) ->> 'reason' = 'check_failed' then
    cur := dispatch.attempt_change(t.id, t.attempt);
    prev := dispatch.attempt_change(t.id, t.attempt - 1);
    if cur is not null and prev is not null and cur ->> 'patch' is not distinct from prev ->> 'patch'
       and cur -> 'files' = prev -> 'files' then
      why := 'stuck: the fix changed nothing';
    end if;
  end if;

  if why is null and coalesce(p.action, 'escalate_user') = 'retry_modified' and fixes < allowed then
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (t.project_id, t.id, 'policy.decision',
              jsonb_build_object('status', 'failed', 'cause', 'check', 'action', 'retry_modified', 'attempt', t.attempt,
                                 'next_attempt', t.attempt + 1, 'fix', fixes + 1, 'fixes_allowed', allowed,
                                 'exit_code', verdict -> 'exit_code', 'note', p.note));
    perform dispatch.resume_worker_conversation(t.id, check_failed.prompt, 'check_failed',
                                                jsonb_build_object('fix', fixes + 1, 'fixes_allowed', allowed,
                                                                   'verify', verdict - 'output_tail'));
    return 'retry_modified';
  end if;

  why := coalesce(why, format('verification failed after %s fix%s', fixes, case when fixes = 1 then '' else 'es' end));
  perform dispatch.set_task_status(t.id, 'failed', why,
                                   jsonb_build_object('cause', 'check', 'stuck', why like 'stuck:%', 'verify', verdict));
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'policy.decision',
            jsonb_build_object('status', 'failed', 'cause', 'check', 'action', 'escalate_user', 'attempt', t.attempt,
                               'fixes', fixes, 'fixes_allowed', allowed, 'reason', why));
  perform dispatch.wake_if_waiting(t.project_id);
  return case when why like 'stuck:%' then 'stuck' else 'escalate_user' end;
end $$;
