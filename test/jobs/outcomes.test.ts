// The outcome statuses past success and failure, each reached with the real CLI: partial (the
// validated handoff says so, or the run hit its turn cap) — gated and skipped are reached in
// test/jobs/gates.test.ts and test/functions/mcp-gates.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';

const scenarios: Scenario[] = [
  {
    name: 'outcomes',
    description: '',
    conversations: [
      {
        match: 'HALF-DONE',
        steps: [{ text: JSON.stringify({ goal: 'Translate the docs', current_state: 'half of the pages are translated', next_step: 'the other half', ruled_out: [], status: 'partial' }), chunks: 1, delay_ms: 0 }],
      },
      { match: 'Translate the docs', steps: [{ text: 'HALF-DONE: I translated half of the pages and ran out of time.', chunks: 1, delay_ms: 0 }] },
      {
        match: 'Count the files',
        steps: [
          { text: 'Counting.', tool_use: { name: 'Bash', input: { command: 'echo 1', description: 'count' } } },
          { text: 'Counting more.', tool_use: { name: 'Bash', input: { command: 'echo 2', description: 'count' } } },
          { text: 'Done counting.', chunks: 1, delay_ms: 0 },
        ],
      },
    ],
  },
];

let loop: Loop;
beforeAll(async () => {
  loop = await startLoop({ scenarios });
});

describe('partial', () => {
  it('a validated handoff that says partial ends the task partial, with its handoff', async () => {
    const p = await loop.project('partial handoff', { allowed_tools: ['Bash'] });
    const taskId = await loop.submit(p, 'Translate the docs.');
    const t = await loop.waitTask(taskId, ['partial', 'success', 'failed', 'extraction_failed'], 60_000);
    expect(t).toMatchObject({ status: 'partial', status_reason: 'handoff validated; it says the work is partial' });
    expect((await eventsOf(loop.db, taskId)).filter((e) => e.event_type === 'handoff')).toHaveLength(1);
  });

  it('a run stopped at its turn cap ends partial', async () => {
    const p = await loop.project('turn cap', { allowed_tools: ['Bash'], extra_args: ['--max-turns', '1'] });
    const taskId = await loop.submit(p, 'Count the files.');
    const t = await loop.waitTask(taskId, ['partial', 'success', 'failed'], 60_000);
    expect(t).toMatchObject({ status: 'partial', status_reason: 'stopped at its turn limit' });
  });
});
