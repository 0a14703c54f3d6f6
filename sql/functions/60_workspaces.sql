-- Workspace functions (one git worktree per task attempt), re-applied on every migrate. The runner
-- calls the workspace_* ones after git did its part; people call merge_task, discard_task,
-- continue_task and resolve_task (psql, HTTP and the operator CLI share them).

-- The newest attempt's workspace of a task, locked.
create or replace function dispatch.task_workspace(task_id uuid) returns dispatch.workspaces
  language sql volatile as $$
  select * from dispatch.workspaces w where w.task_id = task_workspace.task_id
   order by w.attempt desc limit 1 for update
$$;

-- A worktree was made (or found again, on re-adoption): records it and journals workspace.created
-- once. Earlier attempts of the task are superseded (their worktrees and branches stay).
create or replace function dispatch.workspace_created(task_id uuid, attempt integer, repo text, base text, branch text,
                                                      path text, from_ref text, base_commit text)
  returns boolean language plpgsql volatile as $$
declare
  t dispatch.tasks;
  new_id uuid;
begin
  select * into t from dispatch.tasks tk where tk.id = workspace_created.task_id;
  if not found then
    raise exception 'no task %', workspace_created.task_id using errcode = 'P0002';
  end if;
  insert into dispatch.workspaces (project_id, task_id, attempt, repo, base, branch, path, from_ref, base_commit)
    values (t.project_id, t.id, workspace_created.attempt, workspace_created.repo, workspace_created.base,
            workspace_created.branch, workspace_created.path, workspace_created.from_ref, workspace_created.base_commit)
    on conflict do nothing
    returning id into new_id;
  if new_id is null then
    return false;
  end if;
  update dispatch.workspaces w set state = 'superseded', updated_at = now()
   where w.task_id = t.id and w.attempt < workspace_created.attempt and w.state in ('active', 'ready', 'empty');
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'workspace.created',
            jsonb_build_object('workspace_id', new_id, 'path', workspace_created.path, 'branch', workspace_created.branch,
                               'base', workspace_created.base, 'from', workspace_created.from_ref,
                               'base_commit', workspace_created.base_commit, 'attempt', workspace_created.attempt));
  return true;
end $$;

-- The worker ended and its leftovers are committed: journals workspace.changed once (the change:
-- branch, commits, files, bounded patch) and leaves the change waiting for a decision.
create or replace function dispatch.workspace_changed(task_id uuid, attempt integer, head_commit text, change jsonb,
                                                      conflicts jsonb default '[]'::jsonb, conflict_detail text default null)
  returns boolean language plpgsql volatile as $$
declare
  w dispatch.workspaces;
begin
  select * into w from dispatch.workspaces ws
   where ws.task_id = workspace_changed.task_id and ws.attempt = workspace_changed.attempt for update;
  if not found or w.state <> 'active' then
    return false; -- journalled already (a re-run after a crash), or none
  end if;
  update dispatch.workspaces ws
     set head_commit = workspace_changed.head_commit,
         state = case when jsonb_array_length(coalesce(change -> 'files', '[]'::jsonb)) = 0 then 'empty' else 'ready' end,
         conflicts = coalesce(workspace_changed.conflicts, '[]'::jsonb),
         conflict_detail = workspace_changed.conflict_detail,
         checked_at = now(), updated_at = now()
   where ws.id = w.id;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (w.project_id, w.task_id, 'workspace.changed',
            change || jsonb_build_object('workspace_id', w.id, 'branch', w.branch, 'base', w.base,
                                         'base_commit', w.base_commit, 'head_commit', workspace_changed.head_commit,
                                         'attempt', w.attempt, 'conflicts', coalesce(workspace_changed.conflicts, '[]'::jsonb)));
  return true;
end $$;

-- The workspace could not be made: journals why (the task then ends failed).
create or replace function dispatch.workspace_failed(task_id uuid, code text, message text) returns void
  language sql volatile as $$
  insert into dispatch.events (project_id, task_id, event_type, payload)
  select t.project_id, t.id, 'workspace.failed', jsonb_build_object('code', code, 'message', message, 'attempt', t.attempt)
    from dispatch.tasks t where t.id = workspace_failed.task_id
