// The orchestrator's turn prompt: the pending user messages, the new handoffs' fields and the
// not-clean statuses, verbatim, plus the current focus. Built from the turn's journalled input.
import { z } from 'zod';
import type { TrellisThread } from '../core/contracts/trellis.ts';

/** What Trellis said when the turn started: its live thread, or why it could not say. */
export type TrellisAtTurn = { available: true; live_thread: TrellisThread | null } | { available: false; reason: string };

export const turnInputSchema = z.object({
  session_id: z.string().uuid(),
  input_seq: z.number(),
  messages: z.array(
    z.object({
      message_id: z.string(),
      event_id: z.string(),
      seq: z.number(),
      text: z.string(),
      created_at: z.string(),
      /** Earlier turns that were given this message and failed (each gave it back). */
      failed_turns: z.number().int().min(0).default(0),
    }),
  ),
  handoffs: z.array(z.object({ handoff_id: z.string(), task_id: z.string().nullable(), seq: z.number(), fields: z.record(z.string(), z.unknown()) })),
  not_clean: z.array(
    z.object({
      task_id: z.string(),
      event_id: z.string(),
      status: z.string(),
      reason: z.string().nullable(),
      attempt: z.unknown(),
      approach: z.string().nullable(),
    }),
  ),
  focus: z.object({ thread_id: z.union([z.string(), z.number()]).nullable(), task_id: z.string().nullable(), seq: z.number() }).nullable(),
  resume: z.string().nullable(),
});
export type TurnInput = z.infer<typeof turnInputSchema>;

/** The project's budget as dispatch.budget_state reports it (US dollars, the substrate's estimate). */
export interface BudgetState {
  per_task_usd: number | null;
  per_day_usd: number | null;
  spent_today_usd: number;
  remaining_today_usd: number | null;
  held_tasks: number;
}

/** One line on the budget for the turn prompt; null when the project has none. */
export function budgetLine(b: BudgetState | null | undefined): string | null {
  if (!b || (b.per_task_usd === null && b.per_day_usd === null)) return null;
  const parts: string[] = [];
  if (b.per_day_usd !== null) {
    parts.push(`$${(b.remaining_today_usd ?? 0).toFixed(2)} of the $${b.per_day_usd.toFixed(2)} daily budget left today ($${b.spent_today_usd.toFixed(2)} spent)`);
    if (b.held_tasks) parts.push(`${b.held_tasks} task(s) held until it is raised or the day ends`);
  }
  if (b.per_task_usd !== null) parts.push(`each worker stops at $${b.per_task_usd.toFixed(2)} and ends partial ("budget reached")`);
  return `Budget: ${parts.join('; ')}.`;
}

export function orchestratorPrompt(
  projectName: string,
  mode: string,
  input: TurnInput,
  trellis?: TrellisAtTurn,
  budget?: BudgetState | null,
): string {
  const parts: string[] = [];
  if (!input.resume) {
    parts.push(
      `You are the orchestrator of project "${projectName}" in petal-dispatch (mode: ${mode}).`,
      'You act only through the dispatch tools: get_project_state and get_handoffs to see where the work stands,',
      'check_ruled_out before choosing an approach, and spawn_worker to start one-shot workers with a brief and a named',
      'approach. Workers report back as handoffs in your next turn; never retry an approach a handoff ruled out.',
      'When the work is done, say so briefly and spawn nothing.',
      '',
    );
  }
  parts.push(`Turn of the orchestrator of project "${projectName}".`);
  const money = budgetLine(budget);
  if (money) parts.push(money);
  if (trellis?.available && trellis.live_thread) {
    const t = trellis.live_thread;
    parts.push(
      `Live Trellis thread: ${t.title ? `"${t.title}" ` : ''}(id ${JSON.stringify(t.id)}). ` +
        'Its recent context: trellis_context; the other threads: trellis_threads.',
    );
  } else if (trellis && !trellis.available) {
    parts.push(`Trellis is unavailable (${trellis.reason}); go on without it.`);
  }
  if (input.focus) parts.push(`Current focus: ${JSON.stringify({ thread_id: input.focus.thread_id, task_id: input.focus.task_id })}`);
  if (input.messages.length) {
    parts.push('', 'Messages from the user, in order:');
    for (const m of input.messages) {
      const again = m.failed_turns ? ` given_before="${m.failed_turns}"` : '';
      parts.push(`<user_message id="${m.message_id}"${again}>`, m.text, '</user_message>');
    }
    if (input.messages.some((m) => m.failed_turns)) {
      parts.push('A message marked given_before reached an earlier turn that failed before it was acted on; act on it now, once.');
    }
  }
  if (input.handoffs.length) {
    parts.push('', 'Handoffs that arrived since your last turn:');
    for (const h of input.handoffs) {
      parts.push(`<handoff id="${h.handoff_id}" task_id="${h.task_id}">`, JSON.stringify(h.fields, null, 2), '</handoff>');
    }
  }
  if (input.not_clean.length) {
    parts.push('', 'Tasks that ended not clean since your last turn:');
    for (const n of input.not_clean) {
      parts.push(`- task ${n.task_id} (approach: ${n.approach ?? 'none'}) ended ${n.status}: ${n.reason ?? 'no reason given'}`);
    }
  }
  return parts.join('\n');
}
