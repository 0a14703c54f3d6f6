// The job identifiers, one graphile-worker task each (registered in ./index.ts). SQL in sql/ and the
// TypeScript enqueue by these names; test/jobs/job-names.test.ts fails on an enqueue of any other.
export const JOB_NAMES = [
  'spawn_worker',
  'extract_handoff',
  'validate_handoff',
  'sweep_sessions',
  'orchestrator_turn',
  'push_notify',
  'release_held',
  'resume_worker',
  'check_host',
  'merge_workspace',
  'discard_workspace',
  'prune_workspaces',
  'expire_gates',
  'verify_task',
  'continue_worker',
  'fire_schedules',
] as const;

export type JobName = (typeof JOB_NAMES)[number];

/** The jobs whose runs supervise a session, and so may be bound to a host (`<name>@<host>`). */
export const SESSION_JOBS = ['spawn_worker', 'extract_handoff', 'orchestrator_turn', 'resume_worker', 'continue_worker'] as const satisfies readonly JobName[];

export type SessionJobName = (typeof SESSION_JOBS)[number];
