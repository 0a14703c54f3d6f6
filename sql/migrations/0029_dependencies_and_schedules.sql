-- Work that follows work: task dependencies (a table, one row per edge) and schedules (a cron
-- expression that submits a task at each firing). The functions and triggers that act on them live
-- in sql/functions/21_dependencies.sql and 22_schedules.sql.

-- "task_id waits for depends_on". Both tasks are of one project (checked when the edge is made);
-- a cycle is refused by the trigger that guards inserts (21_dependencies.sql).
create table dispatch.task_dependencies (
  task_id    uuid not null references dispatch.tasks on delete cascade,
  depends_on uuid not null references dispatch.tasks on delete cascade,
  created_at timestamptz not null default now(),
  primary key (task_id, depends_on),
  check (task_id <> depends_on)
);
-- The ending of a task looks up who waits for it.
create index task_dependencies_depends_on_idx on dispatch.task_dependencies (depends_on);

-- When the last dependency ended clean and the task's worker was queued: set once, under the
-- task's row lock, so two dependencies ending at once (or two runners) start it once.
alter table dispatch.tasks add column released_at timestamptz;

create table dispatch.schedules (
  id           uuid primary key default gen_random_uuid(),
  project_id   uuid not null references dispatch.projects,
  cron         text not null check (length(cron) between 9 and 200),
  -- An IANA zone name; null: the server's own zone.
  time_zone    text check (time_zone is null or length(time_zone) between 1 and 64),
  brief        text not null check (length(brief) > 0),
  approach     text,
  depends_on   uuid[] not null default '{}',
  -- The next minute the expression matches, computed by the code that parses it (graphile-worker's
  -- crontab parser, in JavaScript); null until then (a schedule made from psql: the runner's next
  -- tick computes it). A firing moves it past the firing time, so runs missed while nothing ran
  -- fire once.
  next_run_at  timestamptz,
  paused_at    timestamptz,
  pause_reason text,
  last_fired_at timestamptz,
  last_task_id uuid references dispatch.tasks on delete set null,
  created_at   timestamptz not null default now()
);
create index schedules_due_idx on dispatch.schedules (next_run_at) where paused_at is null;

insert into dispatch.event_types (name, tier, description) values
  ('task.dependencies_met', 'raw', 'every task this one waits for ended clean: its worker is queued (payload: depends_on, by)'),
  ('task.dependency_discarded', 'raw', 'the change of a task this one builds on was discarded (payload: dependency, branch)'),
  ('schedule.created', 'raw', 'a schedule was made (payload: schedule_id, cron, time_zone, next_run_at)'),
  ('schedule.fired', 'raw', 'a schedule''s firing submitted a task (payload: schedule_id, task_id, scheduled_for)'),
  ('schedule.skipped', 'raw', 'a firing was skipped: the previous task still runs (payload: schedule_id, scheduled_for, running_task_id)'),
  ('schedule.paused', 'raw', 'a schedule was paused (payload: schedule_id, reason)'),
  ('schedule.resumed', 'raw', 'a paused schedule was resumed (payload: schedule_id, next_run_at)'),
  ('schedule.deleted', 'raw', 'a schedule was deleted (payload: schedule_id)');

-- submit_task grows depends_on: the old signature goes, or a call naming six arguments would be ambiguous.
drop function if exists dispatch.submit_task(uuid, text, text, uuid, text, uuid);
