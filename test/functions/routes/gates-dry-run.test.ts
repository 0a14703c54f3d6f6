// The gate dry run (POST /api/gates/dry-run): what the gate would answer for a call, with nothing
// opened or journalled, and the corpus of real agent calls run through it — the suite fails when a
// risky call passes, lands in another category, or a routine one is gated.
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../../helpers/app.ts';
import { risky } from './gate-corpus/risky.ts';
import { routine } from './gate-corpus/routine.ts';
import { formatScore, scoreCorpus } from './gate-corpus/score.ts';
import { CWD, toolCall } from './gate-corpus/types.ts';

let t: Awaited<ReturnType<typeof startTestApp>>;
let project: string;

async function dry(tool: string, input: Record<string, unknown>, p = project) {
  const res = await t.call('POST', '/api/gates/dry-run', { project_id: p, tool, input, cwd: CWD });
  expect(res.status, `${tool} ${JSON.stringify(input)}`).toBe(200);
  return (await res.json()) as { decision: string; category?: string; rule?: string; reason?: string; fact?: string };
}

beforeAll(async () => {
  t = await startTestApp();
  const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('dry run') as id`;
  project = p!.id;
});

describe('the dry run', () => {
  it('answers the decision, category, rule, reason and the fact that matched, and writes nothing', async () => {
    const [{ n: before } = { n: 0 }] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
    expect(await dry('Bash', { command: 'printenv ANTHROPIC_API_KEY' })).toEqual({
      decision: 'ask', category: 'secrets', rule: 'secrets.env', reason: 'reveals secret environment variables', fact: 'env ANTHROPIC_API_KEY',
    });
    expect(await dry('Bash', { command: 'rm -rf /' })).toMatchObject({ decision: 'deny', category: 'destructive' });
    expect(await dry('Bash', { command: 'ls' })).toEqual({ decision: 'pass' });
    const [{ n: after } = { n: 0 }] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
    expect(after).toBe(before);
    expect(await t.db.sql`select 1 from dispatch.gates`).toHaveLength(0);
  });

  it('answers allow where a project rule allows the call', async () => {
    const [p] = await t.db.sql<{ id: string }[]>`
      select dispatch.create_project('installs unasked', ${JSON.stringify({ gates: [{ fact: '^install npm ', decision: 'allow', category: 'dependencies' }] })}::text::jsonb) as id`;
    expect(await dry('Bash', { command: 'npm install zod' }, p!.id)).toMatchObject({ decision: 'allow', rule: 'project.1' });
    expect(await dry('Bash', { command: 'pip install requests' }, p!.id)).toMatchObject({ decision: 'ask', category: 'dependencies' });
  });

  it('refuses bad input with 400 naming the field, and an unknown project with 404', async () => {
    const cases: [unknown, string][] = [
      [{ project_id: project, tool: 'Bash', input: 'ls' }, 'input'],
      [{ project_id: project, tool: 'Bash', input: { cmd: 'ls' } }, 'input.command'],
      [{ project_id: project, tool: 'Edit', input: { file_path: 3 } }, 'input.file_path'],
      [{ project_id: 'nope', tool: 'Bash', input: { command: 'ls' } }, 'project_id'],
      [{ project_id: project, input: { command: 'ls' } }, 'tool'],
    ];
    for (const [body, field] of cases) {
      const res = await t.call('POST', '/api/gates/dry-run', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const e = (await res.json()) as { error: { code: string; message: string } };
      expect(e.error.message, JSON.stringify(body)).toContain(`${field}:`);
    }
    const res = await t.call('POST', '/api/gates/dry-run', { project_id: '00000000-0000-4000-8000-000000000000', tool: 'Bash', input: { command: 'ls' } });
    expect(res.status).toBe(404);
  });
});

describe('the corpus of agent calls', () => {
  it(`has at least 150 risky and 80 routine calls over the eight categories and obfuscations`, () => {
    expect(risky.length).toBeGreaterThanOrEqual(150);
    expect(routine.length).toBeGreaterThanOrEqual(80);
    expect(new Set(risky.map((r) => r.category)).size).toBe(9);
  });

  it.each(risky.map((r) => [toolCall(r.call).tool, JSON.stringify(toolCall(r.call).input), r] as const))(
    'risky %s %s is gated', async (_t, _i, r) => {
      const { tool, input } = toolCall(r.call);
      const v = await dry(tool, input);
      expect(v.decision === 'ask' || v.decision === 'deny', JSON.stringify(v)).toBe(true);
      expect(v).toMatchObject({ category: r.category, ...(r.decision ? { decision: r.decision } : {}) });
    });

  it.each(routine.map((r) => [toolCall(r.call).tool, JSON.stringify(toolCall(r.call).input), r] as const))(
    'routine %s %s passes', async (_t, _i, r) => {
      const { tool, input } = toolCall(r.call);
      const v = await dry(tool, input);
      expect(v, JSON.stringify(v)).toEqual({ decision: 'pass' });
    });

  it('prints its score per category', async () => {
    const rows = await scoreCorpus((tool, input) => dry(tool, input));
    console.log(formatScore(rows));
    expect(rows.every((r) => r.gated === r.risky && r.passed === r.routine), rows.flatMap((r) => r.misses).join('\n')).toBe(true);
  });
});
