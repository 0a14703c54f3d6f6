// The job registry: one graphile-worker task per identifier (./names.ts), each in its own file.
import type { Task, TaskList } from 'graphile-worker';
import type { JobContext } from '../context.ts';
import { hostBound, hostTasks } from '../host-bound.ts';
import { checkHost } from './check_host.ts';
import { discardWorkspaceJob } from './discard_workspace.ts';
import { expireGates } from './expire_gates.ts';
import { extractHandoff } from './extract_handoff.ts';
import { fireSchedules } from './fire_schedules.ts';
import { mergeWorkspaceJob } from './merge_workspace.ts';
import type { JobName } from './names.ts';
import { orchestratorTurn } from './orchestrator_turn.ts';
import { pruneWorkspacesJob } from './prune_workspaces.ts';
import { pushNotify } from './push_notify.ts';
import { releaseHeld } from './release_held.ts';
import { resumeWorker } from './resume_worker.ts';
import { spawnWorker } from './spawn_worker.ts';
import { sweepSessions } from './sweep_sessions.ts';
import { validateHandoffJob } from './validate_handoff.ts';
import { verifyTask } from './verify_task.ts';
import { continueWorker } from './continue_worker.ts';

export { JOB_NAMES, SESSION_JOBS, type JobName, type SessionJobName } from './names.ts';

export function taskList(ctx: JobContext): TaskList {
  // Every name, and no other: a name added to JOB_NAMES without its task does not compile.
  const list: Record<JobName, Task> = {
    spawn_worker: hostBound(ctx, 'spawn_worker', spawnWorker(ctx)),
    extract_handoff: hostBound(ctx, 'extract_handoff', extractHandoff(ctx)),
    validate_handoff: validateHandoffJob(ctx),
    sweep_sessions: sweepSessions(ctx),
    orchestrator_turn: hostBound(ctx, 'orchestrator_turn', orchestratorTurn(ctx)),
    push_notify: pushNotify(ctx),
    release_held: releaseHeld(ctx),
    resume_worker: hostBound(ctx, 'resume_worker', resumeWorker(ctx)),
    check_host: checkHost(ctx),
    merge_workspace: mergeWorkspaceJob(ctx),
    discard_workspace: discardWorkspaceJob(ctx),
    prune_workspaces: pruneWorkspacesJob(ctx),
    expire_gates: expireGates(ctx),
    verify_task: verifyTask(ctx),
    continue_worker: hostBound(ctx, 'continue_worker', continueWorker(ctx)),
    fire_schedules: fireSchedules(ctx),
  };
  // Jobs handed to this host (`spawn_worker@<RUNNER_HOST_ID>`, …): only runners here take them.
  return { ...list, ...hostTasks(ctx, list) };
}
