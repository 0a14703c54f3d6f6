// extract_handoff {task_id}: run the extractor — another substrate process, journalled as a session
// with role extractor under the worker's session — over the worker's final result text (D-15, D-21).
import type { Task } from 'graphile-worker';
import { taskPayload, type JobContext } from '../context.ts';
import { extractorPrompt, loadContract } from '../handoff-contract.ts';
import { extractorIntent } from '../intents.ts';
import { workspaceDir } from '../workspace/worktree.ts';
import { endNotClean, lastResult, latestSession, loadTask, projectConfig, runOrAdopt, workDir } from './shared.ts';

export function extractHandoff(ctx: JobContext): Task {
  return async (raw, helpers) => {
    const { task_id } = taskPayload.parse(raw);
    const task = await loadTask(ctx, task_id);
    if (!task || task.ended_at) return;
    const worker = await latestSession(ctx, task, 'worker');
    if (!worker || worker.status !== 'success') return;

    const previous = await latestSession(ctx, task, 'extractor');
    let status = previous?.status;
    let reason = '';
    if (!previous?.ended_at) {
      const result = await lastResult(ctx, worker.id);
      const prompt = extractorPrompt(await loadContract(ctx.sql), task.brief, result.text);
      const intent = extractorIntent(prompt, projectConfig(task), (await workspaceDir(ctx, task)) ?? workDir(ctx, task));
      const { outcome } = await runOrAdopt(ctx, task, intent, helpers.abortSignal, worker.id);
      status = outcome.status;
      reason = outcome.reason;
    }
    // A cancel asked for while the extractor ran (it stopped it) ends the task cancelled, as it
    // does while the worker runs — not extraction_failed, which would ask the person to look.
    const now = await loadTask(ctx, task_id);
    if (now?.cancel_requested_at) {
      await endNotClean(ctx, task_id, 'cancelled', status === 'cancelled' ? reason : `cancel requested; the extractor ended ${status}`);
      return;
    }
    if (status !== 'success') {
      await endNotClean(ctx, task_id, 'extraction_failed', `the extractor ended ${status}${reason ? `: ${reason}` : ''}`);
      return;
    }
    await ctx.sql`select graphile_worker.add_job('validate_handoff', ${ctx.sql.json({ task_id })}::json,
                    job_key := ${`validate_handoff:${task_id}:${task.attempt}`}, max_attempts := 25)`;
  };
}
