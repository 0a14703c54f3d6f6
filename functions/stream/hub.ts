// The journal hub of one server process: LISTENs for dispatch_events (one NOTIFY per written batch),
// reads new rows once for all subscribers (seq > last, safe because commits are serialised in seq
// order) into a bounded ring, and feeds every subscriber from its own cursor. A subscriber behind
// the ring pages the database until it catches up. A slow poll covers a lost notification.
import type { Sql } from '../db/client.ts';
import type { Logger } from '../log.ts';
import { EVENT_COLUMNS, type EventRow } from '../queries/events.ts';

export interface StreamFilter {
  project?: string;
  task?: string;
  session?: string;
}

export interface Subscriber {
  /** Called with rows in seq order, each row exactly once, none at or below the cursor. */
  push(rows: EventRow[]): void;
  /** The hub gave up on the subscriber (it is too far behind to keep in memory). */
  close(reason: string): void;
}

interface Sub extends Subscriber {
  cursor: number;
  filter: StreamFilter;
  catchingUp: boolean;
}

export interface HubOptions {
  ringSize?: number;
  pollMs?: number;
  pageSize?: number;
}

export function matches(row: EventRow, f: StreamFilter): boolean {
  return (
    (!f.project || row.project_id === f.project) &&
    (!f.task || row.task_id === f.task) &&
    (!f.session || row.session_id === f.session)
  );
}

export class JournalHub {
  private last = 0;
  private ring: EventRow[] = [];
  private subs = new Set<Sub>();
  private fetching: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly ringSize: number;
  private readonly pageSize: number;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly opts: HubOptions = {},
  ) {
    this.ringSize = opts.ringSize ?? 10_000;
    this.pageSize = opts.pageSize ?? 1000;
  }

  /** The highest seq this hub has read. */
  get head(): number {
    return this.last;
  }

  get subscriberCount(): number {
    return this.subs.size;
  }

  async start(): Promise<void> {
    const [row] = await this.sql<{ s: number }[]>`select coalesce(max(seq), 0) as s from dispatch.events`;
    this.last = row!.s;
    const l = await this.sql.listen(
      'dispatch_events',
      () => this.kick(),
      () => this.kick(), // (re)connected: re-query whatever was missed meanwhile
    );
    this.unlisten = () => l.unlisten();
    this.timer = setInterval(() => this.kick(), this.opts.pollMs ?? 3000);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.().catch(() => {});
    for (const s of this.subs) s.close('server stopping');
    this.subs.clear();
  }

  /** Starts feeding a subscriber with every matching row after `after`. Returns the unsubscribe. */
  subscribe(after: number, filter: StreamFilter, sub: Subscriber): () => void {
    const s: Sub = Object.assign(Object.create(null) as Sub, sub, { cursor: after, filter, catchingUp: true });
    s.push = sub.push.bind(sub);
    s.close = sub.close.bind(sub);
    this.subs.add(s);
    void this.catchUp(s);
    return () => this.subs.delete(s);
  }

  private async catchUp(s: Sub): Promise<void> {
    try {
      // Page the database while the ring does not reach back to the cursor.
      while (this.subs.has(s) && (this.ring.length === 0 ? s.cursor < this.last : s.cursor + 1 < this.ring[0]!.seq)) {
        const { rows, visible } = await this.page(s.cursor, s.filter);
        if (!this.subs.has(s)) return;
        if (rows.length) s.push(rows);
        s.cursor = rows.length === this.pageSize ? rows.at(-1)!.seq : Math.max(visible, rows.at(-1)?.seq ?? 0, s.cursor);
      }
      if (!this.subs.has(s)) return;
      const rest = this.ring.filter((r) => r.seq > s.cursor && matches(r, s.filter));
      s.catchingUp = false;
      if (rest.length) s.push(rest);
      s.cursor = Math.max(s.cursor, this.last);
    } catch (err) {
      this.log.warn(`stream catch-up failed: ${(err as Error).message}`);
      this.subs.delete(s);
      s.close('catch-up failed');
    }
  }

  private async page(after: number, f: StreamFilter): Promise<{ rows: EventRow[]; visible: number }> {
    // One snapshot for both reads: every row up to `visible` has been looked at, since commits
    // arrive in seq order.
    return this.sql.begin('isolation level repeatable read read only', async (tx) => {
      const rows = await tx<EventRow[]>`
        select ${tx.unsafe(EVENT_COLUMNS)} from dispatch.events
         where seq > ${after}
           ${f.project ? tx`and project_id = ${f.project}` : tx``}
           ${f.task ? tx`and task_id = ${f.task}` : tx``}
           ${f.session ? tx`and session_id = ${f.session}` : tx``}
         order by seq limit ${this.pageSize}`;
      const [v] = await tx<{ s: number }[]>`select coalesce(max(seq), 0) as s from dispatch.events`;
      return { rows: [...rows], visible: v!.s };
    });
  }

  kick(): void {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.again = false;
    this.fetching = this.fetch()
      .catch((err) => this.log.warn(`stream fetch failed: ${(err as Error).message}`))
      .finally(() => {
        this.fetching = null;
        if (this.again) this.kick();
      });
  }

  private async fetch(): Promise<void> {
    for (;;) {
      const rows = await this.sql<EventRow[]>`
        select ${this.sql.unsafe(EVENT_COLUMNS)} from dispatch.events where seq > ${this.last} order by seq limit ${this.pageSize}`;
      if (rows.length === 0) return;
      this.last = rows.at(-1)!.seq;
      this.ring.push(...rows);
      if (this.ring.length > this.ringSize) this.ring.splice(0, this.ring.length - this.ringSize);
      for (const s of this.subs) {
        if (s.catchingUp) continue;
        const mine = rows.filter((r) => r.seq > s.cursor && matches(r, s.filter));
        s.cursor = this.last;
        if (mine.length) s.push(mine);
      }
      if (rows.length < this.pageSize) return;
    }
  }
}