$$;

-- A re-check of a waiting change against base (after base moved): no journal row, the cache only.
create or replace function dispatch.workspace_checked(workspace_id uuid, conflicts jsonb, conflict_detail text default null)
  returns void language sql volatile as $$
  update dispatch.workspaces w set conflicts = coalesce(workspace_checked.conflicts, '[]'::jsonb),
         conflict_detail = workspace_checked.conflict_detail, checked_at = now(), updated_at = now()
   where w.id = workspace_checked.workspace_id
$$;

-- Why a workspace cannot be decided now, or null when it can.
create or replace function dispatch.workspace_undecidable(w dispatch.workspaces) returns jsonb
  language sql immutable as $$
  select case
    when w.id is null then jsonb_build_object('outcome', 'no_workspace', 'message', 'the task has no workspace (its project has no repo)')
    when w.state = 'active' then jsonb_build_object('outcome', 'busy', 'state', w.state, 'message', 'its worker is still running')
    when w.state in ('merging', 'discarding') then jsonb_build_object('outcome', 'busy', 'state', w.state, 'message', 'a decision is being carried out')
    when w.state in ('merged', 'discarded', 'continued', 'superseded') then
      jsonb_build_object('outcome', 'decided', 'state', w.state, 'message', format('the change was %s already', w.state))
  end
$$;

-- A decision the person took on a decidable change: the workspace goes to merging/discarding, the
-- job that carries it out is queued (once per workspace: job_key), and the request is journalled.
create or replace function dispatch.queue_workspace_decision(w dispatch.workspaces, action text, detail jsonb) returns jsonb
  language plpgsql volatile as $$
declare
  identifier text := case action when 'merge' then 'merge_workspace' when 'discard' then 'discard_workspace' end;
  job graphile_worker._private_jobs;
begin
  update dispatch.workspaces ws set state = case action when 'merge' then 'merging' else 'discarding' end, updated_at = now()
   where ws.id = w.id;
  job := graphile_worker.add_job(identifier, json_build_object('task_id', w.task_id),
                                 job_key := identifier || ':' || w.id, max_attempts := 5);
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (w.project_id, w.task_id, 'workspace.' || action || '_requested',
            jsonb_build_object('workspace_id', w.id, 'branch', w.branch, 'job_id', job.id) || detail);
  return jsonb_build_object('outcome', 'queued', 'task_id', w.task_id, 'action', action,
                            'job', jsonb_build_object('id', job.id::text, 'task_identifier', identifier, 'key', job.key));
end $$;

-- A task ended and its change is known to be empty (nothing committed on its branch): the worktree
-- and the branch are removed by the discard job, as a person's Discard would, journalled as
-- workspace.discard_requested with by = 'dispatch' and then workspace.discarded. A gated task keeps
-- its worktree (its worker carries on there), and a change not yet described is left alone.
create or replace function dispatch.tidy_empty_workspace(task_id uuid) returns boolean
  language plpgsql volatile as $$
declare
  w dispatch.workspaces;
begin
  w := dispatch.task_workspace(tidy_empty_workspace.task_id);
  if w.id is null or w.state <> 'empty' then
    return false;
  end if;
  perform dispatch.queue_workspace_decision(w, 'discard', jsonb_build_object('by', 'dispatch', 'reason', 'the task ended with no change'));
  return true;
end $$;

-- Merge the task's branch into base: queues the merge_workspace job (202), or answers with the
-- files that conflict with base at the last check (409). Journals the request with the job. A
-- project with a check (config.verify) merges only a task whose last check passed: otherwise the
-- answer is not_verified with that check's verdict (null: it never ran), unless `force` — a
-- person's choice, journalled on the merge request with the verdict it overrode.
create or replace function dispatch.merge_task(task_id uuid, force boolean default false) returns jsonb
  language plpgsql volatile as $$
declare
  w dispatch.workspaces;
  no jsonb;
  has_check boolean;
  verdict jsonb;
  detail jsonb;
