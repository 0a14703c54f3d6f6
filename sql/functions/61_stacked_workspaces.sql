-- Stacked worktrees, re-applied on every migrate: a task that depends on others builds on their
-- change before anyone merged it. Its worktree starts from the branch of the dependency that builds
-- on all the others (submit refuses dependencies that are not one line: checked_dependencies); its
-- merge is refused until what it builds on is merged (one decision per change, taken in order);
-- discarding a change tells the tasks built on it, and skips the ones that have not started.

-- The dependency whose branch the task's worktree starts from: the one every other dependency is
-- under. Null without dependencies.
create or replace function dispatch.builds_on(task_id uuid) returns uuid
  language sql stable as $$
  select td.depends_on from dispatch.task_dependencies td
   where td.task_id = builds_on.task_id
     and not exists (select 1 from dispatch.task_dependencies o
                      where o.task_id = builds_on.task_id and o.depends_on <> td.depends_on
                        and not (o.depends_on = any(dispatch.all_dependencies(td.depends_on))))
   order by td.created_at, td.depends_on limit 1
$$;

-- A workspace that held no change: empty, or tidied away as empty by dispatch (tidy_empty_workspace
-- in 60_workspaces.sql). Nothing of it is on a dependent's branch, so it neither holds up that
-- task's merge nor, discarded, takes anything from it.
create or replace function dispatch.workspace_held_nothing(w dispatch.workspaces) returns boolean
  language sql stable as $$
  select w.state = 'empty'
      or exists (select 1 from dispatch.events e
                  where e.task_id = w.task_id and e.event_type = 'workspace.discard_requested'
                    and e.payload ->> 'workspace_id' = w.id::text and e.payload ->> 'by' = 'dispatch')
$$;

-- Why the change of a task cannot be merged yet because of what it builds on, or null: a task it
-- (transitively) depends on whose change, held by this branch, is not merged.
create or replace function dispatch.stack_unmerged(w dispatch.workspaces) returns jsonb
  language sql stable as $$
  select jsonb_build_object('outcome', 'stacked', 'task_id', w.task_id, 'blocking_task_id', d.id, 'state', dw.state,
           'message', case when dw.state = 'discarded'
             then format('this branch holds the change of "%s", which was discarded: discard this change too, or continue it from %s',
                         dispatch.task_title(d.brief), w.base)
             else format('this change builds on "%s" (%s), which is not merged yet: merge that first', dispatch.task_title(d.brief), dw.branch) end)
    from unnest(dispatch.all_dependencies(w.task_id)) dep
    join dispatch.tasks d on d.id = dep
    join lateral (select * from dispatch.workspaces x where x.task_id = d.id order by x.attempt desc limit 1) dw on true
   where w.from_ref <> w.base
     and dw.state in ('active', 'ready', 'merging', 'discarding', 'discarded', 'continued')
     and not dispatch.workspace_held_nothing(dw)
   order by d.created_at limit 1
$$;

-- The change of a task was discarded: every task built on it is told (task.dependency_discarded);
-- one still waiting to start ends skipped, as after any dependency that did not end clean.
create or replace function dispatch.tell_dependents_discarded(w dispatch.workspaces) returns integer
  language plpgsql volatile as $$
declare
  t record;
  n integer := 0;
begin
  if dispatch.workspace_held_nothing(w) then
    return 0; -- tidied as empty: nothing built on it is lost
  end if;
  for t in select tk.id, tk.project_id, tk.ended_at, tk.released_at, tk.brief
             from dispatch.task_dependencies td join dispatch.tasks tk on tk.id = td.task_id
            where td.depends_on = w.task_id order by tk.id for update of tk
  loop
    insert into dispatch.events (project_id, task_id, event_type, payload)
      values (t.project_id, t.id, 'task.dependency_discarded',
              jsonb_build_object('dependency', w.task_id, 'branch', w.branch, 'workspace_id', w.id));
    if t.ended_at is null and t.released_at is null then
      perform dispatch.set_task_status(t.id, 'skipped',
        format('the change of dependency "%s" was discarded', (select dispatch.task_title(d.brief) from dispatch.tasks d where d.id = w.task_id)),
        jsonb_build_object('dependency', w.task_id, 'root_dependency', w.task_id, 'dependency_status', 'discarded'));
    end if;
    n := n + 1;
  end loop;
  return n;
end $$;
