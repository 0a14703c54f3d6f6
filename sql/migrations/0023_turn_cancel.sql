-- A person may stop the project's orchestrator turn (a stalled one, from Needs you): the request is
-- journalled, and the runner that owns the turn's process stops it as it stops a cancelled task's.
insert into dispatch.event_types (name, tier, description) values
  ('turn.cancel_requested', 'raw', 'someone asked for the project''s running orchestrator turn to stop');
