-- "Needs you" is one definition (dispatch.needs_you, sql/functions/63_needs_you.sql) read by the API,
-- the push trigger and the badge. What a person marked as seen stays out of it: one row per item key
-- (a key names one occurrence — a gate, a task's attempt, a stall since a moment — so the same thing
-- happening again is a new key and shows again), and the dismissal is journalled.
insert into dispatch.event_types (name, tier, description) values
  ('needs_you.dismissed', 'raw', 'a person marked a Needs you item as seen {key, kind, title}');

create table dispatch.needs_you_dismissals (
  key          text primary key,
  project_id   uuid references dispatch.projects,
  dismissed_at timestamptz not null default now(),
  dismissed_by text
);
