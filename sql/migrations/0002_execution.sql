-- The execution loop: runners, session spool files, cancel requests and the not-clean-return policy.

create table dispatch.runners (
  id           text primary key,           -- host:pid:random
  host         text not null,
  pid          integer not null,
  worker_ids   text[] not null default '{}', -- graphile-worker ids, to unlock their jobs if this runner dies
  started_at   timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  stopped_at   timestamptz
);

alter table dispatch.sessions
  add column attempt integer,
  add column spool_path text,
  add column adopted_by text;

alter table dispatch.tasks
  add column cancel_requested_at timestamptz;

-- What to do when a task ends not clean (Phase 2). Data, not code: change a row to change the policy.
create table dispatch.return_policies (
  status        text primary key references dispatch.statuses,
  action        text not null check (action in
                  ('retry_same', 'retry_modified', 'escalate_orchestrator', 'escalate_user', 'skip', 'back_off', 'none')),
  max_attempts  integer not null default 1 check (max_attempts >= 1),
  delay_seconds integer not null default 0 check (delay_seconds >= 0),
  note          text not null default ''
);

insert into dispatch.return_policies (status, action, max_attempts, delay_seconds, note) values
  ('rate_limited', 'back_off', 3, 300, 'quota or auth: wait, then run the same brief again'),
  ('crashed', 'retry_same', 2, 0, 'abnormal exit: one more try with the same brief'),
  ('failed', 'escalate_orchestrator', 1, 0, 'a real error: the orchestrator decides'),
  ('partial', 'escalate_orchestrator', 1, 0, 'incomplete work: the orchestrator decides'),
  ('extraction_failed', 'escalate_user', 1, 0, 'the work is there but its handoff is not: a person looks'),
  ('gated', 'escalate_user', 1, 0, 'a hard gate fired: a person decides'),
  ('skipped', 'none', 1, 0, ''),
  ('cancelled', 'none', 1, 0, 'someone stopped it on purpose');

insert into dispatch.event_types (name, tier, description) values
  ('session.adopted', 'raw', 'a runner took over a session whose runner went away'),
  ('handoff.rejected', 'raw', 'the extractor''s answer failed the validation gate (errors in payload)'),
  ('policy.decision', 'raw', 'what the not-clean-return policy decided for a task'),
  ('runner.lost', 'raw', 'a runner stopped heart-beating; its jobs were unlocked');
