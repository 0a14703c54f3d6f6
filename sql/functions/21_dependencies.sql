-- Task dependencies, re-applied on every migrate. A task with dependencies is submitted queued with
-- no worker job; the transaction that ends its last dependency clean queues its worker (a deferred
-- trigger on dispatch.tasks, so there is no poller that can miss an ending), and one that ends a
-- dependency not clean, with no retry coming, ends it skipped — and so on down the chain.

-- The short name a reason gives a task: the first line of its brief.
create or replace function dispatch.task_title(brief text) returns text
  language sql immutable as $$
  select left(split_part(btrim(brief), E'\n', 1), 80)
$$;

-- A dependency counts as done: it ended success and, when its project checks work (config key
-- `verify`), its current attempt's last check passed. The seam for the verify step: when it
-- journals verify.finished after the task's success, it calls dispatch.settle_dependents(task_id).
create or replace function dispatch.dependency_done(dep dispatch.tasks) returns boolean
  language sql stable as $$
  select dep.status = 'success'
     and (not coalesce((select p.config ? 'verify' from dispatch.projects p where p.id = dep.project_id), false)
          or coalesce((select (e.payload ->> 'passed')::boolean from dispatch.events e
                        where e.task_id = dep.id and e.event_type = 'verify.finished'
                        order by e.seq desc limit 1), false))
$$;

-- A dependency that will not end done: over, not clean, and not parked at a gate (a person's
-- decision may still carry it on). A task retried in the same transaction is queued, not over.
create or replace function dispatch.dependency_failed(dep dispatch.tasks) returns boolean
  language sql stable as $$
  select dep.ended_at is not null and dep.status not in ('success', 'gated')
$$;

-- "waits for: Write the parser — running; Write the tests — queued"
create or replace function dispatch.waiting_reason(task_id uuid) returns text
  language sql stable as $$
  select 'waits for: ' || string_agg(format('%s — %s', dispatch.task_title(d.brief),
                                            case when d.status = 'success' then 'success, its check not passed yet' else d.status end),
                                     '; ' order by d.created_at)
    from dispatch.task_dependencies td join dispatch.tasks d on d.id = td.depends_on
   where td.task_id = waiting_reason.task_id and not dispatch.dependency_done(d)
$$;

-- Refuses what cannot be a dependency (400 invalid_dependency, naming the ids) and returns the
-- distinct ids. Locks the dependencies' rows FOR SHARE: an ending of one of them that is being
-- committed now is waited for and seen, so a new task cannot miss the ending it waits for.
create or replace function dispatch.checked_dependencies(project_id uuid, depends_on uuid[]) returns uuid[]
  language plpgsql volatile as $$
declare
  ids uuid[];
  unknown uuid[];
  foreign_ids uuid[];
  repo text;
  tips uuid[];
begin
  select coalesce(array_agg(distinct d order by d), '{}') into ids from unnest(coalesce(depends_on, '{}')) d where d is not null;
  if cardinality(ids) = 0 then
    return ids;
  end if;
  perform 1 from dispatch.tasks t where t.id = any(ids) order by t.id for share;
  select coalesce(array_agg(d order by d), '{}') into unknown
    from unnest(ids) d where not exists (select 1 from dispatch.tasks t where t.id = d);
  if cardinality(unknown) > 0 then
    raise exception 'depends_on names no such task: %', array_to_string(unknown, ', ')
      using errcode = 'PD400', detail = jsonb_build_object('field', 'depends_on', 'unknown', unknown)::text;
  end if;
  select coalesce(array_agg(t.id order by t.id), '{}') into foreign_ids
    from dispatch.tasks t where t.id = any(ids) and t.project_id <> checked_dependencies.project_id;
  if cardinality(foreign_ids) > 0 then
    raise exception 'depends_on names tasks of another project: %', array_to_string(foreign_ids, ', ')
      using errcode = 'PD400', detail = jsonb_build_object('field', 'depends_on', 'other_project', foreign_ids)::text;
  end if;
  -- With workspaces a task builds on one line of work: one dependency (the tip) must build on all
  -- the others, so its branch holds them all (docs/workspaces.md, "Stacked worktrees").
  select p.config ->> 'repo' into repo from dispatch.projects p where p.id = checked_dependencies.project_id;
  if repo is not null and cardinality(ids) > 1 then
    select coalesce(array_agg(tip order by tip), '{}') into tips from unnest(ids) tip
     where (select count(*) from unnest(ids) o where o <> tip and o = any(dispatch.all_dependencies(tip))) = cardinality(ids) - 1;
    if cardinality(tips) = 0 then
      raise exception 'with workspaces a task builds on one line of work, and % are not one: make one of them depend on the others, or merge them first',
        array_to_string(ids, ', ')
        using errcode = 'PD400', detail = jsonb_build_object('field', 'depends_on', 'not_stacked', ids)::text;
    end if;
  end if;
  return ids;