begin
  if not exists (select 1 from dispatch.tasks t where t.id = merge_task.task_id) then
    raise exception 'no task %', merge_task.task_id using errcode = 'P0002';
  end if;
  w := dispatch.task_workspace(merge_task.task_id);
  no := dispatch.workspace_undecidable(w);
  if no is not null then
    return no || jsonb_build_object('task_id', merge_task.task_id);
  end if;
  if w.state = 'empty' then
    return jsonb_build_object('outcome', 'empty', 'task_id', w.task_id, 'message', 'the change is empty: nothing to merge');
  end if;
  -- A stacked change is merged after what it builds on (61_stacked_workspaces.sql).
  no := dispatch.stack_unmerged(w);
  if no is not null then
    return no;
  end if;
  if jsonb_array_length(w.conflicts) > 0 then
    return jsonb_build_object('outcome', 'conflict', 'task_id', w.task_id, 'branch', w.branch, 'base', w.base,
                              'files', w.conflicts,
                              'message', format('%s conflicts with %s in %s; Resolve starts a task on the branch to fix it',
                                                w.branch, w.base, (select string_agg(f, ', ') from jsonb_array_elements_text(w.conflicts) f)));
  end if;
  detail := jsonb_build_object('base', w.base);
  select p.config ? 'verify' into has_check from dispatch.projects p where p.id = w.project_id;
  if has_check then
    verdict := dispatch.last_check(w.task_id);
    if verdict is null or not coalesce((verdict ->> 'passed')::boolean, false) then
      if not coalesce(merge_task.force, false) then
        return jsonb_build_object('outcome', 'not_verified', 'task_id', w.task_id, 'verify', verdict,
                                  'message', case when verdict is null then 'the project has a check and it never ran for this task'
                                                  else format('the last check failed (%s); merge with force to override',
                                                              coalesce('exit ' || (verdict ->> 'exit_code'), verdict ->> 'reason', 'no exit code')) end);
      end if;
      detail := detail || jsonb_build_object('forced', true, 'verify', verdict);
    else
      detail := detail || jsonb_build_object('verify', verdict - 'output_tail');
    end if;
  end if;
  return dispatch.queue_workspace_decision(w, 'merge', detail);
end $$;

comment on function dispatch.merge_task(uuid, boolean) is
  'Queues merge_workspace for the task''s change (outcome queued, with the job), or answers conflict with the files, not_verified with the last check, or why it cannot be decided. force overrides a missing or failed check (journalled).';

-- Discard the task's change: queues discard_workspace (the worktree and branch go; the patch stays
-- in the journal).
create or replace function dispatch.discard_task(task_id uuid) returns jsonb
  language plpgsql volatile as $$
declare
  w dispatch.workspaces;
  no jsonb;
begin
  if not exists (select 1 from dispatch.tasks t where t.id = discard_task.task_id) then
    raise exception 'no task %', discard_task.task_id using errcode = 'P0002';
  end if;
  w := dispatch.task_workspace(discard_task.task_id);
  no := dispatch.workspace_undecidable(w);
  if no is not null then
    return no || jsonb_build_object('task_id', discard_task.task_id);
  end if;
  return dispatch.queue_workspace_decision(w, 'discard', '{}'::jsonb);
end $$;

comment on function dispatch.discard_task(uuid) is
  'Queues discard_workspace for the task''s change (outcome queued, with the job), or why it cannot be decided.';

-- The merge job's outcomes.
create or replace function dispatch.workspace_merged(workspace_id uuid, result jsonb) returns void
  language plpgsql volatile as $$
declare
  w dispatch.workspaces;
begin
  update dispatch.workspaces ws set state = 'merged', updated_at = now()
   where ws.id = workspace_merged.workspace_id returning * into w;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (w.project_id, w.task_id, 'workspace.merged',
            result || jsonb_build_object('workspace_id', w.id, 'branch', w.branch, 'base', w.base, 'head_commit', w.head_commit));
end $$;

create or replace function dispatch.workspace_merge_refused(workspace_id uuid, reason text, files jsonb default '[]'::jsonb,
                                                            conflict_detail text default null)
  returns void language plpgsql volatile as $$
declare
  w dispatch.workspaces;
