-- Reads for the API and the orchestrator: user messages (pending until a turn delivers them), focus,
-- MCP credentials scoped to a project, and pg_trgm for matching ruled-out approaches.

create extension if not exists pg_trgm;

-- A cache of user_message / user_message.delivered events, so "pending" never scans the journal.
create table dispatch.user_messages (
  message_id   uuid primary key,
  project_id   uuid not null references dispatch.projects,
  event_id     uuid not null references dispatch.events (event_id),
  seq          bigint not null,
  text         text not null,
  created_at   timestamptz not null default now(),
  delivered_at timestamptz,
  delivered_to uuid references dispatch.sessions -- the orchestrator session whose turn carried it
);
create index user_messages_pending_idx on dispatch.user_messages (project_id, seq) where delivered_at is null;

create index events_focus_idx on dispatch.events (seq) where event_type = 'focus.changed';
create index events_working_set_idx on dispatch.events (project_id, seq) where event_type = 'orchestrator.working_set';
create index events_handoff_task_idx on dispatch.events (task_id, seq) where tier = 'derived';

-- A credential for the /mcp endpoint, scoped to one project (and to the session that uses it).
create table dispatch.mcp_tokens (
  token_sha256 text primary key,
  project_id   uuid not null references dispatch.projects,
  session_id   uuid references dispatch.sessions,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz not null default now() + interval '1 day',
  revoked_at   timestamptz
);

insert into dispatch.event_types (name, tier, description) values
  ('spawn.refused', 'raw', 'spawn_worker refused an approach a prior handoff ruled out'),
  ('spawn.override', 'raw', 'spawn_worker ran a ruled-out approach on an explicit override, with its reason'),
  ('orchestrator.working_set', 'raw', 'the orchestrator''s working set after a turn, derived from the journal');

-- The orchestrator session whose turn spawned a task (the causal link for spawn_worker over MCP).
alter table dispatch.tasks add column spawned_by_session uuid references dispatch.sessions;
