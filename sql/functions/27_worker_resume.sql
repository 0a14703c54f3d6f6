-- Resuming a task's worker conversation with a prompt, re-applied on every migrate. One mechanism
-- for every "go on from where you were, with this": a failing check's output (the fix loop), a
-- person's message to a worker. The conversation is the task's last worker session (its substrate
-- session id), the place is its worktree, and the run is a new attempt of the same task — journalled
-- as worker.resume_requested with the prompt verbatim and the worktree's head commit at that moment.
-- The continue_worker job (jobs/tasks/continue_worker.ts) runs it.

-- The task's newest worker session that has a conversation to resume; null when there is none.
create or replace function dispatch.resumable_worker_session(task_id uuid) returns dispatch.sessions
  language sql stable as $$
  select * from dispatch.sessions s
   where s.task_id = resumable_worker_session.task_id and s.role = 'worker' and s.claude_session_id is not null
   order by s.created_at desc limit 1
$$;

create or replace function dispatch.resume_worker_conversation(task_id uuid, prompt text, reason text,
                                                               details jsonb default '{}'::jsonb)
  returns uuid language plpgsql volatile as $$
declare
  t dispatch.tasks;
  s dispatch.sessions;
  head text;
  ev uuid;
begin
  select * into t from dispatch.tasks tk where tk.id = resume_worker_conversation.task_id for update;
  if not found then
    raise exception 'no task %', resume_worker_conversation.task_id using errcode = 'P0002';
  end if;
  if resume_worker_conversation.prompt is null or length(btrim(resume_worker_conversation.prompt)) = 0 then
    raise exception 'a resumed conversation needs a prompt' using errcode = '23514';
  end if;
  if exists (select 1 from dispatch.sessions ss where ss.task_id = t.id and ss.role = 'worker' and ss.ended_at is null) then
    raise exception 'task % has a worker running: its conversation resumes once it ends', t.id using errcode = '55000';
  end if;
  s := dispatch.resumable_worker_session(t.id);
  if s.id is null then
    raise exception 'task % has no worker conversation to resume', t.id using errcode = '55000';
  end if;
  select w.head_commit into head from dispatch.workspaces w where w.task_id = t.id order by w.attempt desc limit 1;
  update dispatch.tasks tk set attempt = tk.attempt + 1, cancel_requested_at = null where tk.id = t.id;
  insert into dispatch.events (project_id, task_id, session_id, event_type, payload)
    values (t.project_id, t.id, s.id, 'worker.resume_requested',
            jsonb_build_object('prompt', resume_worker_conversation.prompt, 'reason', resume_worker_conversation.reason,
                               'from_session', s.id, 'from_attempt', t.attempt, 'attempt', t.attempt + 1,
                               'head_commit', head) || coalesce(resume_worker_conversation.details, '{}'::jsonb))
    returning event_id into ev;
  perform dispatch.set_task_status(t.id, 'queued', format('attempt %s: the worker resumes (%s)', t.attempt + 1, resume_worker_conversation.reason),
                                   jsonb_build_object('resume_of_attempt', t.attempt));
  perform graphile_worker.add_job('continue_worker', json_build_object('task_id', t.id),
                                  job_key := 'continue_worker:' || t.id, max_attempts := 25);
  return ev;
end $$;

comment on function dispatch.resume_worker_conversation(uuid, text, text, jsonb) is
  'Resumes the task''s last worker conversation with a prompt as a new attempt in the same worktree: journals worker.resume_requested (with the head commit) and enqueues continue_worker, in one transaction. Returns the event id.';

-- The resume request of the task's current attempt, if this attempt is a resumed one.
create or replace function dispatch.resume_request(task_id uuid, attempt integer) returns jsonb
  language sql stable as $$
  select e.payload from dispatch.events e
   where e.task_id = resume_request.task_id and e.event_type = 'worker.resume_requested'
     and (e.payload ->> 'attempt')::int = resume_request.attempt
   order by e.seq desc limit 1
$$;
