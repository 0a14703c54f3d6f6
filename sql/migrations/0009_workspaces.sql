-- Workspaces: one git worktree per task attempt in the project's repository (project config `repo`,
-- `base`). The row is a cache of the journal's workspace.* events plus what git needs to find the
-- work again (path, branch, commits); a worktree holding work is never deleted by a crash.

create table dispatch.workspaces (
  id           uuid primary key default gen_random_uuid(),
  project_id   uuid not null references dispatch.projects,
  task_id      uuid not null references dispatch.tasks,
  attempt      integer not null check (attempt >= 1),
  repo         text not null,
  base         text not null,            -- the branch a merge goes into
  branch       text not null,            -- dispatch/<short task id>-<attempt>
  path         text not null,            -- the worktree, under DISPATCH_DATA_DIR/worktrees/
  from_ref     text not null,            -- what the branch started from: base, or the parent task's branch
  base_commit  text not null,
  head_commit  text,
  -- active: a worker may be writing · ready: its change waits for a decision · empty: no change ·
  -- merging / discarding: the job is queued · merged / discarded: decided · continued: a follow-up
  -- task carries the work on · superseded: a later attempt of the task took over
  state        text not null default 'active' check (state in
                 ('active', 'ready', 'empty', 'merging', 'merged', 'discarding', 'discarded', 'continued', 'superseded')),
  conflicts    jsonb not null default '[]'::jsonb, -- files that conflict with base at the last check
  conflict_detail text,                             -- the conflicted files with their markers (bounded)
  checked_at   timestamptz,
  removed_at   timestamptz,                         -- the worktree was removed (merged or discarded)
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  unique (task_id, attempt),
  unique (repo, branch)
);
create index workspaces_waiting_idx on dispatch.workspaces (project_id) where state = 'ready';

insert into dispatch.event_types (name, tier, description) values
  ('workspace.created', 'raw', 'a git worktree was made for a task attempt: path, branch, base commit'),
  ('workspace.changed', 'raw', 'a worker ended: its change (branch, commits, files with +/-, the bounded patch)'),
  ('workspace.failed', 'raw', 'the task''s workspace could not be made (not a repository, unknown base, no git)'),
  ('workspace.merge_requested', 'raw', 'someone asked to merge the task''s branch into base'),
  ('workspace.merged', 'raw', 'the task''s branch was merged into base (fast-forward or merge commit)'),
  ('workspace.merge_refused', 'raw', 'a merge was refused (conflicting files named, or base could not move)'),
  ('workspace.discard_requested', 'raw', 'someone asked to discard the task''s change'),
  ('workspace.discarded', 'raw', 'the task''s worktree and branch were removed; its patch stays in the journal'),
  ('workspace.continued', 'raw', 'a follow-up task carries the change on from its branch'),
  ('workspace.removed', 'raw', 'housekeeping removed a decided task''s worktree');
