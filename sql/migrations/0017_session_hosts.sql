-- Sessions belong to their host (RUNNER_HOST_ID): a runner elsewhere hands a session's job to that
-- host's runners, and only when every runner of that host has been silent past HOST_LOST_SECONDS is
-- the session declared lost.
insert into dispatch.event_types (name, tier, description) values
  ('session.handed_over', 'raw', 'a runner on another host gave the session''s job to the session''s own host (host, by_host, by_runner)');
-- session.lost exists since 0001 ("the runner owning a process disappeared"); it now means: every
-- runner of the session's host was silent past HOST_LOST_SECONDS (payload host, silent_s, timeout_s).
