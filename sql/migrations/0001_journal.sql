-- The journal: typed envelope + jsonb payload, ordered by seq (D-3, D-4, D-12, D-16, D-20, D-22).
-- Forward-only: once released this file never changes; add 0002_… instead.

create extension if not exists pgcrypto;

create schema if not exists dispatch;

-- Reference tables (open sets: extending one is an INSERT, never a migration).

create table dispatch.event_types (
  name        text primary key check (name ~ '^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$'),
  tier        text not null default 'raw' check (tier in ('raw', 'derived')),
  description text not null default '',
  created_at  timestamptz not null default now()
);

create table dispatch.statuses (
  name        text primary key,
  terminal    boolean not null,
  description text not null
);

-- Dimensions the journal points at. Their status columns are caches of the journal.

create table dispatch.projects (
  id         uuid primary key default gen_random_uuid(),
  name       text not null check (length(btrim(name)) between 1 and 200),
  config     jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create unique index projects_name_key on dispatch.projects (lower(name));

create table dispatch.tasks (
  id               uuid primary key default gen_random_uuid(),
  project_id       uuid not null references dispatch.projects,
  parent_id        uuid references dispatch.tasks,
  brief            text not null check (length(brief) > 0),
  approach         text,
  plan_ref         text,
  attempt          integer not null default 1 check (attempt >= 1),
  status           text not null default 'queued' references dispatch.statuses,
  status_reason    text,
  created_at       timestamptz not null default now(),
  started_at       timestamptz,
  ended_at         timestamptz,
  last_activity_at timestamptz
);
create index tasks_project_idx on dispatch.tasks (project_id, created_at desc);
create index tasks_parent_idx on dispatch.tasks (parent_id) where parent_id is not null;
create index tasks_open_idx on dispatch.tasks (status) where ended_at is null;

-- One process run. Role is data (orchestrator, worker, extractor, …), never a code branch.
create table dispatch.sessions (
  id                uuid primary key default gen_random_uuid(),
  project_id        uuid not null references dispatch.projects,
  task_id           uuid references dispatch.tasks,
  parent_session_id uuid references dispatch.sessions,
  role              text not null check (length(role) between 1 and 50),
  status            text not null default 'queued' references dispatch.statuses,
  status_reason     text,
  runner_id         text,
  host              text,
  pid               integer,
  claude_session_id text, -- forensic only, never a key
  exit_code         integer,
  signal            text,
  stalled           boolean not null default false,
  created_at        timestamptz not null default now(),
  started_at        timestamptz,
  ended_at          timestamptz,
  last_output_at    timestamptz,
  heartbeat_at      timestamptz,
  lines_written     integer not null default 0
);
create index sessions_task_idx on dispatch.sessions (task_id, created_at);
create index sessions_project_idx on dispatch.sessions (project_id, created_at desc);
create index sessions_open_idx on dispatch.sessions (runner_id) where ended_at is null;

create sequence dispatch.events_seq as bigint;

create table dispatch.events (
  event_id   uuid primary key default gen_random_uuid(),
  seq        bigint not null,
  project_id uuid references dispatch.projects,
  session_id uuid references dispatch.sessions,
  task_id    uuid references dispatch.tasks,
  parent_id  uuid references dispatch.events (event_id),
  thread_id  bigint, -- Trellis cross-reference: convention, deliberately no FK (D-22)
  message_id uuid,   -- client reconcile key (D-12)
  event_type text not null references dispatch.event_types (name),
  tier       text not null default 'raw' check (tier in ('raw', 'derived')),
  payload    jsonb not null default '{}'::jsonb,
  line_no    integer check (line_no >= 0), -- stdout line number within its session
  created_at timestamptz not null default clock_timestamp(),
  constraint events_seq_key unique (seq),
  constraint events_line_needs_session check (line_no is null or session_id is not null)
);
create unique index events_session_line_key on dispatch.events (session_id, line_no) where line_no is not null;
create unique index events_user_message_key on dispatch.events (message_id) where event_type = 'user_message';
create index events_project_seq_idx on dispatch.events (project_id, seq);
create index events_task_seq_idx on dispatch.events (task_id, seq) where task_id is not null;
create index events_session_seq_idx on dispatch.events (session_id, seq) where session_id is not null;
create index events_thread_seq_idx on dispatch.events (thread_id, seq) where thread_id is not null;
create index events_derived_idx on dispatch.events (project_id, seq) where tier = 'derived';
create index events_parent_idx on dispatch.events (parent_id) where parent_id is not null;
create index events_message_idx on dispatch.events (message_id) where message_id is not null;

-- seq is the only ordering authority, so it must agree with visibility: a reader paging with
-- seq > last must never later find a smaller seq commit. A transaction-scoped advisory lock taken
-- before the seq is drawn serialises journal commits in seq order (one ordering domain).
create function dispatch.events_assign_seq() returns trigger
  language plpgsql volatile as $$
begin
  -- Derived rows (handoffs) are written only by the validation gate, inside its transaction (D-18).
  if new.tier = 'derived' and coalesce(current_setting('dispatch.handoff_gate', true), '') <> 'validated' then
    raise exception 'derived rows are written only by the handoff validation gate'
      using errcode = 'PD002', hint = 'Submit the extractor output to validate_handoff instead.';
  end if;
  perform pg_advisory_xact_lock(7201150001);
  new.seq := nextval('dispatch.events_seq');
  if new.tier = 'derived' and new.thread_id is null and new.parent_id is not null then
    select e.thread_id into new.thread_id from dispatch.events e where e.event_id = new.parent_id;
  end if;
  return new;
end $$;

create trigger events_assign_seq before insert on dispatch.events
  for each row execute function dispatch.events_assign_seq();

-- One NOTIFY per written batch (statement), carrying the highest seq.
create function dispatch.events_notify() returns trigger
  language plpgsql volatile as $$
declare
  top bigint;
begin
  select max(seq) into top from inserted;
  if top is not null then
    perform pg_notify('dispatch_events', top::text);
  end if;
  return null;
end $$;

create trigger events_notify after insert on dispatch.events
  referencing new table as inserted
  for each statement execute function dispatch.events_notify();

-- The journal and the contract are append-only, enforced by the database itself.
create function dispatch.refuse_change() returns trigger
  language plpgsql volatile as $$
begin
  raise exception '%.% is append-only: % is not allowed', tg_table_schema, tg_table_name, lower(tg_op)
    using errcode = 'PD001', hint = 'Journal rows are never updated or deleted; append a new event instead.';
end $$;

create trigger events_append_only before update or delete on dispatch.events
  for each row execute function dispatch.refuse_change();
create trigger events_no_truncate before truncate on dispatch.events
  for each statement execute function dispatch.refuse_change();

-- The handoff contract (D-17, D-19): one row per field, shape as JSON Schema, append-only.
create table dispatch.contract (
  field_key  text primary key check (field_key ~ '^[a-z][a-z0-9_]*$'),
  required   boolean not null,
  read_by    text[] not null default '{}',
  semantics  text not null,
  shape      jsonb not null check (jsonb_typeof(shape) = 'object'),
  created_at timestamptz not null default now()
);

create trigger contract_append_only before update or delete on dispatch.contract
  for each row execute function dispatch.refuse_change();
create trigger contract_no_truncate before truncate on dispatch.contract
  for each statement execute function dispatch.refuse_change();

-- Seeds.

insert into dispatch.statuses (name, terminal, description) values
  ('queued', false, 'waiting for a runner'),
  ('running', false, 'process alive and producing output'),
  ('stalled', false, 'process alive but silent for the stall threshold'),
  ('success', true, 'clean exit with a successful result (and a handoff that passed the gate)'),
  ('failed', true, 'the run ended with a real error'),
  ('crashed', true, 'abnormal exit: SIGKILL, OOM, a lost runner'),
  ('cancelled', true, 'intentional stop: SIGINT or SIGTERM'),
  ('rate_limited', true, 'substrate quota, usage limit or authentication stopped the run'),
  ('partial', true, 'clean exit with incomplete work'),
  ('skipped', true, 'did not run: a gate or precondition declined'),
  ('gated', true, 'an autonomous-mode hard gate fired'),
  ('extraction_failed', true, 'the worker finished but its handoff failed the validation gate');

insert into dispatch.event_types (name, tier, description) values
  ('project.created', 'raw', 'a project was created'),
  ('task.submitted', 'raw', 'a task was submitted with its brief'),
  ('task.cancel_requested', 'raw', 'someone asked for a task to be cancelled'),
  ('task.status_changed', 'raw', 'a task reached a new status'),
  ('session.spawned', 'raw', 'a process was started (pid, host, role, argv)'),
  ('session.exited', 'raw', 'a process ended (exit code, signal, derived status, duration)'),
  ('session.stalled', 'raw', 'a live process produced no output for the stall threshold'),
  ('session.resumed', 'raw', 'a stalled process produced output again'),
  ('session.lost', 'raw', 'the runner owning a process disappeared'),
  ('claude.init', 'raw', 'stream-json system/init line'),
  ('claude.api_retry', 'raw', 'stream-json system/api_retry line'),
  ('claude.system', 'raw', 'another stream-json system line'),
  ('claude.assistant', 'raw', 'stream-json assistant message'),
  ('claude.tool_result', 'raw', 'stream-json user line carrying tool results'),
  ('claude.user', 'raw', 'another stream-json user line'),
  ('claude.result', 'raw', 'stream-json final result line'),
  ('claude.stream_event', 'raw', 'stream-json partial message event'),
  ('claude.unknown', 'raw', 'a JSON line of a type the classifier does not know'),
  ('stdout.non_json', 'raw', 'a stdout line that is not JSON'),
  ('stdout.truncated_json', 'raw', 'a stdout line that starts like JSON but does not parse'),
  ('stdout.binary', 'raw', 'a stdout line that is not storable text: invalid UTF-8 or NUL bytes (kept as base64)'),
  ('stdout.oversized', 'raw', 'a stdout line of 1 MiB or more'),
  ('stdout.rejected', 'raw', 'a stdout line the database could not store as parsed (kept as text)'),
  ('stderr.tail', 'raw', 'the last lines a process wrote to stderr'),
  ('user_message', 'raw', 'a message the user sent to the orchestrator'),
  ('user_message.delivered', 'raw', 'a pending user message reached an orchestrator turn'),
  ('focus.changed', 'raw', 'the user switched focus to a thread or task'),
  ('handoff', 'derived', 'a validated, structured handoff derived from a worker''s output');

insert into dispatch.contract (field_key, required, read_by, semantics, shape) values
  ('goal', true, '{orchestrator,user}', 'What the task set out to do, in one or two sentences.',
    '{"type": "string", "minLength": 1}'),
  ('current_state', true, '{orchestrator,user}', 'Where the work stands now that the worker has returned.',
    '{"type": "string", "minLength": 1}'),
  ('next_step', false, '{orchestrator}', 'The single most useful next action.',
    '{"type": "string"}'),
  ('ruled_out', true, '{orchestrator}',
    'Approaches tried or considered and rejected, each with the reason; empty when none (FR-011).',
    '{"type": "array", "items": {"type": "object", "required": ["approach", "reason"], "properties": {"approach": {"type": "string", "minLength": 1}, "reason": {"type": "string", "minLength": 1}}}}'),
  ('status', false, '{orchestrator,user}', 'The outcome as the worker reported it.',
    '{"enum": ["success", "failed", "crashed", "cancelled", "rate_limited", "partial", "skipped", "gated", "extraction_failed"]}'),
  ('artifacts', false, '{orchestrator,user}', 'Commits, files, logs and references the work produced.',
    '{"type": "array", "items": {"type": "object", "required": ["kind", "ref"], "properties": {"kind": {"enum": ["commit", "file", "log", "ref"]}, "ref": {"type": "string", "minLength": 1}}}}'),
  ('gate', false, '{orchestrator,user}', 'The autonomous-mode gate category that applied, if any.',
    '{"type": "string"}'),
  ('gate_decision', false, '{orchestrator,user}',
    'What was decided at the gate: the decision point, the chosen option and what would have triggered the gate.',
    '{"type": "object", "properties": {"decision": {"type": "string"}, "chosen": {"type": "string"}, "trigger": {"type": "string"}}}');
