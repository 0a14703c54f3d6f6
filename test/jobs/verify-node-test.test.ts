// One run on a real package whose `node --test` suite is the project's check: the worker first
// claims the bug is fixed without touching it, the real test runner's failure goes back to it, it
// fixes the code, the suite passes and the task ends success with that verdict as evidence.
// VERIFY_RUN_OUT=<file> keeps the journalled verdicts (docs/execution-loop.md quotes one).
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';
import { makeRepo } from '../helpers/repo.ts';

const text = (t: string) => ({ text: t, chunks: 1, delay_ms: 0 });
const scenarios: Scenario[] = [
  {
    name: 'node-test',
    description: '',
    conversations: [
      { match: 'SUM-FIXED', steps: [text(JSON.stringify({ goal: 'fix sum', current_state: 'sum adds', ruled_out: [], artifacts: [{ kind: 'file', ref: 'sum.js' }] }))] },
      {
        match: 'Fix the sum function',
        steps: [
          text('The sum function is fixed and all tests pass.'),
          { tool_use: { name: 'Bash', input: { command: "sed -i 's/return a - b;/return a + b;/' sum.js", description: 'fix sum' } } },
          text('SUM-FIXED: sum.js now adds; node --test passes.'),
        ],
      },
    ],
  },
];

let loop: Loop;
beforeAll(async () => {
  loop = await startLoop({ scenarios });
});

describe('a real package whose node --test suite is the check', () => {
  it('fails the claim, sends the test runner output back, and passes after the fix', async () => {
    const repo = makeRepo({
      'package.json': JSON.stringify({ name: 'sum', version: '1.0.0', type: 'module' }, null, 2) + '\n',
      'sum.js': 'export function sum(a, b) {\n  return a - b;\n}\n',
      'sum.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sum } from './sum.js';\n\ntest('sum adds', () => {\n  assert.equal(sum(2, 3), 5);\n});\n",
    });
    const p = await loop.project('node test', { repo: repo.dir, allowed_tools: ['Bash', 'Read'], verify: { command: ['node', '--test'], timeout_s: 60 } });
    const taskId = await loop.submit(p, 'Fix the sum function so that its tests pass.');
    const done = await loop.waitTask(taskId, ['success', 'failed', 'extraction_failed'], 150_000);
    const events = await eventsOf(loop.db, taskId);
    const verdicts = events.filter((e) => e.event_type === 'verify.finished').map((e) => e.payload);
    if (process.env.VERIFY_RUN_OUT) {
      const kept = events.filter((e) => /^(verify\.|worker\.resume|policy\.|task\.status|handoff$)/.test(e.event_type)).map((e) => ({ seq: e.seq, type: e.event_type, payload: e.payload }));
      fs.writeFileSync(process.env.VERIFY_RUN_OUT, JSON.stringify(kept, null, 2));
    }
    expect(done).toMatchObject({ status: 'success', attempt: 2 });
    expect(verdicts.map((v) => [v.attempt, v.passed, v.exit_code])).toEqual([[1, false, 1], [2, true, 0]]);
    expect(verdicts[0]!.output_tail).toMatch(/# fail 1/);
    expect(verdicts[1]!.output_tail).toMatch(/# pass 1/);
    const h = events.find((e) => e.event_type === 'handoff')!.payload as { evidence: { verify: { passed: boolean }; diff: { paths: string[] }; unbacked_claims: unknown[] } };
    expect(h.evidence.verify.passed).toBe(true);
    expect(h.evidence.diff.paths).toEqual(['sum.js']);
    expect(h.evidence.unbacked_claims).toEqual([]);
  }, 200_000);
});
