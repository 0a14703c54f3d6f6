// Every Postgres advisory lock this codebase takes, named in one place. Two of them are taken inside
// SQL (the journal trigger and the orchestrator claim); a test pins the SQL text to these values.

export const LOCKS = {
  /** Session-level: one process at a time applies migrations (core/db/migrate.ts). */
  migrations: 7201150000,
  /**
   * Transaction-level, taken by dispatch.events_lock_seq (once per INSERT statement, before its
   * first row draws a seq), so journal commits are serialised in seq order
   * (sql/migrations/0001_journal.sql, 0025_events_seq_lock_per_statement.sql); taken early by
   * dispatch.lock_for_session_write so stall and resume writes lock in the writers' order.
   */
  journalSeq: 7201150001,
  /**
   * Transaction-level, per project: `hashtextextended(prefix || project_id, 0)`, so one
   * orchestrator turn is claimed at a time (dispatch.claim_orchestrator_turn).
   */
  orchestratorClaimPrefix: 'dispatch.orchestrator:',
  /**
   * Transaction-level, per repository: `hashtextextended(prefix || repo, 0)`, so worktree creation,
   * merges and removals in one repository take turns across runners (jobs/workspace/lock.ts).
   */
  repoPrefix: 'dispatch.repo:',
  /**
   * Transaction-level, per server instance: `hashtextextended(prefix || instance, 0)`, so two
   * starts of one instance do not both judge the same previous start (dispatch.server_started).
   */
  serverInstancePrefix: 'dispatch.server_instance:',
} as const;
