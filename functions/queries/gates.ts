// Gate acts shared by the routes and the operator CLI: the list a person decides from, and the decision.
import type { Gate } from '../../core/contracts/gate.ts';
import type { Sql } from '../../core/db/client.ts';

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
