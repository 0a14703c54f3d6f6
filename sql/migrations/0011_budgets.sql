-- Budgets (project config `budget: {per_task_usd, per_day_usd}`). per_task_usd is handed to each
-- worker (the substrate stops the run itself); per_day_usd holds new workers once the project's
-- spend of the UTC day reaches it: the task waits as `held` (visible, not over), the person is
-- pushed once that day (`budget.reached`), and raising the budget or the next day releases it.

insert into dispatch.statuses (name, terminal, description, clean, alarming, failure, blocking, needs_user, notifies)
values ('held', false, 'waiting to start: the project''s daily budget is spent (released when it is raised, or the next day)',
        false, false, false, true, true, false);

-- The days a project's daily budget was reached (one push per project, day and limit).
create table dispatch.budget_days (
  project_id  uuid not null references dispatch.projects,
  day         date not null,
  per_day_usd numeric not null,
  reached_at  timestamptz not null default now(),
  primary key (project_id, day, per_day_usd)
);

insert into dispatch.event_types (name, tier, description) values
  ('budget.reached', 'raw', 'a project''s daily budget is spent: new workers are held {day, per_day_usd, spent_usd}'),
  ('budget.released', 'raw', 'held tasks were released: the budget was raised or a new day began {tasks, reason}');

-- A push moment of its own: once per project and day, not once per held task.
create or replace function dispatch.push_moments() returns text[]
  language sql stable as $$
  select array_agg(s.name order by s.name) || array['loop_stopped', 'budget_reached'] from dispatch.statuses s where s.notifies
$$;

create function dispatch.push_budget_reached() returns trigger
  language plpgsql volatile as $$
begin
  if exists (select 1 from dispatch.push_subscriptions) then
    perform graphile_worker.add_job('push_notify', json_build_object('event_id', new.event_id),
                                    queue_name := 'push:' || new.project_id::text,
                                    job_key := 'push:' || new.event_id, max_attempts := 5);
  end if;
  return null;
end $$;

create trigger events_push_budget after insert on dispatch.events
  for each row when (new.event_type = 'budget.reached')
  execute function dispatch.push_budget_reached();

-- Raising (or removing) a project's budget releases what it held, in the same transaction.
create function dispatch.budget_changed() returns trigger
  language plpgsql volatile as $$
begin
  perform dispatch.release_held_tasks(new.id, 'the budget was raised');
  return null;
end $$;

create trigger projects_budget_changed after update of config on dispatch.projects
  for each row when (old.config -> 'budget' is distinct from new.config -> 'budget')
  execute function dispatch.budget_changed();
