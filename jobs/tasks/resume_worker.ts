// resume_worker {task_id}: a gate of the task was decided; its worker's conversation resumes where it
// stopped (`--resume`, no new prompt), its gate hook finds the recorded decision for that very call
// (the tool runs, or is refused with the person's reason), and the task carries on to its normal end.
import type { Task } from 'graphile-worker';
import { taskPayload, type JobContext } from '../context.ts';
import { workerIntent } from '../intents.ts';
import { gateFor, latestSession, loadTask, projectConfig, runOrAdopt, workDir } from './shared.ts';
import { workspaceDir } from '../workspace/worktree.ts';
import { afterWorker } from './spawn_worker.ts';

export function resumeWorker(ctx: JobContext): Task {
  return async (raw, helpers) => {
    const { task_id } = taskPayload.parse(raw);
    const task = await loadTask(ctx, task_id);
    if (!task || task.ended_at) return; // gone, or over (cancelled while it waited)

    const last = await latestSession(ctx, task, 'worker');
    if (!last) return;
    let resumeFrom: string | null = null;
    if (last.ended_at) {
      // A finished resumed run whose follow-up was lost, or the gated run to continue.
      if (last.status !== 'gated') return afterWorker(ctx, task_id, last.status as never, '', last.id);
      const [row] = await ctx.sql<{ c: string | null }[]>`select claude_session_id as c from dispatch.sessions where id = ${last.id}`;
      resumeFrom = row?.c ?? null;
      if (!resumeFrom) throw new Error(`session ${last.id} ended gated without a substrate session id to resume`);
    }
    const cwd = (await workspaceDir(ctx, task)) ?? workDir(ctx, task);
    const base = { ...workerIntent(task, projectConfig(task), cwd, ctx.config), prompt: '', resume: resumeFrom };
    const { outcome, sessionId } = await runOrAdopt(ctx, task, async (sid) => ({ ...base, gate: await gateFor(ctx, sid, cwd) }), helpers.abortSignal);
    await afterWorker(ctx, task_id, outcome.status, outcome.reason, sessionId);
  };
}
