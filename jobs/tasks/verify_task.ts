// verify_task {task_id}: the project's check (config.verify) for the task's current attempt, after
// its worker exited clean and before extraction. The check is run by the system, not the model:
// verify.started / verify.finished are journalled by this job, once per attempt. Passed → the
// handoff is extracted; failed → dispatch.check_failed (the return policy's ('failed', 'check') row)
// resumes the worker's conversation with the output, or ends the task failed (stuck, fixes used).
// A runner that died mid-check: the job runs again (its lock freed by the runner sweep), the
// orphaned check of this host is killed and the check re-run, journalled `rerun: true`.
import path from 'node:path';
import type { Task } from 'graphile-worker';
import { VERIFY_DEFAULTS } from '../../core/contracts/project-config.ts';
import { isAlive, killGroup } from '../../core/process.ts';
import { taskPayload, type JobContext, type TaskRow } from '../context.ts';
import { CHECK_ENV, CheckInterrupted, runCheck, type CheckVerdict } from '../verify/check.ts';
import { fixPrompt } from '../verify/prompt.ts';
import { workspaceDir } from '../workspace/worktree.ts';
import { endNotClean, loadTask, projectConfig, workDir } from './shared.ts';
import fs from 'node:fs';

export function verifyTask(ctx: JobContext): Task {
  return async (raw, helpers) => {
    const { task_id } = taskPayload.parse(raw);
    const task = await loadTask(ctx, task_id);
    if (!task || task.ended_at) return;
    const verify = projectConfig(task).verify;
    if (!verify) return extract(ctx, task, 'worker finished; extracting its handoff'); // the check was removed meanwhile

    const [known] = await ctx.sql<{ v: CheckVerdict | null }[]>`select dispatch.attempt_check(${task.id}, ${task.attempt}) as v`;
    const verdict = known!.v ?? (await check(ctx, task, verify.command, (verify.timeout_s ?? VERIFY_DEFAULTS.timeout_s) * 1000, helpers.abortSignal));

    const now = await loadTask(ctx, task_id);
    if (!now || now.ended_at) return;
    if (now.cancel_requested_at) return endNotClean(ctx, task_id, 'cancelled', 'cancel requested during the check');
    if (verdict.passed) return extract(ctx, now, `check passed in ${Math.round(verdict.duration_ms / 100) / 10} s; extracting its handoff`);
    const [fixes] = await ctx.sql<{ n: number }[]>`
      select count(*)::int as n from dispatch.events
       where task_id = ${task_id} and event_type = 'worker.resume_requested' and payload ->> 'reason' = 'check_failed'`;
    const allowed = verify.max_fix_attempts ?? VERIFY_DEFAULTS.max_fix_attempts;
    await ctx.sql`select dispatch.check_failed(${task_id}, ${fixPrompt(verdict, fixes!.n + 1, allowed)})`;
  };
}

/** Runs the attempt's check (again, when a runner died during it) and journals its verdict once. */
async function check(ctx: JobContext, task: TaskRow, command: string[], timeoutMs: number, abort: AbortSignal): Promise<CheckVerdict> {
  const identity = `${task.id}:${task.attempt}`;
  const [open] = await ctx.sql<{ pid: number | null; host: string }[]>`
    select (payload ->> 'pid')::int as pid, payload ->> 'host' as host from dispatch.events
     where task_id = ${task.id} and event_type = 'verify.started' and (payload ->> 'attempt')::int = ${task.attempt}
     order by seq desc limit 1`;
  // Its runner died during it: the check it left here is stopped (its verdict would reach no one).
  if (open?.pid && open.host === ctx.host && isAlive(open.pid) && runsCheck(open.pid, identity)) killGroup(open.pid, 'SIGKILL');
  const cwd = (await workspaceDir(ctx, task)) ?? workDir(ctx, task);
  await ctx.sql`select dispatch.set_task_status(${task.id}, 'running', ${`checking: ${command.join(' ')}`})`;

  const live = { sessionId: task.id, taskId: task.id, terminate: () => stopper.abort() };
  const stopper = new AbortController();
  // The runner's signal outlives this job: the listener goes with it (or every check would leave one).
  const onAbort = () => stopper.abort();
  abort.addEventListener('abort', onAbort, { once: true });
  ctx.live.set(task.id, live);
  try {
    const verdict = await runCheck({
      command, cwd, timeoutMs, identity, abort: stopper.signal,
      env: ctx.childEnv,
      spool: path.join(ctx.dataDir, 'spool', `check-${task.id}-${task.attempt}.out`),
      onStart: async (pid) => {
        await ctx.sql`select dispatch.verify_started(${task.id}, ${task.attempt}, ${ctx.sql.json(command)}, ${cwd}, ${pid},
                                                     ${ctx.host}, ${ctx.runnerId}, ${open !== undefined})`;
      },
    });
    const [row] = await ctx.sql<{ v: CheckVerdict }[]>`
      select dispatch.verify_finished(${task.id}, ${task.attempt}, ${JSON.stringify(verdict)}::text::jsonb) as v`;
    return row!.v;
  } catch (err) {
    // A cancel stopped it: that is a verdict (failed), the cancel then ends the task.
    if (err instanceof CheckInterrupted && !abort.aborted) {
      const v: CheckVerdict = { passed: false, exit_code: null, signal: 'SIGTERM', duration_ms: 0, output_tail: '', command, timed_out: false, reason: 'stopped: cancel requested' };
      const [row] = await ctx.sql<{ v: CheckVerdict }[]>`select dispatch.verify_finished(${task.id}, ${task.attempt}, ${JSON.stringify(v)}::text::jsonb) as v`;
      return row!.v;
    }
    throw err; // the runner is stopping: the job runs again on the next one
  } finally {
    abort.removeEventListener('abort', onAbort);
    if (ctx.live.get(task.id) === live) ctx.live.delete(task.id);
  }
}

function runsCheck(pid: number, identity: string): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${CHECK_ENV}=${identity}`);
  } catch {
    return false;
  }
}

async function extract(ctx: JobContext, task: TaskRow, reason: string): Promise<void> {
  await ctx.sql.begin(async (tx) => {
    await tx`select dispatch.set_task_status(${task.id}, 'running', ${reason})`;
    await tx`select graphile_worker.add_job('extract_handoff', ${tx.json({ task_id: task.id })}::json,
               job_key := ${`extract_handoff:${task.id}:${task.attempt}`}, max_attempts := 25)`;
  });
}
