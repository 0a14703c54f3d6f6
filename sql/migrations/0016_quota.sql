-- Quota as one account-wide state. When any session's stream says the account is rate limited (a
-- 429 api_retry, a rejected rate_limit_event, a "usage limit reached" result), the runner records
-- "rate limited until T" here (dispatch.rate_limited); until T, workers about to start wait as
-- queued (dispatch.wait_for_quota re-enqueues them at T) instead of each starting and failing.

create table dispatch.quota (
  id            integer primary key default 1 check (id = 1),
  limited_until timestamptz,
  reason        text,
  session_id    uuid references dispatch.sessions,
  updated_at    timestamptz not null default now()
);
insert into dispatch.quota (id) values (1);

insert into dispatch.event_types (name, tier, description) values
  ('claude.rate_limit', 'raw', 'stream-json rate_limit_event: the account''s quota window changed (rejected = refused until resetsAt)'),
  ('quota.limited', 'raw', 'the account is rate limited until a time {until, reason, session_id}; workers wait until then');
