// Gate acts shared by the routes and the operator CLI: the list a person decides from, and the decision.
import type { Gate } from '../../core/contracts/gate.ts';
import type { Sql } from '../../core/db/client.ts';
import { readCall, type CallContext, type Reading } from '../../core/gates/reading.ts';
import { AppError } from '../errors.ts';

/** Gates, newest first (dispatch.list_gates). */
export async function listGates(sql: Sql, q: { status: 'open' | 'decided' | 'all'; project_id?: string | null; limit: number }): Promise<Gate[]> {
  const [row] = await sql<{ g: Gate[] }[]>`select dispatch.list_gates(${q.status}, ${q.project_id ?? null}, ${q.limit}) as g`;
  return row!.g;
}

/** Decides an open gate once (dispatch.decide_gate; a second decision raises). */
export async function decideGate(
  sql: Sql,
  d: { id: string; decision: 'approve' | 'deny'; reason?: string | null; by: string; via: string },
): Promise<Gate> {
  const [row] = await sql<{ g: Gate }[]>`select dispatch.decide_gate(${d.id}, ${d.decision}, ${d.reason ?? null}, ${d.by}, ${d.via}) as g`;
  return row!.g;
}

export type Verdict = { decision: 'pass' | 'allow' | 'ask' | 'deny'; category?: string; rule?: string; reason?: string; fact?: string };

/** The reading the rules match: the hook's, the dry run's and the CLI's are the same. */
export function readForGate(tool: string, input: Record<string, unknown>, at: CallContext): Promise<Reading> {
  return readCall(tool, input, at);
}

/** What the gate would answer for a call in a project, opening and journalling nothing. The working
 *  directory defaults to the project's (config.cwd). */
export async function dryRunGate(sql: Sql, q: { project_id: string; tool: string; input: Record<string, unknown>; cwd?: string | null }): Promise<Verdict> {
  const [p] = await sql<{ cwd: string | null }[]>`select config->>'cwd' as cwd from dispatch.projects where id = ${q.project_id}`;
  if (!p) throw new AppError(404, 'not_found', `no project ${q.project_id}`);
  const cwd = q.cwd ?? p.cwd ?? null;
  const reading = await readForGate(q.tool, q.input, { cwd });
  const [row] = await sql<{ v: Verdict }[]>`
    select dispatch.gate_dry_run(${q.project_id}, ${q.tool}, ${JSON.stringify(q.input)}::text::jsonb, ${cwd}, ${JSON.stringify(reading)}::text::jsonb) as v`;
  return row!.v;
}
