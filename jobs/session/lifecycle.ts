// What the supervisor reports about a session, through the SQL functions of
// sql/functions/25_sessions.sql (each moves the session's cache columns and journals its event in
// one transaction).
import type { Sql } from '../../core/db/client.ts';
import type { Logger } from '../../core/log.ts';
import type { Derived, ExitFacts, RateLimitFact, StreamFacts } from '../substrate/port.ts';

export interface Started {
  pid: number;
  host: string;
  runnerId: string;
  spool: string;
  cwd: string;
  /** The command line as it may be journalled. */
  argv: string[];
  /** The event that caused the session: its session.spawned nests under it. */
  cause: string | null;
}

export async function sessionStarted(sql: Sql, sessionId: string, s: Started): Promise<void> {
  await sql`select dispatch.session_started(${sessionId}, ${s.pid}, ${s.host}, ${s.runnerId}, ${s.spool}, ${s.cwd},
                                            ${sql.json(s.argv)}, ${s.cause})`;
}

/** Returns how many of the session's stdout lines are journalled already. */
export async function sessionAdopted(sql: Sql, sessionId: string, runnerId: string, pid: number | null, alive: boolean): Promise<number> {
  const [row] = await sql<{ done: number }[]>`select dispatch.session_adopted(${sessionId}, ${runnerId}, ${pid}, ${alive}) as done`;
  return row!.done;
}

export async function sessionStalled(sql: Sql, sessionId: string, silentMs: number, thresholdMs: number): Promise<void> {
  await sql`select dispatch.session_stalled(${sessionId}, ${Math.round(silentMs)}, ${Math.round(thresholdMs)})`;
}

export async function sessionResumed(sql: Sql, sessionId: string): Promise<void> {
  await sql`select dispatch.session_resumed(${sessionId})`;
}

export interface Exited {
  derived: Derived;
  exit: ExitFacts;
  facts: StreamFacts;
  durationMs: number;
  stderrTail: string;
}

/** Journals the exit and, when the result reported it, what the session cost — in one transaction. */
export async function sessionExited(sql: Sql, sessionId: string, e: Exited): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select dispatch.session_exited(${sessionId}, ${e.derived.status}, ${e.derived.reason}, ${e.exit.code},
                                            ${e.exit.signal}, ${e.exit.exitKnown}, ${e.exit.endedAfterResult},
                                            ${Math.round(e.durationMs)}, ${e.facts.lines}, ${e.facts.substrateSessionId},
                                            ${e.stderrTail})`;
    if (e.facts.usage) await tx`select dispatch.record_usage(${sessionId}, ${JSON.stringify(e.facts.usage)}::text::jsonb)`;
  });
}

/**
 * The account is rate limited: records "limited until T" for every runner (T from the line's reset
 * time, else its retry delay, else the return policy's back-off) and journals quota.limited.
 */
export async function rateLimited(sql: Sql, sessionId: string, f: RateLimitFact): Promise<void> {
  const until = f.resetsAt ?? (f.retryAfterMs !== null ? Date.now() + f.retryAfterMs : null);
  await sql`select dispatch.rate_limited(${sessionId}, ${until === null ? null : new Date(until)}, ${f.reason})`;
}

/** Status writes of one session, one after another in the order they happened; a failure is logged, not thrown. */
export class StatusWrites {
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: Logger,
    private readonly sessionId: string,
  ) {}

  queue(write: () => Promise<unknown>): void {
    this.last = this.last.then(write).then(
      () => {},
      (e) => this.log.warn(`status write for ${this.sessionId} failed: ${(e as Error).message}`),
    );
  }

  /** Resolves once every queued write has run. */
  idle(): Promise<void> {
    return this.last;
  }
}
