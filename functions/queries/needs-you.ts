// Needs you, read from its one definition (dispatch.needs_you, sql/functions/63_needs_you.sql), and
// the dismissal. GET /api/state reads the same two functions inside its snapshot.
import type postgres from 'postgres';
import type { FinishedLoop, NeedsYouItem } from '../../core/contracts/needs-you.ts';
import type { Sql } from '../../core/db/client.ts';

type Q = Sql | postgres.TransactionSql<{ bigint: number }>;

export async function needsYou(sql: Q, projectId: string | null = null): Promise<NeedsYouItem[]> {
  return [...(await sql<NeedsYouItem[]>`select * from dispatch.needs_you(${projectId}::uuid)`)];
}

export async function finishedLoops(sql: Q, projectId: string | null = null): Promise<FinishedLoop[]> {
  return [...(await sql<FinishedLoop[]>`select * from dispatch.finished_loops(${projectId}::uuid)`)];
}

/** Marks an item seen (journalled); a key not listed now is a 404 (P0002). */
export async function dismissNeedsYou(sql: Sql, key: string, by: string | null): Promise<string> {
  const [r] = await sql<{ id: string }[]>`select dispatch.dismiss_needs_you(${key}, ${by}) as id`;
  return r!.id;
}