end $$;

-- Every task a task waits for, directly or through others.
create or replace function dispatch.all_dependencies(task_id uuid) returns uuid[]
  language sql stable as $$
  with recursive up(id) as (
    select td.depends_on from dispatch.task_dependencies td where td.task_id = all_dependencies.task_id
    union
    select td.depends_on from dispatch.task_dependencies td join up on td.task_id = up.id
  )
  select coalesce(array_agg(id), '{}') from up
$$;

-- Guards every new edge, whoever writes it: one project, no cycle.
create or replace function dispatch.task_dependencies_check() returns trigger
  language plpgsql volatile as $$
begin
  if (select t.project_id from dispatch.tasks t where t.id = new.task_id)
     is distinct from (select t.project_id from dispatch.tasks t where t.id = new.depends_on) then
    raise exception 'depends_on names a task of another project: %', new.depends_on
      using errcode = 'PD400', detail = jsonb_build_object('field', 'depends_on', 'other_project', array[new.depends_on])::text;
  end if;
  if new.task_id = new.depends_on or new.task_id = any(dispatch.all_dependencies(new.depends_on)) then
    raise exception 'depends_on would make a cycle: % already waits for %', new.depends_on, new.task_id
      using errcode = 'PD400', detail = jsonb_build_object('field', 'depends_on', 'cycle', array[new.task_id, new.depends_on])::text;
  end if;
  return new;
end $$;

select dispatch.define_trigger('dispatch.task_dependencies', 'task_dependencies_check', $$
create or replace trigger task_dependencies_check before insert or update on dispatch.task_dependencies
  for each row execute function dispatch.task_dependencies_check()
$$);

-- Looks at a waiting task's dependencies (under its row lock): all done → released (journals
-- task.dependencies_met; queues its worker unless the caller is that worker's job); one that will
-- not end done → the task ends skipped, the reason naming the task where the chain broke; else it
-- keeps waiting with its reason brought up to date. Returns whether the task may start now.
create or replace function dispatch.release_if_ready(task_id uuid, by uuid, enqueue boolean default true)
  returns boolean language plpgsql volatile as $$
declare
  t dispatch.tasks;
  blocker dispatch.tasks;
  root dispatch.tasks;
  deps uuid[];
begin
  select * into t from dispatch.tasks tk where tk.id = release_if_ready.task_id for update;
  if not found or t.ended_at is not null then
    return false;
  end if;
  if t.released_at is not null then
    return true;
  end if;
  select coalesce(array_agg(td.depends_on order by td.depends_on), '{}') into deps
    from dispatch.task_dependencies td where td.task_id = t.id;
  select d.* into blocker from dispatch.tasks d where d.id = any(deps) and dispatch.dependency_failed(d)
   order by d.ended_at limit 1;
  if blocker.id is not null then
    -- Where the chain broke: through skipped dependencies down to the one that ended not clean.
    root := blocker;
    while root.status = 'skipped' loop
      select d.* into root from dispatch.task_dependencies td join dispatch.tasks d on d.id = td.depends_on
       where td.task_id = root.id and dispatch.dependency_failed(d) order by d.ended_at limit 1;
      exit when not found;
    end loop;
    if root.id is null then
      root := blocker;
    end if;
    perform dispatch.set_task_status(t.id, 'skipped',
      format('dependency "%s" ended %s%s', dispatch.task_title(root.brief), root.status,
             case when root.id <> blocker.id then format(' (through "%s")', dispatch.task_title(blocker.brief)) else '' end),
      jsonb_build_object('dependency', blocker.id, 'root_dependency', root.id, 'dependency_status', root.status));
    perform dispatch.apply_return_policy(t.id);
    return false;
  end if;
  if exists (select 1 from dispatch.tasks d where d.id = any(deps) and not dispatch.dependency_done(d)) then
    update dispatch.tasks tk set status_reason = dispatch.waiting_reason(t.id) where tk.id = t.id;
    return false;
  end if;
  update dispatch.tasks tk set released_at = now(), status_reason = 'dependencies done; waiting for a runner' where tk.id = t.id;
  insert into dispatch.events (project_id, task_id, event_type, payload)
    values (t.project_id, t.id, 'task.dependencies_met', jsonb_strip_nulls(jsonb_build_object('depends_on', to_jsonb(deps), 'by', by)));
  if enqueue then
    perform graphile_worker.add_job('spawn_worker', json_build_object('task_id', t.id),
                                    job_key := 'spawn_worker:' || t.id, max_attempts := 25);
  end if;
  return true;
