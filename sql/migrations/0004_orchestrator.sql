-- The orchestrator loop: what each turn was given (its prompt's inputs, verbatim) is journalled.

insert into dispatch.event_types (name, tier, description) values
  ('orchestrator.turn_input', 'raw', 'what an orchestrator turn was given: pending messages, new handoffs, not-clean statuses, focus');

create index events_turn_input_idx on dispatch.events (project_id, seq) where event_type = 'orchestrator.turn_input';
create index tasks_orchestrated_open_idx on dispatch.tasks (project_id) where ended_at is null and spawned_by_session is not null;
create index sessions_orchestrator_idx on dispatch.sessions (project_id, created_at desc) where role = 'orchestrator';
