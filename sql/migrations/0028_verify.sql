-- Verification (issue 31): the project's own check runs after every worker that exits clean, its
-- verdict is journalled (verify.started / verify.finished) and carried by the handoff as evidence,
-- and a failing check goes back to the worker — its conversation resumed with the check's output
-- (worker.resume_requested), a new attempt of the same task.

insert into dispatch.event_types (name, tier, description) values
  ('verify.started', 'raw', 'the project''s check started for a task attempt (command, cwd, pid, host)'),
  ('verify.finished', 'raw', 'the project''s check ended: passed, exit_code, duration_ms, output_tail, command'),
  ('worker.resume_requested', 'raw', 'the task''s worker conversation resumes with a prompt, as a new attempt (reason, head_commit)');

-- The return policy learns a second cause besides how the process ended: the project's check.
-- ('failed', 'check') is what a failing check does; its max_attempts counts the first attempt too,
-- so 3 = two fixes (a project's verify.max_fix_attempts overrides it).
alter table dispatch.return_policies
  add column cause text not null default 'exit' check (cause in ('exit', 'check'));
alter table dispatch.return_policies drop constraint return_policies_pkey;
alter table dispatch.return_policies add primary key (status, cause);
insert into dispatch.return_policies (status, cause, action, max_attempts, delay_seconds, note) values
  ('failed', 'check', 'retry_modified', 3, 0, 'the check failed: the worker''s conversation resumes with its output');

-- merge_task grows `force` (a person's override of a missing or failed check); the one-argument
-- form goes, so a call from psql is never ambiguous.
drop function if exists dispatch.merge_task(uuid);
