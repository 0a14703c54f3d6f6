// The path of a session's stdout into the journal, in one place and in order: the spool file the
// process writes → its tail → lines → the substrate's reading of each line (once) → the journal
// writer. It owns the back-pressure: past MAX_BACKLOG unwritten lines (Postgres slow or
// restarting) the tail stops reading, the bytes wait in the spool file, memory stays bounded and
// nothing is lost; below RESUME_BACKLOG it reads again.
import type { Sql } from '../../core/db/client.ts';
import { JournalWriter, type SessionRef } from '../journal-writer.ts';
import { emptyFacts, observe, type RateLimitFact, type StreamFacts, type Substrate } from '../substrate/port.ts';
import { LineSplitter } from './line-splitter.ts';
import { SpoolTail } from './spool-tail.ts';

/** Unwritten lines at which the spool tail pauses, and at which it reads again. */
export const MAX_BACKLOG = 20_000;
export const RESUME_BACKLOG = 5_000;

export interface LinePipelineOptions {
  sql: Sql;
  substrate: Substrate;
  ref: SessionRef;
  /** The spool file the process writes its stdout into. */
  spool: string;
  /** Lines journalled before (a re-adopted session): read for their facts, not written again. */
  skipLines: number;
  /** Bytes arrived (the watchdog's clock). */
  onOutput(): void;
  /** A line was journalled after the result had been seen. */
  onResultSeen(): void;
  /** A journal write failed and is about to be retried. */
  onRetry(err: unknown, attempt: number): void;
  /** A new line says the account's quota or rate limit refused a request. */
  onRateLimit?(fact: RateLimitFact): void;
}

export class LinePipeline {
  /** What the stream has said so far: the status is derived from it at the end. */
  readonly facts: StreamFacts = emptyFacts();
  private seen = 0;
  /** A rate limit was reported for this session already. */
  private limitSeen = false;
  private readonly writer: JournalWriter;
  private readonly splitter: LineSplitter;
  private readonly tail: SpoolTail;

  constructor(private readonly o: LinePipelineOptions) {
    this.writer = new JournalWriter(o.sql, o.ref, {
      firstLineNo: o.skipLines,
      onRetry: o.onRetry,
      onProgress: () => this.written(),
    });
    this.splitter = new LineSplitter((line) => this.take(line));
    this.tail = new SpoolTail(
      o.spool,
      (chunk) => {
        this.splitter.push(chunk);
        // Output is what the process printed since this runner took over: the lines a previous
        // runner journalled are read again without counting (an adopted stalled session has not
        // resumed because its old lines were replayed).
        if (this.seen > o.skipLines || (this.seen === o.skipLines && chunk.at(-1) !== 0x0a)) o.onOutput();
      },
      200,
      () => this.writer.backlog < MAX_BACKLOG,
    );
  }

  /** Starts following the spool file. */
  start(): void {
    this.tail.start();
  }

  /** The process ended: reads the spool to its end (last line without a newline included) and writes it all. */
  async finish(): Promise<void> {
    await this.tail.drain(() => this.writer.room(RESUME_BACKLOG));
    this.splitter.end();
    await this.writer.flush();
  }

  /** The runner is stopping: writes what was read; the rest stays in the spool for the next runner. */
  async detach(): Promise<void> {
    await this.writer.flush();
  }

  /** Stops following the spool file. */
  stop(): Promise<void> {
    return this.tail.stop();
  }

  private take(line: Buffer): void {
    const classified = this.o.substrate.classify(line);
    observe(this.facts, classified);
    if (this.seen++ < this.o.skipLines) return; // journalled before this runner took over
    this.writer.push(line, classified);
    const limit = classified.facts?.rateLimit;
    // A limit with no time of its own (the final 429 result) after one that had a time (the
    // retries' retry-after) adds nothing: the policy's back-off would only overrule the stream.
    if (limit && (!this.limitSeen || limit.resetsAt !== null || limit.retryAfterMs !== null)) {
      this.limitSeen = true;
      this.o.onRateLimit?.(limit);
    }
    if (this.facts.resultSeen) this.o.onResultSeen();
  }

  /** A batch committed: a paused tail may read again. */
  private written(): void {
    if (this.writer.backlog < RESUME_BACKLOG) this.tail.kick();
  }
}
