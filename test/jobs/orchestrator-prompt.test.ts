// The orchestrator's turn prompt tells it what is left of the project's budget.
import { describe, expect, it } from 'vitest';
import { budgetLine, orchestratorPrompt } from '../../jobs/orchestrator-prompt.ts';

const input = { session_id: crypto.randomUUID(), input_seq: 1, messages: [], handoffs: [], not_clean: [], focus: null, resume: 'abc' };

describe('the budget in the turn prompt', () => {
  it('says what is left today, what is held and where a worker stops', () => {
    const b = { per_task_usd: 0.5, per_day_usd: 5, spent_today_usd: 4.2, remaining_today_usd: 0.8, held_tasks: 2 };
    expect(budgetLine(b)).toBe(
      'Budget: $0.80 of the $5.00 daily budget left today ($4.20 spent); 2 task(s) held until it is raised or the day ends; each worker stops at $0.50 and ends partial ("budget reached").',
    );
    expect(orchestratorPrompt('p', 'autonomous', input, undefined, b)).toContain('Budget: $0.80 of the $5.00 daily budget');
  });

  it('says nothing without a budget', () => {
    expect(budgetLine({ per_task_usd: null, per_day_usd: null, spent_today_usd: 3, remaining_today_usd: null, held_tasks: 0 })).toBeNull();
    expect(orchestratorPrompt('p', 'autonomous', input, undefined, null)).not.toContain('Budget');
  });
});
