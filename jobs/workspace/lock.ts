// One repository, one git writer at a time (worktree add/remove, merges into base), across every
// runner: a transaction-scoped advisory lock held while `fn` runs.
import type { Sql } from '../../core/db/client.ts';
import { LOCKS } from '../../core/db/locks.ts';

export async function withRepoLock<T>(sql: Sql, repo: string, fn: () => Promise<T>): Promise<T> {
  let out: T;
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${LOCKS.repoPrefix + repo}, 0))`;
    out = await fn();
  });
  return out!;
}
