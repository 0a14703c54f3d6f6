// The validation gate as a function: the extractor's answer against the seeded contract rows.
// (The gate's writes are proven end to end in execution.test.ts.)
import { beforeAll, describe, expect, it } from 'vitest';
import { extractorPrompt, loadContract, validateHandoff, type ContractField } from '../../jobs/handoff-contract.ts';
import { createTestDb } from '../helpers/db.ts';

let contract: ContractField[];
beforeAll(async () => {
  contract = await loadContract((await createTestDb()).sql);
});

const good = { goal: 'Fix the parser', current_state: 'Fixed, tests pass', ruled_out: [{ approach: 'regex', reason: 'too fragile' }] };

describe('the validation gate', () => {
  it('passes a bare JSON object, keeping fields the contract does not name', () => {
    expect(validateHandoff(contract, JSON.stringify({ ...good, mood: 'fine' }))).toEqual({ ok: true, handoff: { ...good, mood: 'fine' } });
  });

  it('passes one fenced json block with words around it', () => {
    const answer = `Here it is:\n\n\`\`\`json\n${JSON.stringify(good, null, 2)}\n\`\`\`\nThat is all.`;
    expect(validateHandoff(contract, answer)).toEqual({ ok: true, handoff: good });
  });

  it('passes an empty ruled_out list (FR-011: required, may be empty)', () => {
    expect(validateHandoff(contract, JSON.stringify({ ...good, ruled_out: [] })).ok).toBe(true);
  });

  it('names each missing required field', () => {
    const r = validateHandoff(contract, JSON.stringify({ goal: 'x' }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => e.field).sort()).toEqual(['current_state', 'ruled_out']);
  });

  it('refuses fields of the wrong shape, naming where', () => {
    const r = validateHandoff(contract, JSON.stringify({ ...good, status: 'fine', artifacts: [{ kind: 'photo', ref: 'x' }], ruled_out: [{ approach: 'a' }] }));
    expect(r.ok).toBe(false);
    const fields = !r.ok ? r.errors.map((e) => e.field) : [];
    expect(fields).toEqual(expect.arrayContaining(['status', 'artifacts.0.kind', 'reason']));
  });

  it('refuses no JSON, two blocks, broken JSON, and JSON that is not an object', () => {
    const cases: [string, RegExp][] = [
      ['All done, no handoff needed.', /no JSON object/],
      ['```json\n{}\n```\n```json\n{}\n```', /found 2/],
      ['{"goal": ', /not valid JSON/],
      ['```json\n[1, 2]\n```', /not an object/],
    ];
    for (const [answer, message] of cases) {
      const r = validateHandoff(contract, answer);
      expect(r).toEqual({ ok: false, errors: [{ field: '(answer)', message: expect.stringMatching(message) }] });
    }
  });
});

describe('the extractor prompt', () => {
  it('carries the worker\'s output and the brief verbatim, and every contract field', () => {
    const output = 'Result: <b>done</b>\n```json\n{"x":1}\n```';
    const prompt = extractorPrompt(contract, 'The brief, verbatim.', output);
    expect(prompt).toContain(`<worker_output>\n${output}\n</worker_output>`);
    expect(prompt).toContain('<task_brief>\nThe brief, verbatim.\n</task_brief>');
    for (const f of contract) expect(prompt).toContain(`- ${f.field_key}${f.required ? ' (required)' : ''}: ${f.semantics}`);
  });
});
