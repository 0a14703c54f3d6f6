// validate_handoff {task_id}: the validation gate (D-18). The only code that writes a derived row:
// pass → one `handoff` row (tier derived) under the worker's result event; fail → the task ends
// extraction_failed with the errors journalled, no handoff, no retry (FR-009).
import type { Task } from 'graphile-worker';
import { taskPayload, type JobContext } from '../context.ts';
import { loadContract, validateHandoff } from '../handoff-contract.ts';
import { workspaceArtifacts } from '../workspace/worktree.ts';
import { evidenceFor } from '../verify/evidence.ts';
import { endNotClean, lastResult, latestSession, loadTask } from './shared.ts';

export function validateHandoffJob(ctx: JobContext): Task {
  return async (raw) => {
    const { task_id } = taskPayload.parse(raw);
    const task = await loadTask(ctx, task_id);
    if (!task || task.ended_at) return;
    const worker = await latestSession(ctx, task, 'worker');
    const extractor = await latestSession(ctx, task, 'extractor');
    if (!worker || !extractor || extractor.status !== 'success') return;

    const answer = await lastResult(ctx, extractor.id);
    const workerResult = await lastResult(ctx, worker.id);
    const verdict = validateHandoff(await loadContract(ctx.sql), answer.text);

    if (!verdict.ok) {
      await ctx.sql`select dispatch.reject_handoff(${task_id}, ${extractor.id}, ${JSON.stringify(verdict.errors)}::text::jsonb,
                                                  ${answer.text}, ${task.attempt})`;
      const summary = verdict.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      await endNotClean(ctx, task_id, 'extraction_failed', `handoff failed the gate: ${summary}`);
      return;
    }

    // The attempt's branch and head commit travel with the handoff (its workspace, if any).
    const extra = await workspaceArtifacts(ctx, task);
    const h = verdict.handoff as Record<string, unknown>;
    // Evidence is the system's, from the journal: whatever the extractor put under that key goes.
    h.evidence = await evidenceFor(ctx.sql, task_id, task.attempt, h.artifacts);
    if (extra.length) h.artifacts = [...(Array.isArray(h.artifacts) ? h.artifacts : []), ...extra];
    await ctx.sql.begin(async (tx) => {
      await tx`select set_config('dispatch.handoff_gate', 'validated', true)`;
      const [h] = await tx<{ event_id: string }[]>`
        insert into dispatch.events (project_id, session_id, task_id, parent_id, event_type, tier, payload)
        values (${task.project_id}, ${worker.id}, ${task_id}, ${workerResult.eventId}, 'handoff', 'derived',
                ${tx.json(verdict.handoff as Record<string, never>)})
        returning event_id`;
      await tx`select set_config('dispatch.handoff_gate', '', true)`;
      // The handoff itself may say the work is incomplete: the task ends partial, with its handoff.
      const partial = (verdict.handoff as { status?: unknown }).status === 'partial';
      await tx`select dispatch.set_task_status(${task_id}, ${partial ? 'partial' : 'success'},
                 ${partial ? 'handoff validated; it says the work is partial' : 'handoff validated'},
                 ${tx.json({ handoff_id: h!.event_id })})`;
      await tx`select dispatch.after_handoff(${task_id})`;
    });
  };
}
