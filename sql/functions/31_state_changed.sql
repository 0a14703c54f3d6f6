-- What tells a server its cached GET /api/state answer is stale, re-applied on every migrate.
--
-- A server answers GET /api/state from its last answer while the journal head is the same. Nearly
-- every change to what the snapshot shows comes with a journal row in the same transaction (a new
-- head); the tables below say what may not (a budget set, an edit from psql, the status table)
-- with one NOTIFY per statement on dispatch_state (sent at commit, like every NOTIFY). The journal
-- writer's per-batch update of a session (lines_written, last_output_at) and the runners'
-- heartbeats are left out: the first always comes with new journal rows, the second is not shown.
-- Each is the only AFTER STATEMENT trigger of its events on its table, so its name orders nothing.
create or replace function dispatch.state_changed() returns trigger
  language plpgsql volatile as $$
begin
  perform pg_notify('dispatch_state', tg_table_name);
  return null;
end $$;

select dispatch.define_trigger('dispatch.projects', 'projects_state_changed', $$
create or replace trigger projects_state_changed after insert or update or delete on dispatch.projects
  for each statement execute function dispatch.state_changed()
$$);
select dispatch.define_trigger('dispatch.tasks', 'tasks_state_changed', $$
create or replace trigger tasks_state_changed after insert or update or delete on dispatch.tasks
  for each statement execute function dispatch.state_changed()
$$);
select dispatch.define_trigger('dispatch.sessions', 'sessions_state_changed_insert', $$
create or replace trigger sessions_state_changed_insert after insert or delete on dispatch.sessions
  for each statement execute function dispatch.state_changed()
$$);
select dispatch.define_trigger('dispatch.sessions', 'sessions_state_changed_update', $$
create or replace trigger sessions_state_changed_update
  after update of id, project_id, task_id, parent_session_id, role, status, status_reason, attempt, pid, host,
                  stalled, created_at, started_at, ended_at, exit_code, signal on dispatch.sessions
  for each statement execute function dispatch.state_changed()
$$);
select dispatch.define_trigger('dispatch.user_messages', 'user_messages_state_changed', $$
create or replace trigger user_messages_state_changed after insert or update or delete on dispatch.user_messages
  for each statement execute function dispatch.state_changed()
$$);
select dispatch.define_trigger('dispatch.statuses', 'statuses_state_changed', $$
create or replace trigger statuses_state_changed after insert or update or delete on dispatch.statuses
  for each statement execute function dispatch.state_changed()
$$);
