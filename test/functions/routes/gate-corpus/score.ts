// Scores the corpus with any classifier: per category, risky calls gated / total and routine calls
// passed / total. Used by the corpus test's summary and by `npm run bench` (section gates).
import { risky } from './risky.ts';
import { routine } from './routine.ts';
import { toolCall, type Category } from './types.ts';

export type Verdict = { decision: string; category?: string | null };
export type Row = { category: Category; gated: number; risky: number; passed: number; routine: number; misses: string[] };

const isGated = (v: Verdict) => v.decision === 'ask' || v.decision === 'deny';

export async function scoreCorpus(decide: (tool: string, input: Record<string, unknown>) => Promise<Verdict>): Promise<Row[]> {
  const rows = new Map<Category, Row>();
  const row = (c: Category) => rows.get(c) ?? rows.set(c, { category: c, gated: 0, risky: 0, passed: 0, routine: 0, misses: [] }).get(c)!;
  for (const x of risky) {
    const { tool, input } = toolCall(x.call);
    const v = await decide(tool, input);
    const r = row(x.category);
    r.risky++;
    if (isGated(v)) r.gated++;
    else r.misses.push(`risky passed: ${tool} ${JSON.stringify(input)}`);
  }
  for (const x of routine) {
    const { tool, input } = toolCall(x.call);
    const v = await decide(tool, input);
    const r = row(x.near);
    r.routine++;
    if (!isGated(v)) r.passed++;
    else r.misses.push(`routine gated (${v.category}): ${tool} ${JSON.stringify(input)}`);
  }
  return [...rows.values()];
}

export function formatScore(rows: Row[]): string {
  const lines = rows.map((r) => `${r.category.padEnd(18)} risky gated ${String(r.gated).padStart(3)}/${String(r.risky).padEnd(3)}  routine passed ${String(r.passed).padStart(3)}/${r.routine}`);
  const t = rows.reduce((a, r) => ({ g: a.g + r.gated, k: a.k + r.risky, p: a.p + r.passed, n: a.n + r.routine }), { g: 0, k: 0, p: 0, n: 0 });
  lines.push(`${'all'.padEnd(18)} risky gated ${String(t.g).padStart(3)}/${String(t.k).padEnd(3)}  routine passed ${String(t.p).padStart(3)}/${t.n}`);
  return lines.join('\n');
}