begin
  update dispatch.workspaces ws
     set state = 'ready', updated_at = now(),
         conflicts = coalesce(workspace_merge_refused.files, '[]'::jsonb),
         conflict_detail = workspace_merge_refused.conflict_detail, checked_at = now()
   where ws.id = workspace_merge_refused.workspace_id returning * into w;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (w.project_id, w.task_id, 'workspace.merge_refused',
            jsonb_build_object('workspace_id', w.id, 'branch', w.branch, 'base', w.base, 'reason', reason,
                               'files', coalesce(files, '[]'::jsonb)));
end $$;

create or replace function dispatch.workspace_discarded(workspace_id uuid, result jsonb) returns void
  language plpgsql volatile as $$
declare
  w dispatch.workspaces;
begin
  update dispatch.workspaces ws set state = 'discarded', removed_at = coalesce(ws.removed_at, now()), updated_at = now()
   where ws.id = workspace_discarded.workspace_id returning * into w;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (w.project_id, w.task_id, 'workspace.discarded',
            result || jsonb_build_object('workspace_id', w.id, 'branch', w.branch, 'path', w.path, 'head_commit', w.head_commit));
  perform dispatch.tell_dependents_discarded(w);
end $$;

create or replace function dispatch.workspace_removed(workspace_id uuid, result jsonb) returns void
  language plpgsql volatile as $$
declare
  w dispatch.workspaces;
begin
  update dispatch.workspaces ws set removed_at = now(), updated_at = now()
   where ws.id = workspace_removed.workspace_id and ws.removed_at is null returning * into w;
  if found then
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (w.project_id, w.task_id, 'workspace.removed',
              result || jsonb_build_object('workspace_id', w.id, 'branch', w.branch, 'path', w.path));
  end if;
end $$;

-- Continue: a follow-up task whose branch starts from this task's branch (its spawn_worker makes
-- the worktree). The change no longer waits for a decision: the follow-up carries it.
create or replace function dispatch.continue_task(task_id uuid, brief text, approach text default null)
  returns uuid language plpgsql volatile as $$
declare
  w dispatch.workspaces;
  no jsonb;
  new_id uuid;
begin
  if not exists (select 1 from dispatch.tasks t where t.id = continue_task.task_id) then
    raise exception 'no task %', continue_task.task_id using errcode = 'P0002';
  end if;
  w := dispatch.task_workspace(continue_task.task_id);
  no := dispatch.workspace_undecidable(w);
  if no is not null then
    raise exception 'cannot continue task %: %', continue_task.task_id, no ->> 'message' using errcode = '55000';
  end if;
  new_id := dispatch.submit_task(w.project_id, continue_task.brief, continue_task.approach, w.task_id);
  update dispatch.workspaces ws set state = 'continued', updated_at = now() where ws.id = w.id;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (w.project_id, w.task_id, 'workspace.continued',
            jsonb_build_object('workspace_id', w.id, 'branch', w.branch, 'head_commit', w.head_commit, 'continued_by', new_id));
  return new_id;
end $$;

comment on function dispatch.continue_task(uuid, text, text) is
  'Submits a follow-up task that works on from the task''s branch; journals workspace.continued. Returns the new task id.';

-- Resolve: Continue with a brief that carries the conflict (files and their conflict markers).
create or replace function dispatch.resolve_task(task_id uuid) returns uuid
  language plpgsql volatile as $$
declare
  w dispatch.workspaces;
  files text;
begin
  w := dispatch.task_workspace(resolve_task.task_id);
  if w.id is null or jsonb_array_length(w.conflicts) = 0 then
    raise exception 'task % has no known conflict to resolve', resolve_task.task_id using errcode = '55000';
  end if;
  select string_agg(f, ', ') into files from jsonb_array_elements_text(w.conflicts) f;
  return dispatch.continue_task(w.task_id, format(
    E'Resolve the merge conflict between this branch and %s.\n\nThis branch (started from %s) conflicts with %s in: %s.\n'
    'Merge %s into this branch (git merge %s), resolve the conflicts in those files keeping both intents, and commit.\n\n'
    'The conflict as git sees it:\n\n%s',
    w.base, w.branch, w.base, files, w.base, w.base, coalesce(w.conflict_detail, '(no detail recorded)')));
end $$;

comment on function dispatch.resolve_task(uuid) is
  'Continue with a brief carrying the conflict: a new task on the conflicting branch that merges base and resolves it.';