end $$;

-- Asked by spawn_worker before a task's first session: a task without dependencies, or released
-- already, may start; one still waiting is left for the ending that releases it.
create or replace function dispatch.may_start(task_id uuid) returns boolean
  language plpgsql volatile as $$
begin
  if not exists (select 1 from dispatch.task_dependencies td where td.task_id = may_start.task_id) then
    return true;
  end if;
  return dispatch.release_if_ready(may_start.task_id, null, false);
end $$;

-- A task's ending, seen at commit (its final state in the transaction: a task the return policy
-- retried is queued again and releases nothing): each task waiting for it is released or skipped.
-- Dependents are locked in id order, so two endings committing at once cannot deadlock.
create or replace function dispatch.settle_dependents(task_id uuid) returns integer
  language plpgsql volatile as $$
declare
  d dispatch.tasks;
  w record;
  n integer := 0;
begin
  select * into d from dispatch.tasks tk where tk.id = settle_dependents.task_id;
  if not found or d.ended_at is null then
    return 0;
  end if;
  if not (dispatch.dependency_done(d) or dispatch.dependency_failed(d)) then
    -- Ended success, its check not passed yet: the tasks after it say so, and wait on.
    update dispatch.tasks tk set status_reason = dispatch.waiting_reason(tk.id)
      from dispatch.task_dependencies td
     where td.depends_on = d.id and tk.id = td.task_id and tk.ended_at is null and tk.released_at is null;
    return 0;
  end if;
  for w in select tk.id from dispatch.task_dependencies td join dispatch.tasks tk on tk.id = td.task_id
            where td.depends_on = d.id and tk.ended_at is null and tk.released_at is null
            order by tk.id for update of tk
  loop
    perform dispatch.release_if_ready(w.id, d.id);
    n := n + 1;
  end loop;
  return n;
end $$;

create or replace function dispatch.tasks_settle_dependents() returns trigger
  language plpgsql volatile as $$
begin
  perform dispatch.settle_dependents(new.id);
  return null;
end $$;

-- Deferred to commit: the return policy runs after the status is set, in the same transaction.
select dispatch.define_trigger('dispatch.tasks', 'tasks_settle_dependents', $$
drop trigger if exists tasks_settle_dependents on dispatch.tasks;
create constraint trigger tasks_settle_dependents after update of status on dispatch.tasks
  deferrable initially deferred
  for each row when (new.ended_at is not null and new.status is distinct from old.status)
  execute function dispatch.tasks_settle_dependents()
$$);

-- Edits what a task that has not started waits for (psql): the same checks as at submit, the
-- cycle refused by task_dependencies_check.
create or replace function dispatch.set_task_dependencies(task_id uuid, depends_on uuid[]) returns boolean
  language plpgsql volatile as $$
declare
  t dispatch.tasks;
  deps uuid[];
begin
  select * into t from dispatch.tasks tk where tk.id = set_task_dependencies.task_id for update;
  if not found then
    raise exception 'no task %', set_task_dependencies.task_id using errcode = 'P0002';
  end if;
  if t.ended_at is not null or t.released_at is not null
     or exists (select 1 from dispatch.sessions s where s.task_id = t.id) then
    raise exception 'task % has started or ended: what it waits for cannot change now', t.id using errcode = '55000';
  end if;
  deps := dispatch.checked_dependencies(t.project_id, set_task_dependencies.depends_on);
  delete from dispatch.task_dependencies td where td.task_id = t.id;
  insert into dispatch.task_dependencies (task_id, depends_on) select t.id, d from unnest(deps) d;
  if cardinality(deps) = 0 then
    return dispatch.release_if_ready(t.id, null);
  end if;
  update dispatch.tasks tk set status_reason = dispatch.waiting_reason(t.id) where tk.id = t.id;
  return dispatch.release_if_ready(t.id, null);
end $$;

-- With a project check (config `verify`), a dependency that ended success is done only once its
-- check passed: the journalling of its verdict (verify.finished) settles its dependents at commit,
-- whoever writes it — the verify step needs no call of its own. A failed verdict releases nothing
-- here; the task's own ending (failed, or a fix attempt queued) settles or keeps them waiting.
create or replace function dispatch.events_settle_dependents() returns trigger
  language plpgsql volatile as $$
begin
  perform dispatch.settle_dependents(new.task_id);
  return null;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_settle_dependents', $$
drop trigger if exists events_settle_dependents on dispatch.events;
create constraint trigger events_settle_dependents after insert on dispatch.events
  deferrable initially deferred
  for each row when (new.event_type = 'verify.finished' and new.task_id is not null)
  execute function dispatch.events_settle_dependents()
$$);
